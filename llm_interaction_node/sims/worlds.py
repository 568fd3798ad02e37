"""Find and load world files: a name like ``'drinks_and_cup'`` or a path to a YAML file.

World files live in ``config/worlds/`` of the source tree and are installed to
``share/llm_interaction_node/config/worlds/`` (ament / ``pip install``).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..paths import config_dirs
from .household import HouseholdWorld
DEFAULT_WORLD = "drinks_and_cup"


def world_dirs() -> list[Path]:
    """Directories searched for world files: $LLM_INTERACTION_WORLDS, then config/worlds."""
    dirs = [Path(p) for p in os.environ.get("LLM_INTERACTION_WORLDS", "").split(os.pathsep) if p]
    return dirs + [d / "worlds" for d in config_dirs()]


def world_path(name_or_path: str | os.PathLike) -> Path:
    """Resolve a world name (``drinks_and_cup``) or a path to an existing YAML file."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return path
    for d in world_dirs():
        for candidate in (d / f"{path.name}.yaml", d / path.name):
            if candidate.is_file():
                return candidate
    raise FileNotFoundError(f"no world {str(name_or_path)!r}; known worlds: {list_worlds()}")


def list_worlds() -> list[str]:
    """Names of the world files found in :func:`world_dirs`."""
    names: list[str] = []
    for d in world_dirs():
        if d.is_dir():
            names += [p.stem for p in sorted(d.glob("*.yaml")) if p.stem not in names]
    return names


def load_household_world(name_or_path: str | os.PathLike = DEFAULT_WORLD, **kwargs: Any) -> HouseholdWorld:
    """A :class:`HouseholdWorld` from a world name or file (kwargs: time_scale, progress)."""
    return HouseholdWorld.from_yaml(world_path(name_or_path), **kwargs)


__all__ = ["world_dirs", "world_path", "list_worlds", "load_household_world", "DEFAULT_WORLD"]

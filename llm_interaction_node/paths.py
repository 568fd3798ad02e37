"""Where the package's world files are (household scenarios, also the static knowledge of a
real robot), searched in the extra world directories, then in each config directory
(``core/settings/config_files.py``, where core finds its own config files: every caller imports
``config_path`` from there).

The extra world directories are a setting like every other (:class:`WorldSettings`, its
``LLM_INTERACTION_WORLDS`` read by the one settings mechanism), but a process-wide one, as
the cache directory is (``core/settings/cache.py``): the simulator node, the interaction node's
static knowledge and the benchmarks all look worlds up, most of them without an agent's
:class:`~.settings.Settings`."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .core.settings.config import load_section, setting
from .core.settings.config_files import config_dirs

__all__ = ["DEFAULT_WORLD", "WorldSettings", "list_worlds", "world_dirs", "world_path"]

DEFAULT_WORLD = "drinks_and_cup"


@dataclass
class WorldSettings:
    """Where world files are found (``LLM_INTERACTION_WORLDS``); not part of an agent's settings."""

    dirs: str = setting("", f"directories searched for world files before config/worlds, "
                        f"separated by {os.pathsep!r} (as in PATH)", env="LLM_INTERACTION_WORLDS")


def world_dirs(env: Mapping[str, str] = os.environ) -> list[Path]:
    """Directories searched for world files: ``WorldSettings.dirs``, then config/worlds."""
    extra = load_section(WorldSettings, None, "worlds", env).dirs
    dirs = [Path(p.strip()).expanduser() for p in extra.split(os.pathsep) if p.strip()]
    return dirs + [d / "worlds" for d in config_dirs()]


def world_path(name_or_path: str | os.PathLike, env: Mapping[str, str] = os.environ) -> Path:
    """Resolve a world name (``drinks_and_cup``) or a path to an existing YAML file."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return path
    for d in world_dirs(env):
        for candidate in (d / f"{path.name}.yaml", d / path.name):
            if candidate.is_file():
                return candidate
    raise FileNotFoundError(f"no world {str(name_or_path)!r}; known worlds: {list_worlds(env)}")


def list_worlds(env: Mapping[str, str] = os.environ) -> list[str]:
    """Names of the world files found in :func:`world_dirs`."""
    names: list[str] = []
    for d in world_dirs(env):
        if d.is_dir():
            names += [p.stem for p in sorted(d.glob("*.yaml")) if p.stem not in names]
    return names

"""Where the package's files are: config files (the source tree, then the installed share/
dirs) and world files (household scenarios, also the static knowledge of a real robot)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE = "llm_interaction_node"
DEFAULT_WORLD = "drinks_and_cup"


def config_dirs() -> list[Path]:
    """``config/`` directories in search order (source tree, ament index, pip prefix)."""
    dirs = [Path(__file__).resolve().parent.parent / "config"]
    try:  # ROS install space, if ament_index is around
        from ament_index_python.packages import get_package_share_directory  # type: ignore
        dirs.append(Path(get_package_share_directory(PACKAGE)) / "config")
    except Exception:  # noqa: BLE001 - not a ROS environment / package not indexed
        pass
    dirs.append(Path(sys.prefix) / "share" / PACKAGE / "config")
    return dirs


def config_path(*parts: str) -> Path:
    """The first existing ``config/<parts>``; the source-tree path if none exists."""
    for d in config_dirs():
        if d.joinpath(*parts).exists():
            return d.joinpath(*parts)
    return config_dirs()[0].joinpath(*parts)


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

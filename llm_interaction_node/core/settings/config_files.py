"""Where the package's config files are: the source tree, then the installed share/ dirs.

In core because core reads its own config files (the function-generation prompt, the
L_improve examples, the seed transcripts of each API set); ``paths`` (world files) builds on
it, so core never imports the layers above it."""
from __future__ import annotations

import sys
from pathlib import Path

PACKAGE = "llm_interaction_node"


def config_dirs() -> list[Path]:
    """``config/`` directories in search order (source tree, ament index, pip prefix)."""
    dirs = [Path(__file__).resolve().parents[3] / "config"]
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

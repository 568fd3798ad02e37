"""The ``--api-preset`` option that ``chat``, ``replay``, ``run``, ``eval`` and the correction
bench share: it sets the one setting ``robot_api.preset`` (the robot API every system gets,
``core/apis/sets.py``), and like the ``--llm-*`` options it beats the settings file."""
from __future__ import annotations

import argparse
from typing import Any

from .core.apis.sets import API_PRESETS

HELP = ("the robot API: ours (default; the tabletop listing names the places, a blocked pick "
        "says what to move first, a failed household skill says why) or paper (the paper's "
        "API and outputs) (robot_api.preset)")


def add_api_preset_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--api-preset", choices=API_PRESETS, default=None, help=HELP)


def preset_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The option as a dotted settings override (None: not given, the file's value)."""
    return {"robot_api.preset": getattr(args, "api_preset", None)}

"""Load household worlds: a name like ``'drinks_and_cup'`` or a path to a YAML file.

World files live in ``config/worlds/`` of the source tree and are installed to
``share/llm_interaction_node/config/worlds/`` (ament / ``pip install``); finding them is
:mod:`llm_interaction_node.paths`' job (the real-robot node needs it without the simulator).
"""
from __future__ import annotations

import os
from typing import Any

from ..paths import DEFAULT_WORLD, list_worlds, world_dirs, world_path
from .household import HouseholdWorld


def load_household_world(name_or_path: str | os.PathLike = DEFAULT_WORLD, **kwargs: Any) -> HouseholdWorld:
    """A :class:`HouseholdWorld` from a world name or file (kwargs: time_scale, progress)."""
    return HouseholdWorld.from_yaml(world_path(name_or_path), **kwargs)


__all__ = ["world_dirs", "world_path", "list_worlds", "load_household_world", "DEFAULT_WORLD"]

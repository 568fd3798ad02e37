"""Load household worlds: a name like ``'drinks_and_cup'`` or a path to a YAML file; the
in-process world of each API set (:data:`IN_PROCESS_WORLDS`).

World files live in ``config/worlds/`` of the source tree and are installed to
``share/llm_interaction_node/config/worlds/`` (ament / ``pip install``); finding them is
:mod:`llm_interaction_node.paths`' job (the real-robot node needs it without the simulator).
"""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..core.apis.sets import HUMANOID, TABLETOP, ApiSet
from ..paths import DEFAULT_WORLD, list_worlds, world_dirs, world_path
from .household import HouseholdWorld


def load_household_world(
    name_or_path: str | os.PathLike = DEFAULT_WORLD, **kwargs: Any
) -> HouseholdWorld:
    """A :class:`HouseholdWorld` from a world name or file (kwargs: time_scale, progress)."""
    return HouseholdWorld.from_yaml(world_path(name_or_path), **kwargs)


def tabletop_world(world: str | None = None, seed: int = 0):
    """A 2-D tabletop: the comma-separated object names of ``world``, else 3 random blocks
    and 3 random bowls."""
    from .tabletop2d import TabletopWorld2D
    if world:
        names = [n.strip() for n in world.split(",") if n.strip()]
        return TabletopWorld2D.from_names(names, seed=seed)
    return TabletopWorld2D.random(n_blocks=3, n_bowls=3, seed=seed)


# ``world``: what ``--world`` says (a household world name or file; tabletop object names)
IN_PROCESS_WORLDS: dict[ApiSet, Callable[[str | None, int], Any]] = {
    HUMANOID: lambda world, seed: load_household_world(world or DEFAULT_WORLD),
    TABLETOP: tabletop_world,
}

__all__ = ["world_dirs", "world_path", "list_worlds", "load_household_world", "DEFAULT_WORLD",
           "tabletop_world", "IN_PROCESS_WORLDS"]

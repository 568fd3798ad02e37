"""The registry of the 14 templates (it fills ``base.TEMPLATES``, where a :class:`Task`, one
filled instruction on one scene, finds its template), the functions the harness, the simulated
user and the benchmarks ask about a task, and the feasible world of a task."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..observe import Positions
from .base import TEMPLATES, Task, Template
from .line import BlocksInLine
from .scenes import SPLITS, attributes_for, world_positions
from .seen import (
    BlockDirectionOfBowl,
    BlockDistanceToBowl,
    BlockInBowl,
    BlockOnBlock,
    BlocksInBowl,
    BlocksOnPlace,
    MatchingBowls,
    NthBlockFromDirection,
)
from .unseen import (
    BlockCornerDistanceToBowl,
    BlockMagnitudeDirectionOfBowl,
    DifferentCorners,
    MismatchedBowls,
    StackOnPlace,
)

_TEMPLATE_LIST: list[Template] = [
    # seen (sa_si, ua_si)
    BlockOnBlock(), BlockInBowl(), BlocksOnPlace(), BlocksInBowl(), MatchingBowls(),
    BlockDirectionOfBowl(), BlockDistanceToBowl(), NthBlockFromDirection(),
    # unseen (ua_ui)
    DifferentCorners(), MismatchedBowls(), StackOnPlace(), BlockMagnitudeDirectionOfBowl(),
    BlockCornerDistanceToBowl(), BlocksInLine(),
]
TEMPLATES.update((t.id, t) for t in _TEMPLATE_LIST)
TEMPLATE_IDS: tuple[str, ...] = tuple(TEMPLATES)


# ---------------------------------------------------------------------------- asked about a task
def tasks_for_split(split: str, templates=None) -> list[Template]:
    """The templates a split evaluates (seen ones for sa_si/ua_si, unseen for ua_ui), in the
    protocol's order; ``templates`` (ids) restricts the selection."""
    attributes_for(split)
    chosen = [t for t in _TEMPLATE_LIST if split in t.splits]
    if templates is not None:
        wanted = set(templates)
        unknown = wanted - set(TEMPLATES)
        if unknown:
            raise ValueError(f"unknown templates {sorted(unknown)}; use some of {TEMPLATE_IDS}")
        chosen = [t for t in chosen if t.id in wanted]
    return chosen


def make_task(template_id: str, split: str, seed: int) -> Task:
    """Sample the attributes and the scene's object names (deterministic in the arguments).
    Any template may be combined with any split (the split picks the attribute set); the
    protocol's combinations are :attr:`Template.splits`."""
    if template_id not in TEMPLATES:
        raise ValueError(f"unknown template {template_id!r}; use one of {TEMPLATE_IDS}")
    attributes_for(split)
    t = TEMPLATES[template_id]
    rng = np.random.default_rng([int(seed), TEMPLATE_IDS.index(template_id), SPLITS.index(split)])
    attrs = t.sample(split, rng)
    objects = t.scene(attrs, split, rng)
    return Task(template_id, split, t.pattern.format(**attrs), attrs, objects, int(seed))


def check(task: Task, initial: Positions, final: Positions) -> bool:
    """Success of ``task`` given the initial and final positions (see the templates)."""
    return bool(task.template.check(initial, final, task))


def interpretation(task: Task, pos: Positions):
    """What the instruction refers to in the scene ``pos`` (:meth:`Template.meaning`); when it
    differs between the initial and the current scene, the initial condition is destroyed:
    following the instruction now would act on something else (section B)."""
    try:
        return task.template.meaning(task, pos)
    except (KeyError, ValueError, IndexError):
        return None


def initial_destroyed(task: Task, initial: Positions, current: Positions) -> bool:
    """The instruction now refers to something else than in the initial scene."""
    before = interpretation(task, initial)
    return before is not None and interpretation(task, current) != before


def solution_program(task: Task) -> str:
    """A scripted correct program for the task (tabletop API functions, Python, ``np``)."""
    return task.template.program(task)


def mistaken_program(task: Task) -> str | None:
    """A plausible wrong program for the task (:meth:`Template.mistake`), or None."""
    return task.template.mistake(task)


def solution_text(task: Task, positions: Positions | None = None) -> str:
    """The explicit solution in plain words for the simulated user (no code). With the initial
    ``positions`` it names the meant block / corner / line points; without, it describes how
    to find them."""
    return task.template.text(task, positions)


def needed_blocks(task: Task, positions: Positions | None = None) -> set[str]:
    """The blocks the task cannot be solved without (on the initial ``positions``)."""
    try:
        return task.template.needed(task, positions)
    except (KeyError, ValueError, IndexError):
        return set(task.blocks)


# ---------------------------------------------------------------------------- worlds
def feasible(task: Task, positions: Positions) -> bool:
    """The scene contains every named object and the instruction is unambiguous and solvable
    for these initial positions (margins: meant block / corner wins by >= 2 cm; target points
    inside the workspace, >= 12 cm from bowls, >= 6 cm from blocks that stay) and not already
    solved by the initial positions."""
    named = [v for v in task.attributes.values() if v.endswith((" block", " bowl"))]
    if any(n not in positions for n in named):
        return False
    t = task.template
    return bool(t.feasible(task, positions)) and not t.check(positions, positions, task)


def _default_factory(names, seed):
    from ...sims.tabletop2d import TabletopWorld2D
    return TabletopWorld2D.from_names(names, seed)


def feasible_world(task: Task, factory: Callable[[list[str], int], Any] | None = None,
                   max_attempts: int = 200):
    """Build the task's world with ``factory(names, seed)`` (default: the 2-D world).

    World seeds ``task.seed * 1000 + k`` (k = 0, 1, ...) are tried until the spawn succeeded
    (``spawn_ok`` where the world has it) and :func:`feasible` holds on the initial positions;
    the seed used is stored in ``task.world_seed``. Rejected worlds are ``close()``d if they
    have that method. RuntimeError after ``max_attempts``."""
    factory = factory or _default_factory
    for k in range(max_attempts):
        ws = int(task.seed) * 1000 + k
        world = factory(list(task.objects), ws)
        if getattr(world, "spawn_ok", True) and feasible(task, world_positions(world)):
            task.world_seed = ws
            return world
        close = getattr(world, "close", None)
        if callable(close):
            close()
    raise RuntimeError(f"no feasible scene for {task.instruction!r} in {max_attempts} attempts")

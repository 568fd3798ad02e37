"""The registry of the 14 templates, the :class:`Task` (one filled instruction on one scene)
and the functions the harness, the simulated user and the benchmarks ask about a task."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..observe import Positions
from .base import Template
from .line import BlocksInLine
from .scenes import SPLITS, attributes_for
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


@dataclass
class Task:
    """One instruction of one split on one scene."""

    template_id: str
    split: str
    instruction: str
    attributes: dict[str, str]
    objects: list[str]                 # the scene's object names (blocks first, then bowls)
    seed: int
    world_seed: int | None = None      # set by feasible_world

    @property
    def template(self) -> Template:
        return TEMPLATES[self.template_id]

    @property
    def blocks(self) -> list[str]:
        return [n for n in self.objects if n.endswith(" block")]

    @property
    def bowls(self) -> list[str]:
        return [n for n in self.objects if n.endswith(" bowl")]


_TEMPLATE_LIST: list[Template] = [
    # seen (sa_si, ua_si)
    BlockOnBlock(), BlockInBowl(), BlocksOnPlace(), BlocksInBowl(), MatchingBowls(),
    BlockDirectionOfBowl(), BlockDistanceToBowl(), NthBlockFromDirection(),
    # unseen (ua_ui)
    DifferentCorners(), MismatchedBowls(), StackOnPlace(), BlockMagnitudeDirectionOfBowl(),
    BlockCornerDistanceToBowl(), BlocksInLine(),
]
TEMPLATES: dict[str, Template] = {t.id: t for t in _TEMPLATE_LIST}
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

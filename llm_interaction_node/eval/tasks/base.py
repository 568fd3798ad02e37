"""The instruction template: one subclass per instruction holds its sampler, scene, feasibility,
success check, scripted program, plain-language solution, meaning, needed blocks, mistake and
mismatch (what each method means is said on :class:`Template`); the :class:`Task` (one filled
instruction on one scene) and the templates by id, :data:`TEMPLATES` (filled by registry.py)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..observe import PLACES, Fact, Positions, blocks_of
from .mistakes import flip_literals
from .relations import place_clear
from .scenes import sample_one, sample_scene


class Template:
    """An instruction template. Subclasses set ``id``, ``seen``, ``pattern`` and override
    what differs from the defaults (a scene with the named objects; feasible; no meaning that
    depends on positions; every block needed)."""

    id: str = ""
    seen: bool = True
    pattern: str = ""                  # str.format with the attributes
    min_blocks: int = 1
    min_bowls: int = 1
    selection: bool = False            # the instruction selects a block / corner by a relation

    @property
    def splits(self) -> tuple[str, ...]:
        return ("sa_si", "ua_si") if self.seen else ("ua_ui",)

    def sample(self, split: str, rng: np.random.Generator) -> dict[str, str]:
        return {}

    def scene(self, a: dict[str, str], split: str, rng: np.random.Generator) -> list[str]:
        return sample_scene(split, rng, blocks=[v for v in a.values() if v.endswith(" block")],
                            bowls=[v for v in a.values() if v.endswith(" bowl")],
                            min_blocks=self.min_blocks, min_bowls=self.min_bowls)

    def feasible(self, task: Task, pos: Positions) -> bool:
        return True

    def check(self, initial: Positions, final: Positions, task: Task) -> bool:
        raise NotImplementedError

    def program(self, task: Task) -> str:
        raise NotImplementedError

    def text(self, task: Task, pos: Positions | None = None) -> str:
        raise NotImplementedError

    def mistake(self, task: Task) -> str | None:
        """A plausible wrong program (the scripted stand-in's first try when it is to fail):
        by default the solution with the table's axes flipped (named places mirrored,
        direction vectors reversed, closest <-> farthest), the error the paper reports for
        gpt-3.5; None when that changes nothing."""
        right = self.program(task)
        wrong = flip_literals(right)
        return wrong if wrong != right else None

    def mismatch(self, task: Task, initial: Positions, final: Positions,
                 start: Positions | None = None) -> list[Fact]:
        """What is visibly wrong after a failed round (called only when something moved);
        ``initial``: the run's start, ``start``: the round's start (default ``initial``)."""
        raise NotImplementedError

    def meaning(self, task: Task, pos: Positions):
        """What the instruction refers to in ``pos`` when that depends on positions (the
        block to the left of ..., the corner nearest to ...); None otherwise."""
        return None

    def needed(self, task: Task, pos: Positions | None) -> set[str]:
        """The blocks the task cannot be solved without."""
        named = {v for v in task.attributes.values() if v.endswith(" block")}
        return named or set(task.blocks)


# the templates by id (filled by registry.py, which imports them all)
TEMPLATES: dict[str, Template] = {}


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


class AllBlocksToPlace(Template):
    """Every block goes to one named place (blocks_on_place, stack_on_place): the place is
    sampled alone and must be clear of everything but the blocks."""

    def sample(self, split, rng):
        return {"place": sample_one(split, rng, "places")}

    def feasible(self, task, pos):
        return place_clear(PLACES[task.attributes["place"]], pos, moving=tuple(blocks_of(pos)))

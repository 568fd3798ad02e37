"""A kinematic CaP tabletop: coloured 4 cm blocks and bowls, a suction pick-and-place, no physics.

It implements :class:`~llm_interaction_node.core.apis.tabletop.TabletopRobot`. Objects are
named ``"<colour> block"`` / ``"<colour> bowl"`` with the CaP colours. Spawning follows CaP:
uniform in x [-0.2, 0.2], y [-0.7, -0.3], redrawn until at least 0.15 m from the objects
spawned before (bounded number of redraws; past it the farthest candidate is kept and
:attr:`TabletopWorld2D.spawn_ok` is False).

``pick_and_place`` takes the topmost object under the pick point (a block before the bowl it
lies in) together with whatever rests on it, and puts it down at the place point:

* over a block (within 3 cm) -> stacked on the highest such block (z = top of that block), unless
  the place point is a bowl's own position (z below the block), which means "into the bowl";
* over a bowl (within its 6 cm radius) -> inside the bowl at the bowl's xy (later objects are
  spread on a 3 cm ring so that they stay inside);
* otherwise -> on the table at that xy.

Bowls can be moved too (their contents come along). There is no physics, so nothing is ever
dropped; the PyBullet world replaces this one where that matters.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.apis.tabletop import DEFAULT_BOUNDS
from .tabletop_sizes import BLOCK_SIZE, BOWL_RADIUS
from .world_end import tabletop_end

COLORS: dict[str, tuple[int, int, int]] = {   # RGB / 255, as in CaP
    "blue": (78, 121, 167), "red": (255, 87, 89), "green": (89, 169, 79),
    "orange": (242, 142, 43), "yellow": (237, 201, 72), "purple": (176, 122, 161),
    "pink": (255, 157, 167), "cyan": (118, 183, 178), "brown": (156, 117, 95),
    "gray": (186, 176, 172),
}
KINDS = ("block", "bowl")
BLOCK_MASS = 0.01          # kg (for the record; no physics here)
BOWL_FLOOR = 0.005         # m, thickness of the bowl's floor
STACK_RADIUS = 0.03        # m, a block put down this close to a block's centre lands on it
RING_RADIUS = 0.03         # m, spread of several objects inside one bowl
SPAWN_X = (-0.2, 0.2)
SPAWN_Y = (-0.7, -0.3)
MIN_SPAWN_DISTANCE = 0.15
MAX_REDRAWS = 1000
TABLE = "table"


@dataclass
class TableObject:
    name: str
    kind: str                       # 'block' | 'bowl'
    color: str
    position: np.ndarray            # xyz: a block's centre, a bowl's base

    @property
    def rgb(self) -> tuple[int, int, int]:
        return COLORS[self.color]

    @property
    def top(self) -> float:
        return float(self.position[2]) + (BLOCK_SIZE / 2 if self.kind == "block" else BOWL_FLOOR)


def parse_name(name: str) -> tuple[str, str]:
    """``'red block'`` -> ``('red', 'block')``; ValueError for unknown colours or kinds."""
    parts = str(name).split()
    if len(parts) != 2 or parts[0] not in COLORS or parts[1] not in KINDS:
        raise ValueError(f"object names are '<colour> block' or '<colour> bowl' with a colour "
                         f"from {list(COLORS)}, got {name!r}")
    return parts[0], parts[1]


class TabletopWorld2D:
    """The 2-D tabletop world (see the module docstring)."""

    def __init__(self, seed: int | None = 0, names: Iterable[str] = ()):
        self.seed = seed
        self.bounds = DEFAULT_BOUNDS.copy()
        self.spawn_ok = True
        rng = np.random.default_rng(seed)
        names = list(names)
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate object names in {names}")
        self._initial: dict[str, TableObject] = {}
        placed: list[np.ndarray] = []
        for name in names:
            color, kind = parse_name(name)
            xy = self._spawn_xy(rng, placed)
            placed.append(xy)
            z = BLOCK_SIZE / 2 if kind == "block" else 0.0
            self._initial[name] = TableObject(name, kind, color, np.array([xy[0], xy[1], z]))
        self.reset()

    def _spawn_xy(self, rng: np.random.Generator, placed: list[np.ndarray]) -> np.ndarray:
        best, best_d = None, -1.0
        for _ in range(MAX_REDRAWS):
            xy = np.array([rng.uniform(*SPAWN_X), rng.uniform(*SPAWN_Y)])
            d = min((float(np.linalg.norm(xy - p)) for p in placed), default=math.inf)
            if d >= MIN_SPAWN_DISTANCE:
                return xy
            if d > best_d:
                best, best_d = xy, d
        self.spawn_ok = False
        return best

    @classmethod
    def from_names(cls, names: Iterable[str], seed: int | None = 0) -> TabletopWorld2D:
        """A world with exactly these objects (e.g. ``['red block', 'blue bowl']``)."""
        return cls(seed, names)

    @classmethod
    def random(cls, n_blocks: int, n_bowls: int, seed: int | None = 0) -> TabletopWorld2D:
        """Blocks and bowls of random distinct colours (a block and a bowl may share one)."""
        colors = list(COLORS)
        if not (0 <= n_blocks <= len(colors) and 0 <= n_bowls <= len(colors)):
            raise ValueError(f"at most {len(colors)} blocks and {len(colors)} bowls")
        rng = np.random.default_rng(None if seed is None else [seed, 7])
        blocks = [f"{c} block" for c in rng.permutation(colors)[:n_blocks]]
        bowls = [f"{c} bowl" for c in rng.permutation(colors)[:n_bowls]]
        return cls(seed, blocks + bowls)

    def reset(self) -> None:
        """Back to the spawned state; clears the log."""
        self.objects: dict[str, TableObject] = {
            n: TableObject(o.name, o.kind, o.color, o.position.copy())
            for n, o in self._initial.items()
        }
        self.support: dict[str, str] = {n: TABLE for n in self.objects}
        self.log: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ protocol
    def object_names(self) -> list[str]:
        return list(self.objects)

    def object_position(self, name: str) -> np.ndarray:
        return self.objects[name].position.copy()

    def pick_and_place(self, pick: np.ndarray, place: np.ndarray) -> str:
        pick = np.asarray(pick, dtype=float).reshape(-1)
        place = np.asarray(place, dtype=float).reshape(-1)
        entry: dict[str, Any] = {"pick": pick.tolist(), "place": place.tolist(), "object": None}
        obj = self._topmost_at(pick[:2])
        b = self.bounds
        if obj is None:
            return self._done(entry, "failure", "nothing to pick at the pick point")
        if not (b[0, 0] <= place[0] <= b[0, 1] and b[1, 0] <= place[1] <= b[1, 1]):
            return self._done(entry, "failure", "place point outside the workspace")
        entry["object"] = obj.name
        moving = self._carried(obj.name)
        old = obj.position.copy()
        new, support = self._landing(obj, place, moving)
        for name in moving:
            self.objects[name].position = self.objects[name].position + (new - old)
        self.support[obj.name] = support
        entry["landed"] = obj.position.tolist()
        entry["displaced"] = []            # kinematic: nothing is ever knocked over
        return self._done(entry, "success", "", support=support)

    # ------------------------------------------------------------------ geometry
    def _done(self, entry: dict[str, Any], result: str, reason: str, **extra: Any) -> str:
        entry.update(result=result, reason=reason, **extra)
        self.log.append(entry)
        return result

    def _blocks_near(
        self, xy: np.ndarray, radius: float, exclude: Iterable[str] = ()
    ) -> list[TableObject]:
        ex = set(exclude)
        return [o for o in self.objects.values() if o.kind == "block" and o.name not in ex
                and float(np.linalg.norm(o.position[:2] - xy)) < radius]

    def _bowl_at(self, xy: np.ndarray, exclude: Iterable[str] = ()) -> TableObject | None:
        ex = set(exclude)
        bowls = [o for o in self.objects.values() if o.kind == "bowl" and o.name not in ex
                 and float(np.linalg.norm(o.position[:2] - xy)) < BOWL_RADIUS]
        return min(bowls, key=lambda o: float(np.linalg.norm(o.position[:2] - xy)), default=None)

    def _topmost_at(self, xy: np.ndarray) -> TableObject | None:
        blocks = self._blocks_near(xy, STACK_RADIUS)
        if blocks:
            return max(blocks, key=lambda o: o.top)
        return self._bowl_at(xy)

    def _carried(self, name: str) -> list[str]:
        """The object and everything resting on it, recursively."""
        out, frontier = [name], [name]
        while frontier:
            below = frontier.pop()
            for n, s in self.support.items():
                if s == below and n not in out:
                    out.append(n)
                    frontier.append(n)
        return out

    def _landing(
        self, obj: TableObject, place: np.ndarray, moving: list[str]
    ) -> tuple[np.ndarray, str]:
        xy = place[:2]
        if obj.kind == "bowl":
            return np.array([xy[0], xy[1], 0.0]), TABLE
        z_target = place[2] if place.shape[0] >= 3 else 0.0
        blocks = self._blocks_near(xy, STACK_RADIUS, exclude=moving)
        bowl = self._bowl_at(xy, exclude=moving)
        if blocks and (
            bowl is None or z_target >= min(float(o.position[2]) for o in blocks) - 1e-6
        ):
            base = max(blocks, key=lambda o: o.top)
            return np.array([xy[0], xy[1], base.top + BLOCK_SIZE / 2]), base.name
        if bowl is not None:
            k = sum(1 for n, s in self.support.items() if s == bowl.name and n not in moving)
            offset = np.zeros(2) if k == 0 else RING_RADIUS * np.array(
                [math.cos((k - 1) * math.pi / 3), math.sin((k - 1) * math.pi / 3)])
            bx, by = bowl.position[:2] + offset
            return np.array([bx, by, bowl.top + BLOCK_SIZE / 2]), bowl.name
        return np.array([xy[0], xy[1], BLOCK_SIZE / 2]), TABLE

    # ------------------------------------------------------------------ state
    def snapshot(self) -> dict[str, Any]:
        """Plain data: each object's position and what it rests on ('table' or an object)."""
        return {"objects": {n: {"position": [round(float(v), 6) for v in o.position],
                                "support": self.support[n]} for n, o in self.objects.items()},
                "spawn_ok": self.spawn_ok}

    # ------------------------------------------------------------------ replay check
    def checkpoint(self) -> dict[str, Any]:
        """Copies of each object's position and of the bounds: what :meth:`replay_world`
        starts a 2-D world from (the replay check of learned examples)."""
        return tabletop_checkpoint(self)

    def replay_world(self, state: dict[str, Any]) -> TabletopWorld2D:
        return TabletopWorld2D.from_checkpoint(state)

    @classmethod
    def from_checkpoint(cls, state: dict[str, Any]) -> TabletopWorld2D:
        """A 2-D world with the objects of a tabletop checkpoint where they were (all on the
        table) and its bounds, so ``denormalize_xy`` answers as in the checkpointed world."""
        world = cls.from_names(state["objects"])
        for name, xyz in state["objects"].items():
            world.objects[name].position = xyz.copy()
        world.bounds = state["bounds"].copy()
        return world

    def moved_copy(self, seed: int) -> TabletopWorld2D:
        """A 2-D world of the same objects and bounds, each spawned anew from ``seed`` (all on
        the table): the changed scene a lesson is checked in (core/learning/scenes_check.py)."""
        world = TabletopWorld2D.from_names(self.object_names(), seed=seed)
        world.bounds = np.asarray(self.bounds, dtype=float).copy()
        return world

    def end(self):
        """Where each object is now (:class:`~.world_end.WorldEnd` 'tabletop')."""
        return tabletop_end(self)


def tabletop_checkpoint(world) -> dict[str, Any]:
    """The checkpoint of a tabletop world (2-D or PyBullet): copies of the object positions
    and of the bounds."""
    return {"objects": {n: np.asarray(world.object_position(n), dtype=float).copy()
                        for n in world.object_names()},
            "bounds": np.asarray(world.bounds, dtype=float).copy()}


__all__ = ["TabletopWorld2D", "TableObject", "COLORS", "parse_name", "BLOCK_SIZE", "BOWL_RADIUS"]

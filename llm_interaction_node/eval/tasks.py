"""The CaP tabletop evaluation tasks: 14 instruction templates, one class each.

Protocol (``notes/protocol.md``, sections "CaP tabletop world" and "Evaluation protocol"):

* 8 *seen* templates (splits ``sa_si`` and ``ua_si``) and 6 *unseen* ones (split ``ua_ui``).
  ``sa_si`` samples the seen attributes, ``ua_si`` / ``ua_ui`` the unseen ones
  (:data:`SEEN_ATTRIBUTES`, :data:`UNSEEN_ATTRIBUTES`).
* A :class:`Task` is one filled instruction plus the object names of its scene: the named
  objects and random others, 1-4 blocks and 1-4 bowls as in the reference
  (``cap_simulation/setup.py``), at most :data:`MAX_OBJECTS` in all, and at least what the
  template needs to be solvable (:attr:`Template.min_blocks`); colours from the split's colour
  set. :func:`make_task` is deterministic in ``(template_id, split, seed)``.
* :func:`feasible_world` builds the world with ``factory(names, seed)`` (any
  :class:`~llm_interaction_node.core.apis.tabletop.TabletopRobot`; default the 2-D world).
  Where feasibility depends on the spawned positions (which block lies to the top of the bowl,
  which is the third from the left, room for "a lot to the right", a clear named place, ...)
  it tries world seeds ``task.seed * 1000 + k`` for ``k = 0, 1, ...`` (at most
  ``max_attempts``) until :func:`feasible` holds for the initial positions, and records the
  seed used in ``task.world_seed``.

Each template (a :class:`Template` subclass) holds everything about one instruction:
``sample`` (attributes), ``scene`` (object names), ``feasible``, ``check`` (success from object
positions, name -> xyz; blocks' centres, bowls' bases; CaP criteria; which block an nth /
direction / closest / farthest instruction meant is decided on the *initial* positions),
``program`` (a correct scripted program: only the tabletop API functions, plain Python and
``np``), ``text`` (the explicit solution in plain words, for the simulated user), ``meaning``
(what the instruction refers to in a scene, for "initial condition destroyed"), ``needed``
(the blocks it cannot be solved without) and ``mismatch`` (what a person sees is wrong, as
:class:`~.observe.Fact` records).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from ..core.apis.tabletop import PLACE_INSET
from .observe import (BOUNDS, BOWL_TOL, CORNERS, DIRECTIONS, OPPOSITE, PLACES, RANGE_XY,
                      SIDE_OF, Fact, Positions, at_place, base_where,
                      blocks_of, bowls_of, color, hdist, in_bowl, joined, moved_objects,
                      on_block, ordinal, place_phrase, side_of, where, xy, z)

SPLITS = ("sa_si", "ua_si", "ua_ui")

SEEN_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "colors": ("blue", "red", "green", "orange", "yellow"),
    "places": ("left side", "top left corner", "top side", "top right corner"),
    "directions": ("top", "left"),
    "distances": ("closest",),
    "magnitudes": ("a little",),
    "nths": ("first", "second"),
    "lines": ("horizontal", "vertical"),
}
UNSEEN_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "colors": ("pink", "cyan", "brown", "gray", "purple"),
    "places": ("bottom right corner", "bottom side", "bottom left corner"),
    "directions": ("bottom", "right"),
    "distances": ("farthest",),
    "magnitudes": ("a lot",),
    "nths": ("third", "fourth"),
    "lines": ("diagonal",),
}

NTH = {"first": 0, "second": 1, "third": 2, "fourth": 3}
BLOCK_SIZE = 0.04
LINE_TOL = 0.05 * float(RANGE_XY.max())    # collinear within 5 % of the workspace (3 cm)
MAGNITUDE_SPLIT = 1.0 / 3.0                # 'a little' <= 1/3 of the axis range, 'a lot' > 1/3
# scene feasibility
MARGIN = 0.02               # the meant block / corner must win by at least 2 cm
PLACE_CLEAR_BOWL = 0.12     # no bowl this close to a target point
PLACE_CLEAR_BLOCK = 0.06    # no other block this close to a target point
MAGNITUDE_OFFSET = {"a little": 0.10, "a lot": 0.25}   # the scripted solution's distances
LINE_SPACING = 0.12
SCENE_BLOCKS = (1, 4)       # blocks in a scene (reference: 1-4)
SCENE_BOWLS = (1, 4)        # bowls in a scene (reference: 1-4)
MAX_OBJECTS = 7             # blocks + bowls: the CaP spawn rule (15 cm apart in a 40 x 40 cm
                            # area) fails for 8 objects more often than not
REFERENCE_MOVED = 0.03      # m: a reference bowl moved this far changes what "next to it" means
STACK_LEFT_BEHIND = 0.08    # m: a block this close to where a moved block stood stayed behind


# ---------------------------------------------------------------------------- data
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
    def template(self) -> "Template":
        return TEMPLATES[self.template_id]

    @property
    def blocks(self) -> list[str]:
        return [n for n in self.objects if n.endswith(" block")]

    @property
    def bowls(self) -> list[str]:
        return [n for n in self.objects if n.endswith(" bowl")]


def attributes_for(split: str) -> dict[str, tuple[str, ...]]:
    """The attribute sets a split samples from (seen for sa_si, unseen otherwise)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; use one of {SPLITS}")
    return SEEN_ATTRIBUTES if split == "sa_si" else UNSEEN_ATTRIBUTES


# ---------------------------------------------------------------------------- geometry
_xy, _z, _hdist, _blocks, _bowls = xy, z, hdist, blocks_of, bowls_of   # short local names


def _in_bounds(p, margin: float = MARGIN) -> bool:
    p = _xy(p)
    return bool(np.all(p >= BOUNDS[:2, 0] + margin) and np.all(p <= BOUNDS[:2, 1] - margin))


def _place_clear(point, pos: Positions, moving: tuple[str, ...] = ()) -> bool:
    """No bowl and no (other, unmoved) block near a target point."""
    for n, p in pos.items():
        if n in moving:
            continue
        limit = PLACE_CLEAR_BOWL if n.endswith(" bowl") else PLACE_CLEAR_BLOCK
        if _hdist(p, point) < limit:
            return False
    return True


def _ranked(values: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(values.items(), key=lambda kv: kv[1])


def _clear_winner(ranked: list[tuple[str, float]], index: int) -> bool:
    """``ranked[index]`` differs from its neighbours by at least MARGIN."""
    if not -len(ranked) <= index < len(ranked):
        return False
    i = index % len(ranked)
    v = ranked[i][1]
    return all(abs(ranked[j][1] - v) >= MARGIN for j in (i - 1, i + 1) if 0 <= j < len(ranked))


def block_in_direction(bowl: str, direction: str, pos: Positions) -> str | None:
    """The block nearest to the bowl among those on the ``direction`` side of it (half-plane)."""
    u = np.array(DIRECTIONS[direction])
    b = _xy(pos[bowl])
    cands = {n: _hdist(pos[n], b) for n in _blocks(pos) if float((_xy(pos[n]) - b) @ u) > 0}
    return min(cands, key=cands.get) if cands else None


def _order_from(direction: str, pos: Positions) -> list[str]:
    """The blocks counted from the ``direction`` edge (first = most extreme)."""
    u = np.array(DIRECTIONS[direction])
    return sorted(_blocks(pos), key=lambda n: -float(_xy(pos[n]) @ u))


def nth_block_from(nth: str, direction: str, pos: Positions) -> str | None:
    """The nth block counted from the ``direction`` edge (first = most extreme)."""
    order = _order_from(direction, pos)
    k = NTH[nth]
    return order[k] if k < len(order) else None


def _by_distance(bowl: str, pos: Positions) -> list[str]:
    """The blocks from the closest to the bowl to the farthest."""
    return sorted(_blocks(pos), key=lambda n: _hdist(pos[n], pos[bowl]))


def block_by_distance(bowl: str, distance: str, pos: Positions) -> str:
    order = _by_distance(bowl, pos)
    return order[0] if distance == "closest" else order[-1]


def corner_by_distance(bowl: str, distance: str, pos_bowl) -> str:
    d = {c: _hdist(PLACES[c], pos_bowl) for c in CORNERS}
    return (min if distance == "closest" else max)(d, key=d.get)


def line_class(slope_abs: float) -> str | None:
    if slope_abs < 0.3:
        return "horizontal"
    if 0.7 <= slope_abs <= 1.3:
        return "diagonal"
    if slope_abs > 10:
        return "vertical"
    return None


def fit_line(xys: np.ndarray) -> tuple[float, float]:
    """Total-least-squares line through points: (|slope|, max perpendicular residual)."""
    slope, resid, _ = _line_fit(xys)
    return slope, float(np.max(resid))


def _line_fit(xys: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(|slope|, perpendicular residual per point, direction) of the TLS line."""
    pts = np.asarray(xys, dtype=float)
    c = pts - pts.mean(axis=0)
    _, _, vt = np.linalg.svd(c)
    d = vt[0]
    normal = np.array([-d[1], d[0]])
    slope = float("inf") if abs(d[0]) < 1e-12 else abs(float(d[1] / d[0]))
    return slope, np.abs(c @ normal), d


# ---------------------------------------------------------------------------- scenes
def _colors(split: str) -> list[str]:
    return list(attributes_for(split)["colors"])


def _pick(rng: np.random.Generator, values, k: int = 1) -> list:
    idx = rng.choice(len(values), size=k, replace=False)
    return [values[i] for i in idx]


def _one(split, rng, key) -> str:
    return str(_pick(rng, list(attributes_for(split)[key]))[0])


def _block(split, rng) -> str:
    return f"{_pick(rng, _colors(split))[0]} block"


def _bowl(split, rng) -> str:
    return f"{_pick(rng, _colors(split))[0]} bowl"


def _scene(split: str, rng: np.random.Generator, blocks=(), bowls=(), min_blocks: int = 1,
           min_bowls: int = 1, same_colors: bool = False) -> list[str]:
    """The named blocks / bowls plus random others: 1-4 blocks and 1-4 bowls (at least the
    named ones and the minima), at most MAX_OBJECTS in all; colours from the split's colour
    set. ``same_colors``: every block has a bowl of its colour (and maybe other bowls)."""
    colors = _colors(split)
    n_blocks = max(int(rng.integers(SCENE_BLOCKS[0], SCENE_BLOCKS[1] + 1)), len(blocks), min_blocks)
    if same_colors:
        n_blocks = min(n_blocks, MAX_OBJECTS // 2)
    n_bowls = max(int(rng.integers(SCENE_BOWLS[0], SCENE_BOWLS[1] + 1)), len(bowls), min_bowls,
                  n_blocks if same_colors else 0)
    n_bowls = max(min(n_bowls, MAX_OBJECTS - n_blocks), len(bowls), min_bowls)
    block_colors = [color(b) for b in blocks]
    block_colors += _pick(rng, [c for c in colors if c not in block_colors], n_blocks - len(block_colors))
    bowl_colors = list(block_colors) if same_colors else [color(b) for b in bowls]
    bowl_colors += _pick(rng, [c for c in colors if c not in bowl_colors], n_bowls - len(bowl_colors))
    order_b = rng.permutation(len(block_colors))
    order_w = rng.permutation(len(bowl_colors))
    return ([f"{block_colors[i]} block" for i in order_b]
            + [f"{bowl_colors[i]} bowl" for i in order_w])


# ---------------------------------------------------------------------------- program text
def _norm_literal(point) -> str:
    """A named place as ``denormalize_xy([..])`` (the places span denormalize's square)."""
    x, y = point
    lo = BOUNDS[:2, 0] + PLACE_INSET
    span = RANGE_XY - 2 * PLACE_INSET
    nx = Fraction(round((x - lo[0]) / span[0] * 12), 12)
    ny = Fraction(round((y - lo[1]) / span[1] * 12), 12)
    return f"denormalize_xy([{_decimal(nx)}, {_decimal(ny)}])"


def _decimal(value: Fraction) -> str:
    return str(int(value)) if value.denominator == 1 else repr(round(float(value), 4))


def _place_expr(place: str) -> str:
    return _norm_literal(PLACES[place])


_BLOCK_LIST = "blocks = [name for name in get_obj_names() if name.endswith(' block')]\n"
_BOWL_LIST = "bowls = [name for name in get_obj_names() if name.endswith(' bowl')]\n"


def _vec(direction: str) -> str:
    x, y = DIRECTIONS[direction]
    return f"np.array([{x}, {y}])"


def _the(names) -> str:
    return joined(["the " + n for n in names])


_NUMBER = r"(-?\d+(?:\.\d+)?)"


def _flip_literals(program: str, extremes: bool = True) -> str:
    """``denormalize_xy([a, b])`` -> ``[1 - a, 1 - b]``, ``np.array([x, y])`` -> its negation,
    (``extremes``) ``min(`` <-> ``max(``."""
    program = re.sub(rf"denormalize_xy\(\[{_NUMBER}, {_NUMBER}\]\)", lambda m: _norm_text(
        1 - float(m[1]), 1 - float(m[2])), program)
    program = re.sub(rf"np\.array\(\[{_NUMBER}, {_NUMBER}\]\)",
                     lambda m: f"np.array([{-float(m[1]) + 0.0}, {-float(m[2]) + 0.0}])", program)
    if not extremes:
        return program
    return re.sub(r"\b(min|max)\(", lambda m: "max(" if m[1] == "min" else "min(", program)


def _norm_text(nx: float, ny: float) -> str:
    return (f"denormalize_xy([{_decimal(Fraction(round(nx * 12), 12))}, "
            f"{_decimal(Fraction(round(ny * 12), 12))}])")


# ---------------------------------------------------------------------------- mismatch helpers
def _misplaced(names, initial: Positions, final: Positions, wanted: str,
               anonymous: bool = False, by_place: bool = False) -> list[Fact]:
    """For objects not where ``wanted``: ``missing`` if the robot left them, else
    ``wrong_place`` with where they ended (``anonymous``: without naming them; ``by_place``:
    a block in a stack is where the stack stands)."""
    moved = set(moved_objects(initial, final))
    out = []
    for n in names:
        objects = () if anonymous else (n,)
        if n in moved:
            at = base_where(n, final) if by_place else where(n, final)
            out.append(Fact("wrong_place", objects, at, wanted))
        else:
            out.append(Fact("missing", objects, where(n, final), wanted))
    return out


def _moved_blocks(initial: Positions, final: Positions) -> list[str]:
    return [n for n in moved_objects(initial, final) if n.endswith(" block")]


# ---------------------------------------------------------------------------- the template base
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
        return _scene(split, rng, blocks=[v for v in a.values() if v.endswith(" block")],
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
        wrong = _flip_literals(right)
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


def _named_block_mismatch(block: str, initial: Positions, final: Positions,
                          wanted: str) -> list[Fact]:
    """The named ``block`` is not ``wanted``: where it is, and which other block was moved
    in its place."""
    facts = _misplaced([block], initial, final, wanted)
    if facts[0].kind == "missing":
        facts += [Fact("extra", (b,), where(b, final), f"the {block}")
                  for b in _moved_blocks(initial, final) if b != block]
    return facts


def _selected_mismatch(meant: str | None, describe: Callable[[str], tuple[str, str]],
                       place: str, initial: Positions, final: Positions,
                       start: Positions | None) -> list[Fact]:
    """For a selection task (the block meant by a relation goes to ``place``): a block other
    than the meant one was taken -> ``wrong_block`` with what it is (``describe`` gives
    (what it is, what was asked)); the meant block ended elsewhere -> ``wrong_place``. The
    meant block is never named."""
    moved = _moved_blocks(initial, final)
    if meant in moved:
        return _misplaced([meant], initial, final, place_phrase(place), anonymous=True,
                          by_place=True)
    this_round = _moved_blocks(start, final) if start is not None else []
    wrong = [b for b in this_round + moved if b != meant]
    if not wrong:
        return [Fact("missing", (), "", place_phrase(place))]
    what, asked = describe(wrong[0])
    return [Fact("wrong_block", (), where(wrong[0], final), asked, what)]


# ---------------------------------------------------------------------------- 1 block on block
class BlockOnBlock(Template):
    id, seen = "block_on_block", True
    pattern = "pick up the {block1} and place it on the {block2}"
    min_blocks = 2

    def sample(self, split, rng):
        c1, c2 = _pick(rng, _colors(split), 2)
        return {"block1": f"{c1} block", "block2": f"{c2} block"}

    def check(self, initial, final, task):
        a = task.attributes
        return on_block(final[a["block1"]], final[a["block2"]])

    def program(self, task):
        a = task.attributes
        return f"put_first_on_second('{a['block1']}', '{a['block2']}')\n"

    def text(self, task, pos=None):
        a = task.attributes
        return f"Put the {a['block1']} on top of the {a['block2']}."

    def mistake(self, task):          # onto another block, or into a bowl
        a = task.attributes
        other = [n for n in task.blocks + task.bowls if n not in (a["block1"], a["block2"])]
        return f"put_first_on_second('{a['block1']}', '{other[0]}')\n" if other else None

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        if on_block(final[a["block2"]], final[a["block1"]]):
            return [Fact("reversed", (a["block2"], a["block1"]))]
        return _named_block_mismatch(a["block1"], initial, final, f"on the {a['block2']}")


# ---------------------------------------------------------------------------- 2 block in bowl
class BlockInBowl(Template):
    id, seen = "block_in_bowl", True
    pattern = "pick up the {block} and place it on the {bowl}"

    def sample(self, split, rng):
        return {"block": _block(split, rng), "bowl": _bowl(split, rng)}

    def check(self, initial, final, task):
        a = task.attributes
        return in_bowl(final[a["block"]], final[a["bowl"]])

    def program(self, task):
        a = task.attributes
        return f"put_first_on_second('{a['block']}', '{a['bowl']}')\n"

    def text(self, task, pos=None):
        a = task.attributes
        return f"Put the {a['block']} in the {a['bowl']}."

    def mistake(self, task):
        a = task.attributes
        other = [w for w in task.bowls if w != a["bowl"]]
        return f"put_first_on_second('{a['block']}', '{other[0]}')\n" if other else None

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        return _named_block_mismatch(a["block"], initial, final, f"in the {a['bowl']}")


class _AllBlocksToPlace(Template):
    """Every block goes to one named place (blocks_on_place, stack_on_place): the place is
    sampled alone and must be clear of everything but the blocks."""

    def sample(self, split, rng):
        return {"place": _one(split, rng, "places")}

    def feasible(self, task, pos):
        return _place_clear(PLACES[task.attributes["place"]], pos, moving=tuple(_blocks(pos)))


# ---------------------------------------------------------------------------- 3 blocks on place
class BlocksOnPlace(_AllBlocksToPlace):
    id, seen = "blocks_on_place", True
    pattern = "put all the blocks on the {place}"

    def check(self, initial, final, task):
        target = PLACES[task.attributes["place"]]
        return all(at_place(final[b], target) for b in _blocks(final))

    def program(self, task):
        return (f"target = {_place_expr(task.attributes['place'])}\n" + _BLOCK_LIST
                + "for block in blocks:\n    put_first_on_second(block, target)\n")

    def text(self, task, pos=None):
        return (f"Put the blocks on the {task.attributes['place']} one after another: "
                f"{_the(task.blocks)}.")

    def mistake(self, task):          # the mirrored place, the last block first
        return _flip_literals(self.program(task)).replace("for block in blocks:",
                                                          "for block in blocks[::-1]:")

    def mismatch(self, task, initial, final, start=None):
        place = task.attributes["place"]
        left = [b for b in _blocks(final) if not at_place(final[b], PLACES[place])]
        return _misplaced(left, initial, final, place_phrase(place), by_place=True)


# ---------------------------------------------------------------------------- 4 blocks in bowl
class BlocksInBowl(Template):
    id, seen = "blocks_in_bowl", True
    pattern = "put the blocks in the {bowl}"

    def sample(self, split, rng):
        return {"bowl": _bowl(split, rng)}

    def check(self, initial, final, task):
        bowl = final[task.attributes["bowl"]]
        return all(in_bowl(final[b], bowl) for b in _blocks(final))

    def program(self, task):
        return (_BLOCK_LIST + "for block in blocks:\n"
                f"    put_first_on_second(block, '{task.attributes['bowl']}')\n")

    def text(self, task, pos=None):
        return f"Put {_the(task.blocks)} in the {task.attributes['bowl']}, one after another."

    def mistake(self, task):          # one block is forgotten
        return self.program(task).replace("for block in blocks:", "for block in blocks[:-1]:") \
            if len(task.blocks) > 1 else None

    def mismatch(self, task, initial, final, start=None):
        bowl = task.attributes["bowl"]
        left = [b for b in _blocks(final) if not in_bowl(final[b], final[bowl])]
        return _misplaced(left, initial, final, f"in the {bowl}")


# ---------------------------------------------------------------------------- 5 matching colours
class MatchingBowls(Template):
    id, seen = "matching_bowls", True
    pattern = "put all the blocks in the bowls with matching colors"

    def scene(self, a, split, rng):
        return _scene(split, rng, same_colors=True)

    def check(self, initial, final, task):
        ok = [in_bowl(final[b], final[color(b) + " bowl"]) for b in _blocks(final)
              if color(b) + " bowl" in final]
        return bool(ok) and all(ok)

    def program(self, task):
        return (_BLOCK_LIST + "for block in blocks:\n"
                "    bowl = block.split()[0] + ' bowl'\n"
                "    if bowl in get_obj_names():\n"
                "        put_first_on_second(block, bowl)\n")

    def text(self, task, pos=None):
        pairs = [f"the {b} in the {color(b)} bowl" for b in task.blocks
                 if f"{color(b)} bowl" in task.objects]
        return f"Put {joined(pairs)}."

    def mistake(self, task):          # one block is forgotten
        return self.program(task).replace("for block in blocks:", "for block in blocks[:-1]:") \
            if len(task.blocks) > 1 else None

    def mismatch(self, task, initial, final, start=None):
        facts = []
        for b in _blocks(final):
            bowl = color(b) + " bowl"
            if bowl in final and not in_bowl(final[b], final[bowl]):
                facts += _misplaced([b], initial, final, f"in the {bowl}")
        return facts


# ---------------------------------------------------------------------------- 6 direction of bowl
class BlockDirectionOfBowl(Template):
    id, seen, selection = "block_direction_of_bowl", True, True
    pattern = "pick up the block to the {direction} of the {bowl} and place it on the {place}"

    def sample(self, split, rng):
        return {"direction": _one(split, rng, "directions"), "bowl": _bowl(split, rng),
                "place": _one(split, rng, "places")}

    def feasible(self, task, pos):
        a = task.attributes
        b = _xy(pos[a["bowl"]])
        u = np.array(DIRECTIONS[a["direction"]])
        perp = np.array([-u[1], u[0]])
        half = {n: _hdist(pos[n], b) for n in _blocks(pos) if float((_xy(pos[n]) - b) @ u) > 0}
        if not half:
            return False
        ranked = _ranked(half)
        meant = ranked[0][0]
        d = _xy(pos[meant]) - b
        in_cone = float(d @ u) > abs(float(d @ perp))       # unambiguous: clearly in that direction
        return (in_cone and _clear_winner(ranked, 0)
                and _place_clear(PLACES[a["place"]], pos, moving=(meant,)))

    def meaning(self, task, pos):
        a = task.attributes
        return block_in_direction(a["bowl"], a["direction"], pos)

    def check(self, initial, final, task):
        meant = self.meaning(task, initial)
        return meant is not None and at_place(final[meant], PLACES[task.attributes["place"]])

    def program(self, task):
        a = task.attributes
        return (f"bowl_pos = get_obj_pos('{a['bowl']}')\n" + _BLOCK_LIST
                + f"candidates = [b for b in blocks if (get_obj_pos(b) - bowl_pos) @ {_vec(a['direction'])} > 0]\n"
                "block = min(candidates, key=lambda b: np.linalg.norm(get_obj_pos(b) - bowl_pos))\n"
                f"put_first_on_second(block, {_place_expr(a['place'])})\n")

    def text(self, task, pos=None):
        a = task.attributes
        side = SIDE_OF[a["direction"]]
        if pos is not None:
            meant = self.meaning(task, pos)
            return (f"I mean the {meant}, the block nearest to the {a['bowl']} among the blocks "
                    f"{side} it. Put the {meant} on the {a['place']}.")
        return (f"Look at the blocks {side} the {a['bowl']}, take the one nearest to the bowl and "
                f"put it on the {a['place']}.")

    def needed(self, task, pos):
        meant = self.meaning(task, pos) if pos is not None else None
        return {meant} if meant else set(task.blocks)

    def mistake(self, task):          # the other side of the bowl
        return _flip_literals(self.program(task), extremes=False).replace(
            "min(candidates,", "min(candidates or blocks,")

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        bowl, direction = a["bowl"], a["direction"]

        def describe(b):
            s = side_of(initial[b], initial[bowl])
            if float((_xy(initial[b]) - _xy(initial[bowl])) @ np.array(DIRECTIONS[direction])) > 0:
                return (f"a block {SIDE_OF[direction]} the {bowl}, but not the one nearest to "
                        f"the bowl on that side", "")
            return f"a block {SIDE_OF[s]} the {bowl}", f"the block {SIDE_OF[direction]} it"
        return _selected_mismatch(self.meaning(task, initial), describe, a["place"], initial, final, start)


# ---------------------------------------------------------------------------- 7 distance to bowl
class BlockDistanceToBowl(Template):
    id, seen, selection = "block_distance_to_bowl", True, True
    pattern = "pick up the block {distance} to the {bowl} and place it on the {place}"

    def sample(self, split, rng):
        return {"distance": _one(split, rng, "distances"), "bowl": _bowl(split, rng),
                "place": _one(split, rng, "places")}

    def feasible(self, task, pos):
        a = task.attributes
        ranked = _ranked({n: _hdist(pos[n], pos[a["bowl"]]) for n in _blocks(pos)})
        i = 0 if a["distance"] == "closest" else -1
        return (_clear_winner(ranked, i)
                and _place_clear(PLACES[a["place"]], pos, moving=(ranked[i][0],)))

    def meaning(self, task, pos):
        a = task.attributes
        return block_by_distance(a["bowl"], a["distance"], pos)

    def check(self, initial, final, task):
        return at_place(final[self.meaning(task, initial)], PLACES[task.attributes["place"]])

    def program(self, task):
        a = task.attributes
        fn = "min" if a["distance"] == "closest" else "max"
        return (f"bowl_pos = get_obj_pos('{a['bowl']}')\n" + _BLOCK_LIST
                + f"block = {fn}(blocks, key=lambda b: np.linalg.norm(get_obj_pos(b) - bowl_pos))\n"
                f"put_first_on_second(block, {_place_expr(a['place'])})\n")

    def _word(self, task):
        return "nearest to" if task.attributes["distance"] == "closest" else "farthest from"

    def text(self, task, pos=None):
        a = task.attributes
        if pos is not None:
            meant = self.meaning(task, pos)
            return (f"I mean the {meant}, the block {self._word(task)} the {a['bowl']}. "
                    f"Put the {meant} on the {a['place']}.")
        return f"Take the block {self._word(task)} the {a['bowl']} and put it on the {a['place']}."

    def needed(self, task, pos):
        return {self.meaning(task, pos)} if pos is not None else set(task.blocks)

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        bowl, closest = a["bowl"], a["distance"] == "closest"
        order = _by_distance(bowl, initial)

        def describe(b):
            near, far = order.index(b), len(order) - 1 - order.index(b)
            if closest:
                what = (f"the block farthest from the {bowl}" if far == 0 else
                        f"the {ordinal(near)} closest block to the {bowl}")
            else:
                what = (f"the block closest to the {bowl}" if near == 0 else
                        f"the {ordinal(far)} farthest block from the {bowl}")
            return what, f"the block {self._word(task)} it"
        return _selected_mismatch(self.meaning(task, initial), describe, a["place"], initial, final, start)


# ---------------------------------------------------------------------------- 8 nth from direction
class NthBlockFromDirection(Template):
    id, seen, selection = "nth_block_from_direction", True, True
    pattern = "pick up the {nth} block from the {direction} and place it on the {place}"

    def sample(self, split, rng):
        return {"nth": _one(split, rng, "nths"), "direction": _one(split, rng, "directions"),
                "place": _one(split, rng, "places")}

    def scene(self, a, split, rng):
        return _scene(split, rng, min_blocks=NTH[a["nth"]] + 1)

    def feasible(self, task, pos):
        a = task.attributes
        u = np.array(DIRECTIONS[a["direction"]])
        ranked = _ranked({n: -float(_xy(pos[n]) @ u) for n in _blocks(pos)})
        k = NTH[a["nth"]]
        return (k < len(ranked) and _clear_winner(ranked, k)
                and _place_clear(PLACES[a["place"]], pos, moving=(ranked[k][0],)))

    def meaning(self, task, pos):
        a = task.attributes
        return nth_block_from(a["nth"], a["direction"], pos)

    def check(self, initial, final, task):
        meant = self.meaning(task, initial)
        return meant is not None and at_place(final[meant], PLACES[task.attributes["place"]])

    def program(self, task):
        a = task.attributes
        return (_BLOCK_LIST
                + f"blocks = sorted(blocks, key=lambda b: -(get_obj_pos(b) @ {_vec(a['direction'])}))\n"
                f"put_first_on_second(blocks[{NTH[a['nth']]}], {_place_expr(a['place'])})\n")

    def text(self, task, pos=None):
        a = task.attributes
        if pos is not None:
            meant = self.meaning(task, pos)
            return (f"Counting from the {a['direction']} edge of the table, the {a['nth']} block is "
                    f"the {meant}. Put the {meant} on the {a['place']}.")
        return (f"Order the blocks by how close they are to the {a['direction']} edge of the table, "
                f"take the {a['nth']} one and put it on the {a['place']}.")

    def needed(self, task, pos):
        meant = self.meaning(task, pos) if pos is not None else None
        return {meant} if meant else set(task.blocks)

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        direction, k = a["direction"], NTH[a["nth"]]
        order = _order_from(direction, initial)

        def describe(b):
            i = order.index(b)
            if len(order) - 1 - i == k:             # counted from the other side
                what = f"the {ordinal(k)} block from the {OPPOSITE[direction]}"
            else:
                what = f"the {ordinal(i)} block from the {direction}"
            return what, f"the {a['nth']} block from the {direction}"
        return _selected_mismatch(self.meaning(task, initial), describe, a["place"], initial, final, start)


# ---------------------------------------------------------------------------- 9 different corners
class DifferentCorners(Template):
    id, seen = "different_corners", False
    pattern = "put all the blocks in different corners"

    def _corner(self, p) -> str | None:
        return next((c for c in CORNERS if at_place(p, PLACES[c])), None)

    def feasible(self, task, pos):
        return len(_blocks(pos)) <= len(CORNERS) and all(
            _place_clear(PLACES[c], pos, moving=tuple(_blocks(pos))) for c in CORNERS)

    def check(self, initial, final, task):
        used = [self._corner(final[b]) for b in _blocks(final)]
        return None not in used and len(set(used)) == len(used)

    def program(self, task):
        corners = ", ".join(_place_expr(c) for c in CORNERS)
        return (f"corners = [{corners}]\n" + _BLOCK_LIST
                + "for block, corner in zip(blocks, corners):\n    put_first_on_second(block, corner)\n")

    def text(self, task, pos=None):
        return f"Put {joined([f'the {b} in the {c}' for b, c in zip(task.blocks, CORNERS)])}."

    def mistake(self, task):          # the first two blocks share the second corner
        return self.program(task).replace(
            "for block, corner in zip(blocks, corners):",
            "corners[0] = corners[1]\nfor block, corner in list(zip(blocks, corners))[::-1]:") \
            if len(task.blocks) > 1 else None

    def mismatch(self, task, initial, final, start=None):
        by_corner: dict[str | None, list[str]] = {}
        for b in _blocks(final):
            by_corner.setdefault(self._corner(final[b]), []).append(b)
        facts = _misplaced(by_corner.pop(None, []), initial, final, "in a corner of its own",
                           by_place=True)
        facts += [Fact("shared", tuple(bs), place_phrase(c)) for c, bs in by_corner.items()
                  if len(bs) > 1]
        return facts


# ---------------------------------------------------------------------------- 10 mismatched colours
class MismatchedBowls(Template):
    id, seen = "mismatched_bowls", False
    pattern = "put the blocks in the bowls with mismatched colors"
    min_bowls = 2

    def scene(self, a, split, rng):
        return _scene(split, rng, same_colors=True, min_bowls=self.min_bowls)

    def check(self, initial, final, task):
        blocks, bowls = _blocks(final), _bowls(final)
        if not blocks or not bowls:
            return False
        for b in blocks:
            inside = [w for w in bowls if in_bowl(final[b], final[w])]
            if not inside or color(min(inside, key=lambda w: _hdist(final[b], final[w]))) == color(b):
                return False
        return True

    def pairs(self, task) -> list[tuple[str, str]]:
        """What the scripted program does: block i (by name) into the i-th other-coloured bowl."""
        bowls = sorted(task.bowls)
        out = []
        for i, b in enumerate(sorted(task.blocks)):
            others = [w for w in bowls if color(w) != color(b)]
            out.append((b, others[i % len(others)]))
        return out

    def program(self, task):
        return ("blocks = sorted(name for name in get_obj_names() if name.endswith(' block'))\n"
                "bowls = sorted(name for name in get_obj_names() if name.endswith(' bowl'))\n"
                "for i, block in enumerate(blocks):\n"
                "    others = [bowl for bowl in bowls if bowl.split()[0] != block.split()[0]]\n"
                "    put_first_on_second(block, others[i % len(others)])\n")

    def text(self, task, pos=None):
        return "Put " + joined([f"the {b} in the {w}" for b, w in self.pairs(task)]) + "."

    def mistake(self, task):          # the first block into the bowl of its own colour
        return ("blocks = sorted(name for name in get_obj_names() if name.endswith(' block'))\n"
                "put_first_on_second(blocks[0], blocks[0].split()[0] + ' bowl')\n")

    def mismatch(self, task, initial, final, start=None):
        facts = []
        for b in _blocks(final):
            inside = [w for w in _bowls(final) if in_bowl(final[b], final[w])]
            if not inside:
                facts += _misplaced([b], initial, final, "in a bowl of another color")
            elif color(min(inside, key=lambda w: _hdist(final[b], final[w]))) == color(b):
                facts.append(Fact("same_color", (b,), where(b, final)))
        return facts


# ---------------------------------------------------------------------------- 11 stack on place
class StackOnPlace(_AllBlocksToPlace):
    id, seen = "stack_on_place", False
    pattern = "stack all the blocks on the {place}"

    def check(self, initial, final, task):
        target = PLACES[task.attributes["place"]]
        blocks = sorted(_blocks(final), key=lambda b: _z(final[b]))
        if not blocks or not all(at_place(final[b], target) for b in blocks):
            return False
        return all(on_block(final[up], final[lo]) for lo, up in zip(blocks, blocks[1:]))

    def program(self, task):
        return (_BLOCK_LIST + f"put_first_on_second(blocks[0], {_place_expr(task.attributes['place'])})\n"
                "for lower, upper in zip(blocks, blocks[1:]):\n    put_first_on_second(upper, lower)\n")

    def text(self, task, pos=None):
        b = task.blocks
        steps = [f"put the {b[0]} on the {task.attributes['place']}"]
        steps += [f"the {up} on top of the {lo}" for lo, up in zip(b, b[1:])]
        text = joined(steps)
        return text[0].upper() + text[1:] + "."

    def mistake(self, task):          # side by side at the place instead of on each other
        x, _ = PLACES[task.attributes["place"]]
        step = -0.07 if x > 0 else 0.07
        return (f"target = {_place_expr(task.attributes['place'])}\n" + _BLOCK_LIST
                + "for i, block in enumerate(blocks):\n"
                f"    put_first_on_second(block, target + np.array([{step} * i, 0.0]))\n") \
            if len(task.blocks) > 1 else None

    def mismatch(self, task, initial, final, start=None):
        place = task.attributes["place"]
        target = PLACES[place]
        moved = set(moved_objects(initial, final))
        there = [b for b in _blocks(final) if at_place(final[b], target)]
        left = [b for b in _blocks(final) if b not in there]
        carried = [m for m in there if m in moved]
        behind = {b: next((m for m in carried if _hdist(final[b], initial[m]) < STACK_LEFT_BEHIND),
                          None) for b in left if b in moved}
        fell = [b for b, m in behind.items() if m is not None]
        facts = [Fact("stack_fell", (b,), where(behind[b], initial), place_phrase(place))
                 for b in fell]           # where the stack stood before it was carried off
        facts += _misplaced([b for b in left if b not in fell], initial, final, place_phrase(place),
                            by_place=True)
        ground = sorted((b for b in there if not any(on_block(final[b], final[o])
                                                     for o in there if o != b)),
                        key=lambda b: _z(final[b]))
        facts += [Fact("not_stacked", (b,), where(b, final)) for b in ground[1:]]
        return facts


# ---------------------------------------------------------------------------- 12 magnitude
class BlockMagnitudeDirectionOfBowl(Template):
    id, seen = "block_magnitude_direction_of_bowl", False
    pattern = "pick up the {block} and place it {magnitude} to the {direction} of the {bowl}"

    def sample(self, split, rng):
        return {"block": _block(split, rng), "magnitude": _one(split, rng, "magnitudes"),
                "direction": _one(split, rng, "directions"), "bowl": _bowl(split, rng)}

    def target(self, task, pos) -> np.ndarray:
        a = task.attributes
        return _xy(pos[a["bowl"]]) + MAGNITUDE_OFFSET[a["magnitude"]] * np.array(DIRECTIONS[a["direction"]])

    def feasible(self, task, pos):
        t = self.target(task, pos)
        a = task.attributes      # the reference bowl is 10 / 25 cm away by construction
        return _in_bounds(t) and _place_clear(t, pos, moving=(a["block"], a["bowl"]))

    def meaning(self, task, pos):
        return tuple(np.round(_xy(pos[task.attributes["bowl"]]) / REFERENCE_MOVED).astype(int))

    def _along(self, task, final) -> tuple[float, float, float]:
        """(distance along the direction, distance, the 'a little' / 'a lot' split)."""
        a = task.attributes
        u = np.array(DIRECTIONS[a["direction"]])
        d = _xy(final[a["block"]]) - _xy(final[a["bowl"]])
        limit = MAGNITUDE_SPLIT * float(RANGE_XY[0 if u[0] else 1])
        return float(d @ u), float(np.linalg.norm(d)), limit

    def check(self, initial, final, task):
        along, dist, limit = self._along(task, final)
        if along <= 0 or dist < BOWL_TOL:       # wrong side, or inside the bowl
            return False
        return along <= limit if task.attributes["magnitude"] == "a little" else along > limit

    def program(self, task):
        a = task.attributes
        off = MAGNITUDE_OFFSET[a["magnitude"]]
        return (f"target = get_obj_pos('{a['bowl']}') + {off} * {_vec(a['direction'])}\n"
                f"put_first_on_second('{a['block']}', target)\n")

    def text(self, task, pos=None):
        a = task.attributes
        cm = round(MAGNITUDE_OFFSET[a["magnitude"]] * 100)
        return f"Put the {a['block']} on the table about {cm} cm {SIDE_OF[a['direction']]} the {a['bowl']}."

    def mistake(self, task):          # 'a little' taken for 'a lot' and the other way round
        a = task.attributes
        other = "a lot" if a["magnitude"] == "a little" else "a little"
        return self.program(task).replace(f"{MAGNITUDE_OFFSET[a['magnitude']]} *",
                                          f"{MAGNITUDE_OFFSET[other]} *")

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        block, bowl = a["block"], a["bowl"]
        wanted = f"{a['magnitude']} {SIDE_OF[a['direction']]} the {bowl}"
        if block not in moved_objects(initial, final) or in_bowl(final[block], final[bowl]) \
                or on_block(final[block], final[bowl]):
            return _named_block_mismatch(block, initial, final, wanted)
        along, dist, limit = self._along(task, final)
        cm = f"{round(dist * 100)} cm"
        if along <= 0 or dist < BOWL_TOL:
            if dist < BOWL_TOL:
                return [Fact("too_close", (block,), where(block, final), wanted, cm)]
            side = side_of(final[block], final[bowl])
            return [Fact("wrong_side", (block,), f"{SIDE_OF[side]} the {bowl}",
                         f"{SIDE_OF[a['direction']]} it")]
        if a["magnitude"] == "a little":
            return [Fact("too_far", (block,), where(block, final), wanted, cm)]
        return [Fact("too_close", (block,), where(block, final), wanted, cm)]

    def needed(self, task, pos):
        return {task.attributes["block"]}


# ---------------------------------------------------------------------------- 13 corner by distance
class BlockCornerDistanceToBowl(Template):
    id, seen, selection = "block_corner_distance_to_bowl", False, True
    pattern = "pick up the {block} and place it in the corner {distance} to the {bowl}"

    def sample(self, split, rng):
        return {"block": _block(split, rng), "distance": _one(split, rng, "distances"),
                "bowl": _bowl(split, rng)}

    def feasible(self, task, pos):
        a = task.attributes
        ranked = _ranked({c: _hdist(PLACES[c], pos[a["bowl"]]) for c in CORNERS})
        i = 0 if a["distance"] == "closest" else -1
        return _clear_winner(ranked, i) and _place_clear(PLACES[ranked[i][0]], pos, moving=(a["block"],))

    def meaning(self, task, pos):
        a = task.attributes
        return corner_by_distance(a["bowl"], a["distance"], pos[a["bowl"]])

    def check(self, initial, final, task):
        return at_place(final[task.attributes["block"]], PLACES[self.meaning(task, initial)])

    def program(self, task):
        a = task.attributes
        corners = ", ".join(_place_expr(c) for c in CORNERS)
        fn = "min" if a["distance"] == "closest" else "max"
        return (f"bowl_pos = get_obj_pos('{a['bowl']}')\n"
                f"corners = [{corners}]\n"
                f"corner = {fn}(corners, key=lambda c: np.linalg.norm(c - bowl_pos))\n"
                f"put_first_on_second('{a['block']}', corner)\n")

    def _word(self, task):
        return "nearest to" if task.attributes["distance"] == "closest" else "farthest from"

    def text(self, task, pos=None):
        a = task.attributes
        if pos is not None:
            return (f"The corner {self._word(task)} the {a['bowl']} is the "
                    f"{self.meaning(task, pos)}. Put the {a['block']} there.")
        return f"Put the {a['block']} in the corner of the table {self._word(task)} the {a['bowl']}."

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        block = a["block"]
        wanted = f"the corner {self._word(task)} the {a['bowl']}"
        if block in moved_objects(initial, final):
            corner = next((c for c in CORNERS if at_place(final[block], PLACES[c])), None)
            if corner is not None:       # the meant corner is never named
                return [Fact("wrong_corner", (block,), place_phrase(corner), wanted)]
        return _named_block_mismatch(block, initial, final, "in " + wanted)


# ---------------------------------------------------------------------------- 14 line
LINE_DIRECTIONS = {"horizontal": [(1.0, 0.0)], "vertical": [(0.0, 1.0)],
                   "diagonal": [(1.0, 1.0), (1.0, -1.0)]}

# The scripted program chooses, among candidate lines of the requested kind, the one whose
# points keep farthest from the bowls and from the blocks not yet moved. The same source is
# executed by ``feasible`` (with a stub ``get_obj_pos``), so both agree on the choice.
_LINE_CHOOSER = """\
best_clearance, best_points = -1.0, None
block_pos = [get_obj_pos(b) for b in blocks]
bowl_pos = [get_obj_pos(w) for w in bowls]
for u in directions:
    u = np.array(u) / np.linalg.norm(u)
    normal = np.array([-u[1], u[0]])
    for offset in np.linspace(-0.28, 0.28, 29):
        for shift in np.linspace(-0.2, 0.2, 9):
            center = np.array([0.0, -0.5]) + offset * normal + shift * u
            points = [center + (i - (len(blocks) - 1) / 2) * {spacing} * u for i in range(len(blocks))]
            if any(p[0] < -0.28 or p[0] > 0.28 or p[1] < -0.78 or p[1] > -0.22 for p in points):
                continue
            clearance = min([np.linalg.norm(p - w) - {bowl_clear} for p in points for w in bowl_pos]
                            + [np.linalg.norm(points[i] - block_pos[j]) - {block_clear}
                               for i in range(len(blocks)) for j in range(i + 1, len(blocks))]
                            + [1.0])
            if clearance > best_clearance:
                best_clearance, best_points = clearance, points
""".format(spacing=LINE_SPACING, bowl_clear=PLACE_CLEAR_BOWL, block_clear=PLACE_CLEAR_BLOCK)


class BlocksInLine(Template):
    id, seen = "blocks_in_line", False
    pattern = "put all the blocks in a {line} line"
    min_blocks = 2

    def sample(self, split, rng):
        return {"line": _one(split, rng, "lines")}

    def choice(self, task, pos) -> tuple[float, list[np.ndarray] | None]:
        ns: dict[str, Any] = {"np": np, "get_obj_pos": lambda n: _xy(pos[n]),
                              "blocks": _blocks(pos), "bowls": _bowls(pos),
                              "directions": LINE_DIRECTIONS[task.attributes["line"]]}
        exec(_LINE_CHOOSER, ns)
        return ns["best_clearance"], ns["best_points"]

    def feasible(self, task, pos):
        clearance, points = self.choice(task, pos)
        return points is not None and clearance > 0

    def _overlaps(self, final) -> list[tuple[str, str]]:
        """(upper, lower) of blocks stacked on / overlapping each other."""
        blocks = _blocks(final)
        return [tuple(sorted((a, b), key=lambda n: -_z(final[n])))
                for i, a in enumerate(blocks) for b in blocks[i + 1:]
                if _hdist(final[a], final[b]) < BLOCK_SIZE]

    def check(self, initial, final, task):
        blocks = _blocks(final)
        if len(blocks) < 2 or self._overlaps(final):
            return False
        slope, resid = fit_line(np.array([_xy(final[b]) for b in blocks]))
        return resid <= LINE_TOL and line_class(slope) == task.attributes["line"]

    def program(self, task):
        dirs = LINE_DIRECTIONS[task.attributes["line"]]
        return (_BLOCK_LIST + _BOWL_LIST + f"directions = {dirs!r}\n" + _LINE_CHOOSER
                + "for block, point in zip(blocks, best_points):\n    put_first_on_second(block, point)\n")

    def text(self, task, pos=None):
        kind = task.attributes["line"]
        if pos is not None:
            _, points = self.choice(task, pos)
            if points is not None:
                steps = [f"the {b} at x = {p[0]:.2f} m, y = {p[1]:.2f} m"
                         for b, p in zip(_blocks(pos), points)]
                return (f"Put the blocks {round(LINE_SPACING * 100)} cm apart on a {kind} line, "
                        f"away from the bowls: {joined(steps)}.")
        return (f"Put the blocks one after another at evenly spaced points about "
                f"{round(LINE_SPACING * 100)} cm apart on one {kind} line across the table, "
                f"keeping clear of the bowls.")

    def mistake(self, task):          # the other kind of line
        line = task.attributes["line"]
        other = "vertical" if line == "horizontal" else "horizontal"
        return self.program(task).replace(f"directions = {LINE_DIRECTIONS[line]!r}",
                                          f"directions = {LINE_DIRECTIONS[other]!r}")

    def mismatch(self, task, initial, final, start=None):
        overlaps = self._overlaps(final)
        if overlaps:
            return [Fact("overlap", (up,), where(up, final)) for up, _ in overlaps]
        blocks = _blocks(final)
        slope, resid, _ = _line_fit(np.array([_xy(final[b]) for b in blocks]))
        if float(np.max(resid)) > LINE_TOL:
            worst = blocks[int(np.argmax(resid))]
            return [Fact("off_line", (worst,), where(worst, final), task.attributes["line"])]
        return [Fact("wrong_line", (), "", task.attributes["line"], line_class(slope) or "slanted")]


# ---------------------------------------------------------------------------- registry
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


# ---------------------------------------------------------------------------- public functions
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


def world_positions(world) -> dict[str, np.ndarray]:
    """Name -> xyz of every object of a TabletopRobot."""
    return {n: np.asarray(world.object_position(n), dtype=float).copy() for n in world.object_names()}


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
    from ..sims.tabletop2d import TabletopWorld2D
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


__all__ = [
    "SPLITS", "SEEN_ATTRIBUTES", "UNSEEN_ATTRIBUTES", "PLACES", "CORNERS", "DIRECTIONS",
    "Task", "Template", "TEMPLATES", "TEMPLATE_IDS", "tasks_for_split", "make_task", "feasible_world",
    "feasible", "check", "world_positions", "solution_program", "mistaken_program", "solution_text",
    "needed_blocks",
    "attributes_for", "block_in_direction", "nth_block_from", "block_by_distance",
    "corner_by_distance", "fit_line", "line_class", "interpretation", "initial_destroyed",
]

"""The CaP tabletop evaluation tasks: 14 instruction templates, scenes, success checks, solutions.

Protocol (``notes/protocol.md``, sections "CaP tabletop world" and "Evaluation protocol"):

* 8 *seen* templates (splits ``sa_si`` and ``ua_si``) and 6 *unseen* ones (split ``ua_ui``).
  ``sa_si`` samples the seen attributes, ``ua_si`` / ``ua_ui`` the unseen ones
  (:data:`SEEN_ATTRIBUTES`, :data:`UNSEEN_ATTRIBUTES`).
* A :class:`Task` is one filled instruction plus the object names of its scene: the named
  objects and random distractors (3-4 blocks, 3-4 bowls), all coloured from the split's colour
  set. :func:`make_task` is deterministic in ``(template_id, split, seed)``.
* :func:`make_world` builds the world with ``factory(names, seed)`` (any
  :class:`~llm_interaction_node.core.apis.tabletop.TabletopRobot`; default the 2-D world).
  Where feasibility depends on the spawned positions (which block lies to the top of the bowl,
  which is the third from the left, room for "a lot to the right", a clear named place, ...)
  it tries world seeds ``task.seed * 1000 + k`` for ``k = 0, 1, ...`` (at most
  ``max_attempts``) until :func:`feasible` holds for the initial positions, and records the
  seed used in ``task.world_seed``.
* ``template.check(initial, final, task)`` decides success from object positions
  (name -> xyz; blocks' centres, bowls' bases) with the CaP criteria; which block an
  nth / direction / closest / farthest instruction meant is decided on the *initial* positions.
* :func:`solution_program` is a correct scripted program (only the tabletop API functions plus
  plain Python and ``np``); :func:`solution_text` the explicit solution in plain words, for the
  simulated user.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np

from ..core.apis.tabletop import DEFAULT_BOUNDS, PLACE_INSET

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

BOUNDS = DEFAULT_BOUNDS.copy()
RANGE_XY = BOUNDS[:2, 1] - BOUNDS[:2, 0]            # 0.6 m along x and along y
PLACES: dict[str, tuple[float, float]] = {          # named places, inset 5 cm (CaP)
    "top left corner": (-0.25, -0.25), "top side": (0.0, -0.25), "top right corner": (0.25, -0.25),
    "left side": (-0.25, -0.5), "middle": (0.0, -0.5), "right side": (0.25, -0.5),
    "bottom left corner": (-0.25, -0.75), "bottom side": (0.0, -0.75),
    "bottom right corner": (0.25, -0.75),
}
CORNERS = ("top left corner", "top right corner", "bottom left corner", "bottom right corner")
DIRECTIONS: dict[str, tuple[float, float]] = {
    "top": (0.0, 1.0), "bottom": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}
NTH = {"first": 0, "second": 1, "third": 2, "fourth": 3}

# success criteria (CaP)
PLACE_TOL = 0.06            # at a named place: horizontal distance < 6 cm
BOWL_TOL = 0.06             # in a bowl: < 6 cm and higher
BLOCK_TOL = 0.04            # on a block: < 4 cm and higher
HIGHER = 0.01               # "higher" on a block: centre at least 1 cm above the lower centre
BLOCK_SIZE = 0.04
LINE_TOL = 0.05 * float(RANGE_XY.max())    # collinear within 5 % of the workspace (3 cm)
MAGNITUDE_SPLIT = 1.0 / 3.0                # 'a little' <= 1/3 of the axis range, 'a lot' > 1/3
# scene feasibility
MARGIN = 0.02               # the meant block / corner must win by at least 2 cm
PLACE_CLEAR_BOWL = 0.12     # no bowl this close to a target point
PLACE_CLEAR_BLOCK = 0.06    # no other block this close to a target point
MAGNITUDE_OFFSET = {"a little": 0.10, "a lot": 0.25}   # the scripted solution's distances
LINE_SPACING = 0.12
MAX_OBJECTS = 7             # blocks + bowls in a scene


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
    world_seed: int | None = None      # set by make_world

    @property
    def template(self) -> "Template":
        return TEMPLATES[self.template_id]

    @property
    def blocks(self) -> list[str]:
        return [n for n in self.objects if n.endswith(" block")]

    @property
    def bowls(self) -> list[str]:
        return [n for n in self.objects if n.endswith(" bowl")]


Positions = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class Template:
    """An instruction template with its sampler, scene generator, check and solutions."""

    id: str
    seen: bool
    pattern: str                                                    # str.format with attributes
    sample: Callable[[str, np.random.Generator], dict[str, str]]    # (split, rng) -> attributes
    scene: Callable[[dict[str, str], str, np.random.Generator], list[str]]
    check: Callable[[Positions, Positions, Task], bool]             # (initial, final, task)
    program: Callable[[Task], str]
    text: Callable[[Task, Positions | None], str]
    feasible: Callable[[Task, Positions], bool] = field(default=lambda task, pos: True)

    @property
    def splits(self) -> tuple[str, ...]:
        return ("sa_si", "ua_si") if self.seen else ("ua_ui",)

    def sample_attributes(self, split: str, rng: np.random.Generator) -> dict[str, str]:
        return self.sample(split, rng)

    def make_scene(self, attributes: dict[str, str], split: str,
                   rng: np.random.Generator) -> list[str]:
        return self.scene(attributes, split, rng)


def attributes_for(split: str) -> dict[str, tuple[str, ...]]:
    """The attribute sets a split samples from (seen for sa_si, unseen otherwise)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; use one of {SPLITS}")
    return SEEN_ATTRIBUTES if split == "sa_si" else UNSEEN_ATTRIBUTES


# ---------------------------------------------------------------------------- geometry
def _xy(p) -> np.ndarray:
    return np.asarray(p, dtype=float).reshape(-1)[:2]


def _z(p) -> float:
    p = np.asarray(p, dtype=float).reshape(-1)
    return float(p[2]) if p.shape[0] >= 3 else 0.0


def _hdist(a, b) -> float:
    return float(np.linalg.norm(_xy(a) - _xy(b)))


def _blocks(pos: Positions) -> list[str]:
    return [n for n in pos if n.endswith(" block")]


def _bowls(pos: Positions) -> list[str]:
    return [n for n in pos if n.endswith(" bowl")]


def at_place(p, place_xy) -> bool:
    return _hdist(p, place_xy) < PLACE_TOL


def in_bowl(block_p, bowl_p) -> bool:
    return _hdist(block_p, bowl_p) < BOWL_TOL and _z(block_p) > _z(bowl_p)


def on_block(upper_p, lower_p) -> bool:
    return _hdist(upper_p, lower_p) < BLOCK_TOL and _z(upper_p) > _z(lower_p) + HIGHER


def _in_bounds(xy, margin: float = MARGIN) -> bool:
    xy = _xy(xy)
    return bool(np.all(xy >= BOUNDS[:2, 0] + margin) and np.all(xy <= BOUNDS[:2, 1] - margin))


def _place_clear(xy, pos: Positions, moving: tuple[str, ...] = ()) -> bool:
    """No bowl and no (other, unmoved) block near a target point."""
    for n, p in pos.items():
        if n in moving:
            continue
        limit = PLACE_CLEAR_BOWL if n.endswith(" bowl") else PLACE_CLEAR_BLOCK
        if _hdist(p, xy) < limit:
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


def nth_block_from(nth: str, direction: str, pos: Positions) -> str | None:
    """The nth block counted from the ``direction`` edge (first = most extreme)."""
    u = np.array(DIRECTIONS[direction])
    order = sorted(_blocks(pos), key=lambda n: -float(_xy(pos[n]) @ u))
    k = NTH[nth]
    return order[k] if k < len(order) else None


def block_by_distance(bowl: str, distance: str, pos: Positions) -> str:
    d = {n: _hdist(pos[n], pos[bowl]) for n in _blocks(pos)}
    return (min if distance == "closest" else max)(d, key=d.get)


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
    pts = np.asarray(xys, dtype=float)
    c = pts - pts.mean(axis=0)
    _, _, vt = np.linalg.svd(c)
    d = vt[0]
    normal = np.array([-d[1], d[0]])
    resid = float(np.max(np.abs(c @ normal)))
    slope = float("inf") if abs(d[0]) < 1e-12 else abs(float(d[1] / d[0]))
    return slope, resid


# ---------------------------------------------------------------------------- scenes
def _colors(split: str) -> list[str]:
    return list(attributes_for(split)["colors"])


def _pick(rng: np.random.Generator, values, k: int = 1) -> list:
    idx = rng.choice(len(values), size=k, replace=False)
    return [values[i] for i in idx]


def _scene(split: str, rng: np.random.Generator, blocks=(), bowls=(), n_blocks=None,
           n_bowls=None, same_colors=False) -> list[str]:
    """Named blocks/bowls plus random distractors: 3-4 blocks and 3-4 bowls but at most
    MAX_OBJECTS in all (the CaP spawn rule, 15 cm apart in a 40 x 40 cm area, fails for 8
    objects more often than not), colours from the split's colour set. ``same_colors``: one
    bowl per block in the blocks' colours (3 + 3)."""
    colors = _colors(split)
    if same_colors:
        n_blocks = MAX_OBJECTS // 2
    n_blocks = max(n_blocks or int(rng.integers(3, 5)), len(blocks))
    block_colors = [b.split()[0] for b in blocks]
    rest = [c for c in colors if c not in block_colors]
    block_colors += _pick(rng, rest, n_blocks - len(block_colors))
    if same_colors:
        bowl_colors = list(block_colors)
    else:
        n_bowls = max(min(n_bowls or int(rng.integers(3, 5)), MAX_OBJECTS - n_blocks), len(bowls))
        bowl_colors = [b.split()[0] for b in bowls]
        rest = [c for c in colors if c not in bowl_colors]
        bowl_colors += _pick(rng, rest, n_bowls - len(bowl_colors))
    order_b = rng.permutation(len(block_colors))
    order_w = rng.permutation(len(bowl_colors))
    return ([f"{block_colors[i]} block" for i in order_b]
            + [f"{bowl_colors[i]} bowl" for i in order_w])


def _one(split, rng, key) -> str:
    return str(_pick(rng, list(attributes_for(split)[key]))[0])


# ---------------------------------------------------------------------------- program text
def _norm_literal(xy) -> str:
    """A named place as ``denormalize_xy([..])`` (the places span denormalize's square)."""
    x, y = xy
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


def _joined(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# ---------------------------------------------------------------------------- 1 block on block
def _s_block_on_block(split, rng):
    c1, c2 = _pick(rng, _colors(split), 2)
    return {"block1": f"{c1} block", "block2": f"{c2} block"}


def _c_block_on_block(initial, final, task):
    a = task.attributes
    return on_block(final[a["block1"]], final[a["block2"]])


# ---------------------------------------------------------------------------- 2 block on bowl
def _s_block_bowl(split, rng):
    return {"block": f"{_pick(rng, _colors(split))[0]} block",
            "bowl": f"{_pick(rng, _colors(split))[0]} bowl"}


def _c_block_on_bowl(initial, final, task):
    a = task.attributes
    return in_bowl(final[a["block"]], final[a["bowl"]])


# ---------------------------------------------------------------------------- 3 blocks on place
def _c_blocks_on_place(initial, final, task):
    xy = PLACES[task.attributes["place"]]
    return all(at_place(final[b], xy) for b in _blocks(final))


def _f_place_all(task, pos):
    return _place_clear(PLACES[task.attributes["place"]], pos, moving=tuple(_blocks(pos)))


def _p_blocks_on_place(task):
    return (f"target = {_place_expr(task.attributes['place'])}\n" + _BLOCK_LIST
            + "for block in blocks:\n    put_first_on_second(block, target)\n")


def _t_blocks_on_place(task, pos=None):
    return (f"Put the blocks on the {task.attributes['place']} one after another: "
            f"{_joined(['the ' + b for b in task.blocks])}.")


# ---------------------------------------------------------------------------- 4 blocks in bowl
def _c_blocks_in_bowl(initial, final, task):
    bowl = final[task.attributes["bowl"]]
    return all(in_bowl(final[b], bowl) for b in _blocks(final))


# ---------------------------------------------------------------------------- 5 matching colours
def _c_matching(initial, final, task):
    blocks = _blocks(final)
    ok = [in_bowl(final[b], final[b.split()[0] + " bowl"]) for b in blocks
          if b.split()[0] + " bowl" in final]
    return bool(ok) and all(ok)


# ---------------------------------------------------------------------------- 6 direction of bowl
def _s_direction(split, rng):
    return {"direction": _one(split, rng, "directions"),
            "bowl": f"{_pick(rng, _colors(split))[0]} bowl", "place": _one(split, rng, "places")}


def _f_direction(task, pos):
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


def _c_direction(initial, final, task):
    a = task.attributes
    meant = block_in_direction(a["bowl"], a["direction"], initial)
    return meant is not None and at_place(final[meant], PLACES[a["place"]])


def _p_direction(task):
    a = task.attributes
    return (f"bowl_pos = get_obj_pos('{a['bowl']}')\n" + _BLOCK_LIST
            + f"candidates = [b for b in blocks if (get_obj_pos(b) - bowl_pos) @ {_vec(a['direction'])} > 0]\n"
            "block = min(candidates, key=lambda b: np.linalg.norm(get_obj_pos(b) - bowl_pos))\n"
            f"put_first_on_second(block, {_place_expr(a['place'])})\n")


def _t_direction(task, pos=None):
    a = task.attributes
    where = {"top": "above", "bottom": "below", "left": "to the left of",
             "right": "to the right of"}[a["direction"]]
    if pos is not None:
        meant = block_in_direction(a["bowl"], a["direction"], pos)
        return (f"I mean the {meant}, the block nearest to the {a['bowl']} among the blocks "
                f"{where} it. Put the {meant} on the {a['place']}.")
    return (f"Look at the blocks {where} the {a['bowl']}, take the one nearest to the bowl and "
            f"put it on the {a['place']}.")


# ---------------------------------------------------------------------------- 7 distance to bowl
def _s_distance(split, rng):
    return {"distance": _one(split, rng, "distances"),
            "bowl": f"{_pick(rng, _colors(split))[0]} bowl", "place": _one(split, rng, "places")}


def _f_distance(task, pos):
    a = task.attributes
    ranked = _ranked({n: _hdist(pos[n], pos[a["bowl"]]) for n in _blocks(pos)})
    i = 0 if a["distance"] == "closest" else -1
    return _clear_winner(ranked, i) and _place_clear(PLACES[a["place"]], pos, moving=(ranked[i][0],))


def _c_distance(initial, final, task):
    a = task.attributes
    return at_place(final[block_by_distance(a["bowl"], a["distance"], initial)], PLACES[a["place"]])


def _p_distance(task):
    a = task.attributes
    fn = "min" if a["distance"] == "closest" else "max"
    return (f"bowl_pos = get_obj_pos('{a['bowl']}')\n" + _BLOCK_LIST
            + f"block = {fn}(blocks, key=lambda b: np.linalg.norm(get_obj_pos(b) - bowl_pos))\n"
            f"put_first_on_second(block, {_place_expr(a['place'])})\n")


def _t_distance(task, pos=None):
    a = task.attributes
    word = "nearest to" if a["distance"] == "closest" else "farthest from"
    if pos is not None:
        meant = block_by_distance(a["bowl"], a["distance"], pos)
        return (f"I mean the {meant}, the block {word} the {a['bowl']}. "
                f"Put the {meant} on the {a['place']}.")
    return f"Take the block {word} the {a['bowl']} and put it on the {a['place']}."


# ---------------------------------------------------------------------------- 8 nth from direction
def _s_nth(split, rng):
    return {"nth": _one(split, rng, "nths"), "direction": _one(split, rng, "directions"),
            "place": _one(split, rng, "places")}


def _scene_nth(a, split, rng):
    return _scene(split, rng, n_blocks=max(int(rng.integers(3, 5)), NTH[a["nth"]] + 1))


def _f_nth(task, pos):
    a = task.attributes
    u = np.array(DIRECTIONS[a["direction"]])
    ranked = _ranked({n: -float(_xy(pos[n]) @ u) for n in _blocks(pos)})
    k = NTH[a["nth"]]
    return (k < len(ranked) and _clear_winner(ranked, k)
            and _place_clear(PLACES[a["place"]], pos, moving=(ranked[k][0],)))


def _c_nth(initial, final, task):
    a = task.attributes
    meant = nth_block_from(a["nth"], a["direction"], initial)
    return meant is not None and at_place(final[meant], PLACES[a["place"]])


def _p_nth(task):
    a = task.attributes
    return (_BLOCK_LIST
            + f"blocks = sorted(blocks, key=lambda b: -(get_obj_pos(b) @ {_vec(a['direction'])}))\n"
            f"put_first_on_second(blocks[{NTH[a['nth']]}], {_place_expr(a['place'])})\n")


def _t_nth(task, pos=None):
    a = task.attributes
    if pos is not None:
        meant = nth_block_from(a["nth"], a["direction"], pos)
        return (f"Counting from the {a['direction']} edge of the table, the {a['nth']} block is "
                f"the {meant}. Put the {meant} on the {a['place']}.")
    return (f"Order the blocks by how close they are to the {a['direction']} edge of the table, "
            f"take the {a['nth']} one and put it on the {a['place']}.")


# ---------------------------------------------------------------------------- 9 different corners
def _c_corners(initial, final, task):
    used = []
    for b in _blocks(final):
        near = [c for c in CORNERS if at_place(final[b], PLACES[c])]
        if not near:
            return False
        used.append(near[0])
    return len(set(used)) == len(used)


def _f_corners(task, pos):
    return len(_blocks(pos)) <= len(CORNERS) and all(
        _place_clear(PLACES[c], pos, moving=tuple(_blocks(pos))) for c in CORNERS)


def _p_corners(task):
    corners = ", ".join(_place_expr(c) for c in CORNERS)
    return (f"corners = [{corners}]\n" + _BLOCK_LIST
            + "for block, corner in zip(blocks, corners):\n    put_first_on_second(block, corner)\n")


def _t_corners(task, pos=None):
    pairs = [f"the {b} in the {c}" for b, c in zip(task.blocks, CORNERS)]
    return f"Put {_joined(pairs)}."


# ---------------------------------------------------------------------------- 10 mismatched colours
def _c_mismatched(initial, final, task):
    blocks = _blocks(final)
    bowls = _bowls(final)
    if not blocks or not bowls:
        return False
    for b in blocks:
        inside = [w for w in bowls if in_bowl(final[b], final[w])]
        if not inside:
            return False
        nearest = min(inside, key=lambda w: _hdist(final[b], final[w]))
        if nearest.split()[0] == b.split()[0]:
            return False
    return True


def _mismatch_pairs(task) -> list[tuple[str, str]]:
    blocks, bowls = sorted(task.blocks), sorted(task.bowls)
    return [(b, bowls[(i + 1) % len(bowls)]) for i, b in enumerate(blocks)]


def _p_mismatched(task):
    return ("blocks = sorted(name for name in get_obj_names() if name.endswith(' block'))\n"
            "bowls = sorted(name for name in get_obj_names() if name.endswith(' bowl'))\n"
            "for i, block in enumerate(blocks):\n"
            "    put_first_on_second(block, bowls[(i + 1) % len(bowls)])\n")


def _t_mismatched(task, pos=None):
    return "Put " + _joined([f"the {b} in the {w}" for b, w in _mismatch_pairs(task)]) + "."


# ---------------------------------------------------------------------------- 11 stack on place
def _c_stack(initial, final, task):
    xy = PLACES[task.attributes["place"]]
    blocks = sorted(_blocks(final), key=lambda b: _z(final[b]))
    if not blocks or not all(at_place(final[b], xy) for b in blocks):
        return False
    return all(on_block(final[up], final[lo]) for lo, up in zip(blocks, blocks[1:]))


def _p_stack(task):
    return (_BLOCK_LIST + f"put_first_on_second(blocks[0], {_place_expr(task.attributes['place'])})\n"
            "for lower, upper in zip(blocks, blocks[1:]):\n    put_first_on_second(upper, lower)\n")


def _t_stack(task, pos=None):
    b = task.blocks
    steps = [f"put the {b[0]} on the {task.attributes['place']}"]
    steps += [f"the {up} on top of the {lo}" for lo, up in zip(b, b[1:])]
    text = _joined(steps)
    return text[0].upper() + text[1:] + "."


# ---------------------------------------------------------------------------- 12 magnitude
def _s_magnitude(split, rng):
    return {"block": f"{_pick(rng, _colors(split))[0]} block",
            "magnitude": _one(split, rng, "magnitudes"), "direction": _one(split, rng, "directions"),
            "bowl": f"{_pick(rng, _colors(split))[0]} bowl"}


def _magnitude_target(task, pos) -> np.ndarray:
    a = task.attributes
    return _xy(pos[a["bowl"]]) + MAGNITUDE_OFFSET[a["magnitude"]] * np.array(DIRECTIONS[a["direction"]])


def _f_magnitude(task, pos):
    t = _magnitude_target(task, pos)
    a = task.attributes      # the reference bowl is 10 / 25 cm away by construction
    return _in_bounds(t) and _place_clear(t, pos, moving=(a["block"], a["bowl"]))


def _c_magnitude(initial, final, task):
    a = task.attributes
    u = np.array(DIRECTIONS[a["direction"]])
    d = _xy(final[a["block"]]) - _xy(final[a["bowl"]])
    along = float(d @ u)
    axis = 0 if u[0] else 1
    limit = MAGNITUDE_SPLIT * float(RANGE_XY[axis])
    if along <= 0 or np.linalg.norm(d) < BOWL_TOL:       # wrong side, or inside the bowl
        return False
    return along <= limit if a["magnitude"] == "a little" else along > limit


def _p_magnitude(task):
    a = task.attributes
    off = MAGNITUDE_OFFSET[a["magnitude"]]
    return (f"target = get_obj_pos('{a['bowl']}') + {off} * {_vec(a['direction'])}\n"
            f"put_first_on_second('{a['block']}', target)\n")


def _t_magnitude(task, pos=None):
    a = task.attributes
    cm = round(MAGNITUDE_OFFSET[a["magnitude"]] * 100)
    side = {"top": "above", "bottom": "below", "left": "to the left of",
            "right": "to the right of"}[a["direction"]]
    return f"Put the {a['block']} on the table about {cm} cm {side} the {a['bowl']}."


# ---------------------------------------------------------------------------- 13 corner by distance
def _s_corner_distance(split, rng):
    return {"block": f"{_pick(rng, _colors(split))[0]} block",
            "distance": _one(split, rng, "distances"),
            "bowl": f"{_pick(rng, _colors(split))[0]} bowl"}


def _f_corner_distance(task, pos):
    a = task.attributes
    ranked = _ranked({c: _hdist(PLACES[c], pos[a["bowl"]]) for c in CORNERS})
    i = 0 if a["distance"] == "closest" else -1
    return _clear_winner(ranked, i) and _place_clear(PLACES[ranked[i][0]], pos, moving=(a["block"],))


def _c_corner_distance(initial, final, task):
    a = task.attributes
    corner = corner_by_distance(a["bowl"], a["distance"], initial[a["bowl"]])
    return at_place(final[a["block"]], PLACES[corner])


def _p_corner_distance(task):
    a = task.attributes
    corners = ", ".join(_place_expr(c) for c in CORNERS)
    fn = "min" if a["distance"] == "closest" else "max"
    return (f"bowl_pos = get_obj_pos('{a['bowl']}')\n"
            f"corners = [{corners}]\n"
            f"corner = {fn}(corners, key=lambda c: np.linalg.norm(c - bowl_pos))\n"
            f"put_first_on_second('{a['block']}', corner)\n")


def _t_corner_distance(task, pos=None):
    a = task.attributes
    word = "nearest to" if a["distance"] == "closest" else "farthest from"
    if pos is not None:
        corner = corner_by_distance(a["bowl"], a["distance"], pos[a["bowl"]])
        return f"The corner {word} the {a['bowl']} is the {corner}. Put the {a['block']} there."
    return f"Put the {a['block']} in the corner of the table {word} the {a['bowl']}."


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


def _line_choice(task, pos) -> tuple[float, list[np.ndarray] | None]:
    ns: dict[str, Any] = {"np": np, "get_obj_pos": lambda n: _xy(pos[n]),
                          "blocks": _blocks(pos), "bowls": _bowls(pos),
                          "directions": LINE_DIRECTIONS[task.attributes["line"]]}
    exec(_LINE_CHOOSER, ns)
    return ns["best_clearance"], ns["best_points"]


def _f_line(task, pos):
    clearance, points = _line_choice(task, pos)
    return points is not None and clearance > 0


def _c_line(initial, final, task):
    blocks = _blocks(final)
    if len(blocks) < 2:
        return False
    xys = np.array([_xy(final[b]) for b in blocks])
    for i in range(len(xys)):
        for j in range(i + 1, len(xys)):
            if np.linalg.norm(xys[i] - xys[j]) < BLOCK_SIZE:     # stacked / overlapping
                return False
    slope, resid = fit_line(xys)
    return resid <= LINE_TOL and line_class(slope) == task.attributes["line"]


def _p_line(task):
    dirs = LINE_DIRECTIONS[task.attributes["line"]]
    return (_BLOCK_LIST + _BOWL_LIST + f"directions = {dirs!r}\n" + _LINE_CHOOSER
            + "for block, point in zip(blocks, best_points):\n    put_first_on_second(block, point)\n")


def _t_line(task, pos=None):
    kind = task.attributes["line"]
    if pos is not None:
        _, points = _line_choice(task, pos)
        if points is not None:
            steps = [f"the {b} at x = {p[0]:.2f} m, y = {p[1]:.2f} m"
                     for b, p in zip(_blocks(pos), points)]
            return (f"Put the blocks {round(LINE_SPACING * 100)} cm apart on a {kind} line, "
                    f"away from the bowls: {_joined(steps)}.")
    return (f"Put the blocks one after another at evenly spaced points about "
            f"{round(LINE_SPACING * 100)} cm apart on one {kind} line across the table, "
            f"keeping clear of the bowls.")


# ---------------------------------------------------------------------------- registry
def _s_none(split, rng):
    return {}


def _s_place(split, rng):
    return {"place": _one(split, rng, "places")}


def _s_bowl(split, rng):
    return {"bowl": f"{_pick(rng, _colors(split))[0]} bowl"}


def _s_line(split, rng):
    return {"line": _one(split, rng, "lines")}


def _named_scene(a, split, rng):
    return _scene(split, rng, blocks=[v for v in a.values() if v.endswith(" block")],
                  bowls=[v for v in a.values() if v.endswith(" bowl")])


def _same_color_scene(a, split, rng):
    return _scene(split, rng, same_colors=True)


def _simple_program(task):
    a = task.attributes
    if task.template_id == "block_on_block":
        return f"put_first_on_second('{a['block1']}', '{a['block2']}')\n"
    if task.template_id == "block_in_bowl":
        return f"put_first_on_second('{a['block']}', '{a['bowl']}')\n"
    if task.template_id == "blocks_in_bowl":
        return _BLOCK_LIST + f"for block in blocks:\n    put_first_on_second(block, '{a['bowl']}')\n"
    if task.template_id == "matching_bowls":
        return (_BLOCK_LIST + "for block in blocks:\n"
                "    bowl = block.split()[0] + ' bowl'\n"
                "    if bowl in get_obj_names():\n"
                "        put_first_on_second(block, bowl)\n")
    raise KeyError(task.template_id)


def _simple_text(task, pos=None):
    a = task.attributes
    if task.template_id == "block_on_block":
        return f"Put the {a['block1']} on top of the {a['block2']}."
    if task.template_id == "block_in_bowl":
        return f"Put the {a['block']} in the {a['bowl']}."
    if task.template_id == "blocks_in_bowl":
        return f"Put {_joined(['the ' + b for b in task.blocks])} in the {a['bowl']}, one after another."
    if task.template_id == "matching_bowls":
        pairs = [f"the {b} in the {b.split()[0]} bowl" for b in task.blocks
                 if f"{b.split()[0]} bowl" in task.objects]
        return f"Put {_joined(pairs)}."
    raise KeyError(task.template_id)


_TEMPLATE_LIST = [
    # seen (sa_si, ua_si)
    Template("block_on_block", True, "pick up the {block1} and place it on the {block2}",
             _s_block_on_block, _named_scene, _c_block_on_block, _simple_program, _simple_text),
    Template("block_in_bowl", True, "pick up the {block} and place it on the {bowl}",
             _s_block_bowl, _named_scene, _c_block_on_bowl, _simple_program, _simple_text),
    Template("blocks_on_place", True, "put all the blocks on the {place}",
             _s_place, _named_scene, _c_blocks_on_place, _p_blocks_on_place, _t_blocks_on_place,
             _f_place_all),
    Template("blocks_in_bowl", True, "put the blocks in the {bowl}",
             _s_bowl, _named_scene, _c_blocks_in_bowl, _simple_program, _simple_text),
    Template("matching_bowls", True, "put all the blocks in the bowls with matching colors",
             _s_none, _same_color_scene, _c_matching, _simple_program, _simple_text),
    Template("block_direction_of_bowl", True,
             "pick up the block to the {direction} of the {bowl} and place it on the {place}",
             _s_direction, _named_scene, _c_direction, _p_direction, _t_direction, _f_direction),
    Template("block_distance_to_bowl", True,
             "pick up the block {distance} to the {bowl} and place it on the {place}",
             _s_distance, _named_scene, _c_distance, _p_distance, _t_distance, _f_distance),
    Template("nth_block_from_direction", True,
             "pick up the {nth} block from the {direction} and place it on the {place}",
             _s_nth, _scene_nth, _c_nth, _p_nth, _t_nth, _f_nth),
    # unseen (ua_ui)
    Template("different_corners", False, "put all the blocks in different corners",
             _s_none, _named_scene, _c_corners, _p_corners, _t_corners, _f_corners),
    Template("mismatched_bowls", False, "put the blocks in the bowls with mismatched colors",
             _s_none, _same_color_scene, _c_mismatched, _p_mismatched, _t_mismatched),
    Template("stack_on_place", False, "stack all the blocks on the {place}",
             _s_place, _named_scene, _c_stack, _p_stack, _t_stack, _f_place_all),
    Template("block_magnitude_direction_of_bowl", False,
             "pick up the {block} and place it {magnitude} to the {direction} of the {bowl}",
             _s_magnitude, _named_scene, _c_magnitude, _p_magnitude, _t_magnitude, _f_magnitude),
    Template("block_corner_distance_to_bowl", False,
             "pick up the {block} and place it in the corner {distance} to the {bowl}",
             _s_corner_distance, _named_scene, _c_corner_distance, _p_corner_distance,
             _t_corner_distance, _f_corner_distance),
    Template("blocks_in_line", False, "put all the blocks in a {line} line",
             _s_line, _named_scene, _c_line, _p_line, _t_line, _f_line),
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


def make_world(task: Task, factory: Callable[[list[str], int], Any] | None = None,
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


REFERENCE_MOVED = 0.03      # m: a reference bowl moved this far changes what "next to it" means


def interpretation(task: Task, pos: Positions):
    """What the instruction refers to in the scene ``pos``, for the instructions whose meaning
    depends on where things are (the block to the left of / nearest to / n-th from ..., the
    corner nearest to a bowl, a distance from a bowl); None for the others. When it differs
    between the initial and the current scene, the initial condition is destroyed: following
    the instruction now would act on something else (section B)."""
    a = task.attributes
    tid = task.template_id
    try:
        if tid == "block_direction_of_bowl":
            return block_in_direction(a["bowl"], a["direction"], pos)
        if tid == "block_distance_to_bowl":
            return block_by_distance(a["bowl"], a["distance"], pos)
        if tid == "nth_block_from_direction":
            return nth_block_from(a["nth"], a["direction"], pos)
        if tid == "block_corner_distance_to_bowl":
            return corner_by_distance(a["bowl"], a["distance"], pos[a["bowl"]])
        if tid == "block_magnitude_direction_of_bowl":
            return tuple(np.round(_xy(pos[a["bowl"]]) / REFERENCE_MOVED).astype(int))
    except (KeyError, ValueError, IndexError):
        return None
    return None


def initial_destroyed(task: Task, initial: Positions, current: Positions) -> bool:
    """The instruction now refers to something else than in the initial scene."""
    before = interpretation(task, initial)
    return before is not None and interpretation(task, current) != before


def solution_program(task: Task) -> str:
    """A scripted correct program for the task (tabletop API functions, Python, ``np``)."""
    return task.template.program(task)


def solution_text(task: Task, positions: Positions | None = None) -> str:
    """The explicit solution in plain words for the simulated user (no code). With the initial
    ``positions`` it names the meant block / corner / line points; without, it describes how
    to find them."""
    return task.template.text(task, positions)


__all__ = [
    "SPLITS", "SEEN_ATTRIBUTES", "UNSEEN_ATTRIBUTES", "PLACES", "CORNERS", "DIRECTIONS",
    "Task", "Template", "TEMPLATES", "TEMPLATE_IDS", "tasks_for_split", "make_task", "make_world",
    "feasible", "check", "world_positions", "solution_program", "solution_text",
    "attributes_for", "block_in_direction", "nth_block_from", "block_by_distance",
    "corner_by_distance", "fit_line", "line_class", "interpretation", "initial_destroyed",
]

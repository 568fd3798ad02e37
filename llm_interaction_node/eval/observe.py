"""What a person at the table sees after a round: where everything is, what moved, what is wrong.

The simulated user (section B of the seed) observes only the simulation, never code or the
LLM's text. This module turns two snapshots of the world (object name -> xyz at the start and
at the end of a round) into that view:

* :func:`where` — an object's place in words: "in the blue bowl", "on the red block",
  "in the top left corner" / "on the left side" / "in the middle" (the CaP named places,
  within the success tolerance), "next to the green bowl", coarsely "on the table towards the
  bottom right", or "off the table";
* :func:`moves` — the objects the robot moved, from where to where;
* :func:`observe` — both, plus the task's unmet goal conditions as :class:`Fact` records
  (what the template's ``mismatch`` finds; the user turns them into sentences).

It also holds the table's vocabulary the success checks share with it (named places,
directions, "in a bowl", "on a block", "at a place"), so a check and its description cannot
disagree.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..core.apis.tabletop import DEFAULT_BOUNDS

Positions = Mapping[str, np.ndarray]

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
OPPOSITE = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}
SIDE_OF = {"top": "above", "bottom": "below", "left": "to the left of", "right": "to the right of"}
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")

# success criteria (CaP)
PLACE_TOL = 0.06            # at a named place: horizontal distance < 6 cm
BOWL_TOL = 0.06             # in a bowl: < 6 cm and higher
BLOCK_TOL = 0.04            # on a block: < 4 cm and higher
HIGHER = 0.01               # "higher" on a block: centre at least 1 cm above the lower centre
# what a person notices
MOVED = 0.03                # m an object must have moved to count as moved
NEAR_BOWL = 0.12            # m: "next to the bowl"
OFF_TABLE = 0.02            # m outside the workspace or below the table


# ---------------------------------------------------------------------------- geometry
def xy(p) -> np.ndarray:
    return np.asarray(p, dtype=float).reshape(-1)[:2]


def z(p) -> float:
    p = np.asarray(p, dtype=float).reshape(-1)
    return float(p[2]) if p.shape[0] >= 3 else 0.0


def hdist(a, b) -> float:
    return float(np.linalg.norm(xy(a) - xy(b)))


def blocks_of(pos: Positions) -> list[str]:
    return [n for n in pos if n.endswith(" block")]


def bowls_of(pos: Positions) -> list[str]:
    return [n for n in pos if n.endswith(" bowl")]


def at_place(p, place_xy) -> bool:
    return hdist(p, place_xy) < PLACE_TOL


def in_bowl(block_p, bowl_p) -> bool:
    return hdist(block_p, bowl_p) < BOWL_TOL and z(block_p) > z(bowl_p)


def on_block(upper_p, lower_p) -> bool:
    return hdist(upper_p, lower_p) < BLOCK_TOL and z(upper_p) > z(lower_p) + HIGHER


def color(name: str) -> str:
    return name.split()[0]


# ---------------------------------------------------------------------------- words
def place_phrase(place: str) -> str:
    """A named place with its preposition: "in the top left corner", "on the left side"."""
    if place == "middle":
        return "in the middle"
    return f"in the {place}" if place.endswith("corner") else f"on the {place}"


def named_place(p) -> str | None:
    """The named place ``p`` is at (within the success tolerance), if any."""
    near = min(PLACES, key=lambda k: hdist(p, PLACES[k]))
    return near if at_place(p, PLACES[near]) else None


def region(p) -> str:
    """Coarsely where on the table: "the top left", "the middle", "the bottom"."""
    x, y = xy(p)
    third = RANGE_XY / 3.0
    col = "left" if x < BOUNDS[0, 0] + third[0] else "right" if x > BOUNDS[0, 1] - third[0] else ""
    row = "bottom" if y < BOUNDS[1, 0] + third[1] else "top" if y > BOUNDS[1, 1] - third[1] else ""
    words = " ".join(w for w in (row, col) if w)
    return f"the {words}" if words else "the middle"


def off_table(p) -> bool:
    x, y = xy(p)
    (x0, x1), (y0, y1) = BOUNDS[0], BOUNDS[1]
    return (not (x0 - OFF_TABLE <= x <= x1 + OFF_TABLE and y0 - OFF_TABLE <= y <= y1 + OFF_TABLE)
            or z(p) < -OFF_TABLE)


def support(name: str, pos: Positions) -> str | None:
    """The bowl or block ``name`` rests in / on, if any (the highest block below it)."""
    p = pos[name]
    if name.endswith(" block"):
        bowls = [w for w in bowls_of(pos) if in_bowl(p, pos[w])]
        lower = [b for b in blocks_of(pos) if b != name and on_block(p, pos[b])]
        if lower:
            return max(lower, key=lambda b: z(pos[b]))
        if bowls:
            return min(bowls, key=lambda w: hdist(p, pos[w]))
    return None


def where(name: str, pos: Positions) -> str:
    """Where ``name`` is, as a person would say it (see the module docstring)."""
    p = pos[name]
    if off_table(p):
        return "off the table"
    below = support(name, pos)
    if below is not None:
        return f"in the {below}" if below.endswith(" bowl") else f"on the {below}"
    place = named_place(p)
    if place is not None:
        return place_phrase(place)
    if name.endswith(" block"):
        bowls = [w for w in bowls_of(pos) if hdist(p, pos[w]) < NEAR_BOWL]
        if bowls:
            return f"next to the {min(bowls, key=lambda w: hdist(p, pos[w]))}"
    return f"on the table towards {region(p)}" if region(p) != "the middle" else \
        "on the table near the middle"


def base_where(name: str, pos: Positions) -> str:
    """Where the stack ``name`` is part of stands (``where`` of its lowest block): a block in
    a tower at the bottom side is "on the bottom side" for a task about places."""
    seen = {name}
    below = support(name, pos)
    while below is not None and below.endswith(" block") and below not in seen:
        seen.add(below)
        name, below = below, support(below, pos)
    return where(name, pos)


def side_of(p, ref) -> str:
    """The direction from ``ref`` in which ``p`` mostly lies ("top", "left", ...)."""
    d = xy(p) - xy(ref)
    if abs(d[0]) >= abs(d[1]):
        return "right" if d[0] > 0 else "left"
    return "top" if d[1] > 0 else "bottom"


def ordinal(i: int) -> str:
    return ORDINALS[i] if 0 <= i < len(ORDINALS) else f"{i + 1}th"


def joined(items) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# ---------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Move:
    """An object the robot moved this round."""

    object: str
    start: str                  # where it was (words)
    end: str                    # where it is now (words)


FACT_KINDS = ("nothing_moved", "missing", "wrong_place", "wrong_block", "wrong_corner",
              "reversed", "same_color", "shared", "stack_fell", "not_stacked", "overlap",
              "off_line", "wrong_line", "wrong_side", "too_far", "too_close", "extra")
# the fields a sentence about a fact may use (the simulated user's and a pool's,
# eval/phrasings.py); ``meant``: what a selection task means, in words
FACT_FIELDS = ("things", "Things", "is", "it", "they", "where", "wanted", "detail", "meant")


@dataclass(frozen=True)
class Fact:
    """One unmet goal condition as a person at the table would state it.

    ``kind`` selects the wording (the simulated user's ``FACT_WORDING``); ``objects`` are the
    objects the sentence is about, empty when the sentence must not name them (the block a
    selection task chose, so that the right one is never named by elimination either);
    ``where``: where they are now; ``wanted``: what the instruction asked for, in the same
    form; ``detail``: a further phrase of the kind (what the chosen block is, a distance).

    kinds: ``nothing_moved``; ``missing`` (not moved, not where wanted); ``wrong_place``
    (moved, but ended ``where``); ``wrong_block`` (the block taken is ``detail``, the
    instruction meant ``wanted``); ``wrong_corner``; ``reversed`` (the two blocks the other
    way round); ``same_color``; ``shared`` (two blocks at one corner); ``stack_fell``
    (moved as a stack, the rest stayed behind); ``not_stacked`` (beside the stack, not on it);
    ``overlap`` (lies on another block); ``off_line``; ``wrong_line``; ``wrong_side``;
    ``too_far``; ``too_close``; ``extra`` (an object moved that the task does not involve).
    """

    kind: str
    objects: tuple[str, ...] = ()
    where: str = ""
    wanted: str = ""
    detail: str = ""


@dataclass
class Seen:
    """The view after one round (see :func:`observe`)."""

    places: dict[str, str] = field(default_factory=dict)    # object -> where it is now
    moved: list[Move] = field(default_factory=list)
    unmet: list[Fact] = field(default_factory=list)


def moved_objects(initial: Positions, final: Positions) -> list[str]:
    return [n for n in final if n in initial and hdist(initial[n], final[n]) > MOVED]


def moves(initial: Positions, final: Positions) -> list[Move]:
    return [Move(n, where(n, initial), where(n, final)) for n in moved_objects(initial, final)]


def grouped(facts: list[Fact]) -> list[Fact]:
    """Facts that differ only in their objects become one fact about all of them."""
    out: dict[tuple, list[str]] = {}
    for f in facts:
        out.setdefault((f.kind, f.where, f.wanted, f.detail), []).extend(f.objects)
    return [Fact(k[0], tuple(dict.fromkeys(objs)), k[1], k[2], k[3]) for k, objs in out.items()]


def observe(task, initial: Positions, final: Positions, start: Positions | None = None) -> Seen:
    """What a person sees after a round of ``task``: ``initial`` = the run's start (what the
    instruction refers to), ``start`` = the round's start (what moved this round; default
    ``initial``), ``final`` = now."""
    start = initial if start is None else start
    seen = Seen(places={n: where(n, final) for n in final}, moved=moves(start, final))
    if not task.template.check(initial, final, task):
        if not moved_objects(initial, final):
            seen.unmet = [Fact("nothing_moved")]
        else:
            seen.unmet = grouped(task.template.mismatch(task, initial, final, start))
    return seen


__all__ = ["Fact", "FACT_KINDS", "FACT_FIELDS", "Move", "Seen", "observe", "where", "moves",
           "named_place", "place_phrase",
           "PLACES", "CORNERS", "DIRECTIONS", "at_place", "in_bowl", "on_block"]

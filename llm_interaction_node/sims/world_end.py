"""Where a world's objects end, and whether two worlds end alike.

The replay check of a learned example (``replay.replay_check``) replays it from the
interaction's start and compares the replayed world's end with the live world's at the learn
call: an example whose statements all work but that leaves the objects elsewhere than the user
accepted does not solve the request (a ``final`` example that only fixes the last block).

Each world tells its own end (``end()``):

* Household (:meth:`~.household.HouseholdWorld.end`): the symbolic state, each object's
  ``location`` and ``held_by`` (the base pose is not compared).
* Tabletop (the 2-D world, PyBullet: :func:`tabletop_end`): each object's position. The
  replay runs in the 2-D world while the live world may be PyBullet, so places are compared
  with tolerances that survive physics (see :func:`same_place`).

Only objects the live world knows are compared.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .tabletop_sizes import BLOCK_SIZE, BOWL_RADIUS

# A block horizontally this close to a bowl's centre is in that bowl, in either world: the
# PyBullet bowl's inner wall is at ~0.071 m (sims/tabletop_bullet.py), and a block released
# there slides onto its floor, while the 2-D world keeps blocks in a bowl within 0.03 m of its
# centre. Two blocks in the same bowl are at the same place wherever in the bowl they lie.
IN_BOWL_RADIUS = 0.07
# Outside a shared bowl, two positions are the same place if they are closer than this
# horizontally: the benchmark's own tolerance for "at a named place" and "in a bowl"
# (eval/observe.py, 6 cm), the 2-D world's bowl radius. After the same puts PyBullet leaves a
# block 0 to ~4 cm (90th percentile) from where the 2-D world puts it, more only where the
# bowl rule applies (`python -m llm_interaction_node.bench.final_replay`), and places the
# tasks tell apart (bowls are spawned >= 0.15 m apart, corners and sides 0.25 m) are farther.
XY_TOLERANCE = BOWL_RADIUS
# ... and closer than this vertically: half a block, so a block on the table and one on a
# block (0.04 m higher) differ, and a stack's order counts.
Z_TOLERANCE = BLOCK_SIZE / 2
MAX_NAMED = 3            # objects named in the sentence; the rest are counted


@dataclass(frozen=True)
class WorldEnd:
    """Where each object of a world is: ``kind`` 'household' (name -> (location, held_by))
    or 'tabletop' (name -> xyz)."""

    kind: str
    objects: Mapping[str, Any]


def end_of(world) -> WorldEnd | None:
    """The end state of a world that tells its own (``end()``: the in-process worlds); None
    for a robot that knows no world (the ROS node's)."""
    end = getattr(world, "end", None)
    return end() if callable(end) else None


def tabletop_end(world) -> WorldEnd:
    """The end of a tabletop world (2-D or PyBullet): each object's position."""
    return WorldEnd("tabletop", {n: np.asarray(world.object_position(n), dtype=float).copy()
                                 for n in world.object_names()})


def _bowl_of(name: str, objects: Mapping[str, np.ndarray]) -> str | None:
    """The bowl a block is in (the nearest within :data:`IN_BOWL_RADIUS`), else None."""
    if not name.endswith(" block"):
        return None
    xy = objects[name][:2]
    near = [
        (float(np.linalg.norm(p[:2] - xy)), n) for n, p in objects.items() if n.endswith(" bowl")
    ]
    near = [(d, n) for d, n in near if d < IN_BOWL_RADIUS]
    return min(near)[1] if near else None


def same_place(
    name: str, replayed: Mapping[str, np.ndarray], live: Mapping[str, np.ndarray],
    ignored: Collection[str] = (), heightless: Collection[str] = (),
) -> bool:
    """Whether object ``name`` is at the same place in both tabletop worlds: in the same bowl
    (wherever in it), or in no bowl in either and within :data:`XY_TOLERANCE` horizontally and
    :data:`Z_TOLERANCE` vertically (in a bowl in one world only, or in another bowl: not). A
    block of ``ignored`` under it in either world (a wrong choice left where the robot put
    it, the accepted block put on top of it) does not count in its height; for a block of
    ``heightless`` (its place in a pile was not chosen) the height is not compared."""
    bowl = _bowl_of(name, replayed)
    if bowl != _bowl_of(name, live):
        return False
    if bowl is not None:
        return True
    a, b = replayed[name], live[name]
    if float(np.linalg.norm(a[:2] - b[:2])) > XY_TOLERANCE:
        return False
    return (name in heightless or abs(float(a[2]) - float(b[2])) <= Z_TOLERANCE
            or any(n in ignored for n in _under(name, replayed) + _under(name, live)))


def _under(name: str, objects: Mapping[str, np.ndarray]) -> list[str]:
    """The blocks right under object ``name`` (a block's width around it, half a block lower
    or more)."""
    p = objects[name]
    return [n for n, q in objects.items()
            if n != name and n.endswith(" block")
            and float(np.linalg.norm(q[:2] - p[:2])) < BLOCK_SIZE
            and float(p[2]) - float(q[2]) > BLOCK_SIZE / 2]


def _tabletop_place(name: str, objects: Mapping[str, np.ndarray]) -> str:
    bowl = _bowl_of(name, objects)
    if bowl is not None:
        return f"in the {bowl}"
    p = objects[name]
    under = [(float(objects[n][2]), n) for n in _under(name, objects)]
    if under:
        return f"on the {max(under)[1]}"
    where = "on the table" if name.endswith(" block") else ""
    return f"{where} at ({p[0]:.2f}, {p[1]:.2f})".strip()


def _household_place(state: tuple[str | None, str | None]) -> str:
    location, held_by = state
    if held_by == "human":
        return "held by the human"
    if held_by:
        return f"in the robot's {held_by} hand"
    return f"at {location}" if location else "at an unknown place"


def ending_elsewhere(replayed: WorldEnd | None, live: WorldEnd | None,
                     ignored: Collection[str] = (), heightless: Collection[str] = ()
                     ) -> list[str]:
    """The names of the objects the live world knows that end elsewhere in the replay (none:
    a world missing or of another kind); ``ignored`` ones are not compared, ``heightless``
    ones not by height (see :func:`same_place`)."""
    if replayed is None or live is None or replayed.kind != live.kind:
        return []
    names = [n for n in live.objects if n in replayed.objects and n not in ignored]
    if live.kind == "household":
        return [n for n in names if tuple(replayed.objects[n]) != tuple(live.objects[n])]
    return [n for n in names
            if not same_place(n, replayed.objects, live.objects, ignored, heightless)]


def at_place(end: WorldEnd, name: str, place: str) -> bool | None:
    """Whether object ``name`` ends at the named ``place`` in ``end``: on that surface (the
    household: not in a hand), in that bowl, on that block; None where ``end`` cannot tell
    (an unknown object, a place that is a point on the table)."""
    if name not in end.objects:
        return None
    if end.kind == "household":
        return tuple(end.objects[name]) == (place, None)
    if place.endswith(" bowl"):
        return _bowl_of(name, end.objects) == place
    if place.endswith(" block") and place in end.objects:
        return place in _under(name, end.objects)
    return None


def not_at_places(end: WorldEnd | None, placed: Mapping[str, str]) -> list[str]:
    """For each object of ``placed`` (name -> the place the user named for it) that does not
    end there in ``end``, one clause saying where it ends (none: each does, or ``end`` cannot
    tell)."""
    if end is None:
        return []
    told = []
    for name, place in placed.items():
        if at_place(end, name, place) is False:
            now = (_household_place(end.objects[name]) if end.kind == "household"
                   else _tabletop_place(name, end.objects))
            told.append(f"{name} ends {now} in the replay, not at {place} where the user wants it")
    return told


def end_difference(replayed: WorldEnd | None, live: WorldEnd | None,
                   differ: list[str] | None = None) -> str | None:
    """One sentence naming the objects that end elsewhere in the replay than in the live
    world (e.g. "the blue block ends on the table at (0.12, -0.45) in the replay, in the blue
    bowl in the live world"), or None if every object the live world knows ends alike (or
    there is nothing to compare: a world missing or of another kind). ``differ``: those
    objects if the caller has them already (:func:`ending_elsewhere`)."""
    differ = ending_elsewhere(replayed, live) if differ is None else differ
    if not differ:
        return None
    if live.kind == "household":
        told = [f"{n} ends {_household_place(replayed.objects[n])} in the replay, "
                f"{_household_place(live.objects[n])} in the live world" for n in differ]
    else:
        told = [f"the {n} ends {_tabletop_place(n, replayed.objects)} in the replay, "
                f"{_tabletop_place(n, live.objects)} in the live world" for n in differ]
    return joined(told)


def joined(told: list[str]) -> str | None:
    """Clauses about objects as one sentence: the first :data:`MAX_NAMED`, the rest counted;
    None for none."""
    if not told:
        return None
    more = len(told) - MAX_NAMED
    return "; ".join(told[:MAX_NAMED]) + (f"; and {more} more object(s)" if more > 0 else "")


__all__ = ["WorldEnd", "end_of", "tabletop_end", "end_difference", "ending_elsewhere",
           "same_place", "at_place", "not_at_places", "joined", "IN_BOWL_RADIUS",
           "XY_TOLERANCE", "Z_TOLERANCE"]

"""A request's place where its things already lie is not a place the user said.

The code computes what the words cannot settle: a request to move things to the surface they
lie on asks for nothing, so a reading that does so named the place from the scene, not from the
words. Measured (issue 44, teach-once bench at 3759864 and f180c4a): "put the banana away",
said with the banana on the kitchen counter, was read ``do: banana -> kitchen counter``, its
lesson ("could you tidy up the banana?", read without a place: the sideboard from now on) had
another shape and was not followed; the robot put the banana back on the counter. Such a
place is left out (the reading's ``-> none``: no place said). The same in a reply for the things
the attempt did not move (measured, household corrections with the built-in pool: "Where is
the sponge? You forgot it." read with the counter the sponge still lay on, so the robot put it
there and not in the user's hand); a thing the attempt moved keeps its place ("that should
stay on the counter" after the robot put it there), and so does every thing of a reply where
what the attempt moved is not known, or of no known place (the tabletop's scene tells
positions, not surfaces).
"""
from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import replace

from .structure import Clause, Reading, names_said

log = logging.getLogger(__name__)


def _in_place(clause: Clause, lying: Mapping[str, str]) -> bool:
    """Whether ``clause`` sends named things to the surface every one of them lies on."""
    names = names_said(clause.objects)
    if not names or clause.where is None or clause.where.how != "named":
        return False
    return all(lying.get(name) == clause.where.name for name in names)


def without_places_in_place(reading: Reading | None, lying: Mapping[str, str],
                            moved: Collection[str] = ()) -> Reading | None:
    """``reading`` with the place left out of each move clause that sends its named things
    where they lie now (``lying``: thing name -> surface name), but for the things of
    ``moved`` (a reply's: what the attempt moved)."""
    if reading is None:
        return reading
    lying = {n: p for n, p in lying.items() if n not in moved}
    if not lying:
        return reading
    changed = reading.with_moves(
        lambda c: replace(c, where=None) if _in_place(c, lying) else c)
    if changed is not reading:
        log.info("%r: a place where its things already lie is not a place said",
                 reading.utterance)
    return changed


__all__ = ["without_places_in_place"]

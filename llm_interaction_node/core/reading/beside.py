"""A thing named as the place a thing goes ("next to the book") means the surface it lies on.

The model reads, the code computes: a household reading may name a thing where a place goes
("put the apple next to the book": ``do: apple -> book``, a ``<where>`` may name the scene's
things, as the tabletop's "cyan block on top of the blue one" must); the robot puts things on
surfaces only, so the code writes the surface the named thing lies on (the scene's ``lying``:
thing -> surface). Measured (household probe of session 62, 28b5575): "put the apple next to
the book" was read ``do: apple -> bookshelf`` and the apple went to the bookshelf. With the
reading prompt as it is, the embedded model named the thing in 3 of 6 such requests (the
remote, the water bottle; the cereal's dining table outright); a reading example that names a
thing as the place (tried, ``docs/eval/reading/tried_thing_as_place_example``) made it 4 of 6
but moved three tabletop readings of the reading bench (140/156, was 141): not kept. Left
alone: a thing that lies on no known surface (held, in the user's hand), a clause that sends
the thing itself (the model's slip: "the milk next to the milk"), and every scene that tells
positions, not surfaces (the tabletop: ``lying`` is empty there, and a block on a block is a
place).
"""
from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace

from .structure import Clause, Reading, Target, names_said

log = logging.getLogger(__name__)


def _surface_of_place(clause: Clause, lying: Mapping[str, str]) -> str | None:
    """The surface the thing ``clause`` names as its place lies on (None: no such thing)."""
    where = clause.where
    if where is None or where.how != "named" or where.name not in lying or \
            where.name in names_said(clause.objects):
        return None
    return lying[where.name]


def things_as_places(reading: Reading | None, lying: Mapping[str, str]) -> Reading | None:
    """``reading`` with each move clause that names a thing as its place sent to the surface
    that thing lies on (``lying``: thing name -> surface name)."""
    if reading is None or not lying:
        return reading

    def on_its_surface(clause: Clause) -> Clause:
        surface = _surface_of_place(clause, lying)
        if surface is None:
            return clause
        log.info("%r: next to the %s is on %s", reading.utterance, clause.where.name, surface)
        return replace(clause, where=Target("named", surface))
    return reading.with_moves(on_its_surface)


__all__ = ["things_as_places"]

"""A reply read against the attempt it answers: "the one you took" is what the robot moved.

A reply is about an attempt: "it should be in the red bowl", "the block you took is in the
wrong place", "wrong cube". Without the attempt in view the 1.5B model named a block for "the
one you took" that the robot never touched (measured on the development pool: 5 of 8 wrong-place
replies named a block, 3 of them another one), and after a bare "wrong cube" invented the one
meant. So the reply prompt shows what the attempt moved (``you moved: red block``), and the
code makes the two ways of saying "the one you moved" one reading (:func:`answering`):

* a ``do`` clause with no objects (``do: none -> red bowl``) is about what the attempt moved,
  where it moved exactly one thing: that thing (named);
* after ``wrong object``, a ``do`` clause that only names what the attempt moved, with no place,
  is dropped: the thing rejected is not the thing meant;
* a ``wrong object`` beside a ``do`` clause that sends only what the attempt moved to a place,
  and no other thing, is dropped: the reading says the thing moved is the one meant, so what
  is wrong is where it went (measured on the development pool at 850a95c: "Wrong spot: in the
  orange bowl, please." read ``wrong object`` and ``do: green block -> orange bowl`` after the
  green block was moved; the correction focus would have taken another block);
* an ``also`` clause comes with what the attempt brought (:func:`oriented`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from .structure import CORRECTIONS, Clause, Reading, Selection, names_said


def _names(clause: Clause) -> set[str] | None:
    return set(names_said(clause.objects)) or None


def answering(reading: Reading, moved: Sequence[str] | None) -> Reading:
    """``reading`` of a reply to an attempt that moved ``moved`` (in order; None: not known,
    the reading is returned as it is), with "the one you moved" said one way (see the
    module)."""
    if moved is None:
        return reading
    moved = list(dict.fromkeys(moved))
    if reading.rejects_choice and moved_elsewhere(reading, moved):
        reading = Reading(reading.utterance,
                          tuple(c for c in reading.clauses if c.kind != "wrong object"))
    clauses: list[Clause] = []
    for clause in reading.clauses:
        if clause.kind == "do":
            names = _names(clause)
            if reading.rejects_choice and clause.where is None and names is not None \
                    and names <= set(moved):
                continue
            if clause.objects is None and len(moved) == 1 and not reading.rejects_choice:
                clause = replace(clause, objects=Selection("named", names=(moved[0],)))
        clauses.append(clause)
    return oriented(Reading(reading.utterance, tuple(clauses)), moved)


def moved_elsewhere(reading: Reading, moved: Sequence[str]) -> bool:
    """Whether the ``do`` clauses of ``reading`` send only things the attempt moved, each to a
    place (at least one such clause; none naming another thing or none)."""
    moves, moved = reading.moves, set(moved)
    return bool(moves) and all(
        c.where is not None and (names := _names(c)) is not None and names <= moved
        for c in moves)


def still_to_do(reading: Reading | None, moves: Sequence[tuple[str, str | None]],
                select: Callable[[Selection], list[str] | None] | None = None) -> list[Clause]:
    """The clauses of a reply that ``moves`` ((object, target) of the API's move log) did not
    do: a wrong object or a retry always; a ``do`` without a place (a complaint: "you forgot
    the milk", "the red block is in the wrong bowl"); a ``do`` to a named place that not every
    one of its objects went to (``select``: the names a selection means in the scene, for
    "every block"; where they are unknown, a move of any object there is enough); a ``do`` to
    the user, a colour's bowl or elsewhere that moved none of its objects. A request to learn
    said with such a clause ("Try once more ... remember") is about an attempt the user has not
    accepted; once a later turn's moves did it, the robot did it the new way."""
    if reading is None:
        return []
    out = list(reading.of_kind(*CORRECTIONS))
    for clause in reading.moves:
        names = _names(clause)
        if names is None and clause.objects is not None and select is not None:
            names = set(select(clause.objects) or ()) or None
        mine = [(o, t) for o, t in moves if names is None or o in names]
        where = clause.where
        if where is None:
            out.append(clause)
        elif where.how == "named":
            there = {o for o, t in mine if t == where.name}
            if not there or (names is not None and not names <= there):
                out.append(clause)
        elif not mine:
            out.append(clause)
    return out


def oriented(reading: Reading | None, moved: Iterable[str]) -> Reading | None:
    """``reading`` with each ``also`` clause the right way round: what it comes with is what
    the robot brought (``moved``), where the model wrote it the other way (measured on the
    teach-once bench: "from now on, bring the sponge along with the cleaning spray", after the
    spray was brought, read as ``also: cleaning spray with kitchen sponge``)."""
    if reading is None:
        return None
    moved = set(moved)
    clauses = []
    for clause in reading.clauses:
        things, with_ = set(names_said(clause.objects)), set(names_said(clause.companion))
        if clause.kind == "also" and things and with_ and not with_ & moved \
                and things <= moved:
            clause = replace(clause, objects=clause.companion, companion=clause.objects)
        clauses.append(clause)
    return Reading(reading.utterance, tuple(clauses))


__all__ = ["answering", "moved_elsewhere", "oriented", "still_to_do"]

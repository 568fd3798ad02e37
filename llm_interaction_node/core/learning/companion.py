"""A lesson to bring one thing along with another, written into the attempt's moves.

"Whenever you bring me the milk, also bring me the juice. Remember that" comes right after the
turn that brought the milk: no attempt ever brought the juice, so neither the accepted attempt
(``final``) nor L_improve's rewrite, checked against a world where the juice never moved, can
be that lesson (measured, issue 44: "Sorry, I did not learn this ... so I stored nothing").
Where the model read the learn request as ``also: <Y> with <X>`` (:mod:`..reading`), the code
writes the plan edit: after each move of X in the attempt, the same call with Y
(:func:`with_companions`: ``bring_object_to('milk-carton_0', 'handover_to_human')`` is followed
by ``bring_object_to('mango-juice_0', 'handover_to_human')``). The learner has the robot do the
added moves first (so the world the lesson is checked against is the world the user asked for),
then stores the lesson; its reading carries the ``also`` clause, so it is followed only where a
request names X (:func:`..memory.meaning.slot_mapping`).
"""
from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from ..reading.attempt import oriented
from ..reading.structure import Reading, names_said
from ..transcript.statements import bare_call
from ..transcript.transcript import Entry
from .transcripts import first_literal, move_key


def companions(reading: Reading | None) -> list[tuple[str, str]]:
    """``(what comes along, what it comes with)`` of each ``also`` clause that names both."""
    out = []
    for clause in reading.of_kind("also") if reading is not None else ():
        for thing in names_said(clause.objects):
            for with_ in names_said(clause.companion):
                if thing != with_:
                    out.append((thing, with_))
    return out


def _with_object(source: str, obj: str) -> str:
    call = bare_call(source)
    call.args = [ast.Constant(obj), *call.args[1:]]
    return ast.unparse(call)


def with_companions(reading: Reading | None, attempt: list[Entry],
                    write_move: Callable[[str, str], str] | None = None,
                    ends: Mapping[str, str] | None = None) -> tuple[list[Entry], tuple[str, ...]]:
    """``attempt`` with a move of each companion after the moves of what it comes with, and
    the sources added: after a one-call move of it (``bring_object_to(X, T)``), the same call
    with the companion; where it went by steps (``grasp(X)`` ... ``handover_object_to_human(X)``),
    after its last step, the API's move function (``write_move(companion, target)``) to where
    it ended (``ends``: object -> its last target in the API's move log). Unchanged where the
    reading asks for no companion, the attempt never moved what it comes with, or moved the
    companion there already."""
    pairs = companions(reading)
    if not pairs:
        return attempt, ()
    done = {" ".join(e.source.split()) for e in attempt}
    out: list[Entry] = []
    added: list[str] = []

    def add(source: str) -> None:
        if " ".join(source.split()) not in done:
            done.add(" ".join(source.split()))
            out.append(Entry(source))
            added.append(source)

    by_call = {with_ for thing, with_ in pairs
               if any((k := move_key(e.source)) is not None and k[1] == with_ for e in attempt)}
    last_step = {with_: max((i for i, e in enumerate(attempt) if first_literal(e.source) == with_),
                            default=None) for _, with_ in pairs}
    for i, entry in enumerate(attempt):
        out.append(entry)
        key = move_key(entry.source)
        for thing, with_ in pairs:
            if key is not None and key[1] == with_:
                add(_with_object(entry.source, thing))
            elif with_ not in by_call and last_step[with_] == i and write_move is not None \
                    and ends and ends.get(with_):
                add(write_move(thing, ends[with_]))
    return out, tuple(added)


__all__ = ["companions", "with_companions", "oriented"]   # oriented: from reading.attempt

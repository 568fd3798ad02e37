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

from ..reading.structure import Reading
from ..statements import bare_call
from ..transcript import Entry
from .transcripts import move_key


def _named(selection) -> tuple[str, ...]:
    return selection.names if selection is not None and selection.how == "named" else ()


def companions(reading: Reading | None) -> list[tuple[str, str]]:
    """``(what comes along, what it comes with)`` of each ``also`` clause that names both."""
    out = []
    for clause in reading.of_kind("also") if reading is not None else ():
        for thing in _named(clause.objects):
            for with_ in _named(clause.companion):
                if thing != with_:
                    out.append((thing, with_))
    return out


def _with_object(source: str, obj: str) -> str:
    call = bare_call(source)
    call.args = [ast.Constant(obj), *call.args[1:]]
    return ast.unparse(call)


def with_companions(reading: Reading | None,
                    attempt: list[Entry]) -> tuple[list[Entry], tuple[str, ...]]:
    """``attempt`` with a move of each companion after the moves of what it comes with (the
    same function and target), and the sources added; unchanged where the reading asks for
    no companion, the attempt never moved what it comes with, or moved the companion there
    already."""
    pairs = companions(reading)
    if not pairs:
        return attempt, ()
    done = {" ".join(e.source.split()) for e in attempt}
    out: list[Entry] = []
    added: list[str] = []
    for entry in attempt:
        out.append(entry)
        key = move_key(entry.source)
        if key is None:
            continue
        for thing, with_ in pairs:
            if key[1] != with_:
                continue
            source = _with_object(entry.source, thing)
            if " ".join(source.split()) not in done:
                done.add(" ".join(source.split()))
                out.append(Entry(source))
                added.append(source)
    return out, tuple(added)


__all__ = ["companions", "with_companions"]

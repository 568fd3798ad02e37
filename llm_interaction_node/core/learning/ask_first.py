"""A lesson to ask the user before taking a thing, written into the attempt.

"Always ask me before you take the juice" comes after a turn that took the juice without a
question: no attempt ever asked, so neither the accepted attempt (``final``) nor, measured on
the teach-once bench, L_improve's rewrite (the wrong shape) is that lesson, and nothing else
wrote one (issue 44: 0 of 2 "ask first" pairs learned). Where the model read the learn request
as ``ask first``, the code writes the plan edit: before the first statement of the attempt
that takes the thing (a call whose first argument is its name: ``grasp('mango-juice_0')``,
``bring_object_to('mango-juice_0', ...)``), ``ask('May I take the mango juice?')``, answered
``'yes'`` (the replay takes the user's answers from the lesson). The thing
is the one the reading names, else each thing the attempt took. The lesson's reading carries
the ``ask first`` clause as its condition (:data:`..memory.meaning.CONDITIONS`): it is followed
where a request names that thing, not for another one.
"""
from __future__ import annotations

from collections.abc import Iterable

from ..reading.structure import Reading, names_said
from ..reading.vocabulary import spoken_form
from ..transcript.transcript import Entry
from .transcripts import first_literal

ASK = "ask({question!r})"
QUESTION = "May I take the {thing}?"
# the user's answer in the lesson: it shows the question answered and lets the replay go on
ANSWER = "yes"


def asks_first(reading: Reading | None) -> bool:
    return reading is not None and "ask first" in reading.kinds


def with_asks(reading: Reading | None, attempt: list[Entry],
              things: Iterable[str] = ()) -> tuple[list[Entry], tuple[str, ...]]:
    """``attempt`` with a question before it first takes each thing the lesson is about (the
    things ``reading`` names, else ``things``: what the attempt moved), and the things asked
    about; unchanged where ``reading`` is no ``ask first`` or the attempt asks already."""
    if not asks_first(reading) or any(e.calls("ask") for e in attempt):
        return attempt, ()
    named = {n for c in reading.clauses for n in names_said(c.objects)}
    about = named or set(things)
    edited, asked = [], []
    for entry in attempt:
        thing = first_literal(entry.source) if not entry.is_comment else None
        if thing in about and thing not in asked:
            edited.append(Entry(ASK.format(question=QUESTION.format(thing=spoken_form(thing))),
                                repr(ANSWER)))
            asked.append(thing)
        edited.append(entry)
    return edited, tuple(asked)


__all__ = ["asks_first", "with_asks", "QUESTION"]

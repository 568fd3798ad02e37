"""Following a lesson: the request the user taught, asked again, is done the taught way.

A lesson is an example in the prompt; the paper's model copies it. Measured (issue 30,
session 40, embedded 1.5B model): with the nearest lesson shown in the request's own words
(:mod:`..memory.adapt`: "put the blocks in the yellow bowl", a loop over every block), the
model still put one block, the yellow one, and handed back. So where the nearest lesson's
request is the request at hand (its words, after the names were adapted) and the lesson's
statements can run here (every name it says is in the scene or a place of the API, and it
chose no object by name: :func:`..memory.adapt.chooses_by_name`), the first turn of the task
is decoded under a grammar that requires the lesson's next statement (``agent.follow_lessons``).
It stops at the first statement that differs (an error, a note) and after the first turn:
a correction is answered freely, and the user's words after it may teach the lesson anew.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..memory.adapt import chooses_by_name, lesson_names, words
from ..transcript.transcript import PS2, Entry, Transcript

WAIT = "wait_for_trigger()"


@dataclass(frozen=True)
class LessonPlan:
    """The inputs of a lesson after its request, up to and including its hand-back."""

    request: str
    statements: tuple[str, ...]

    def next_after(self, done: Sequence[str]) -> str | None:
        """The statement to write after ``done`` (the turn's inputs so far, comments left
        out), or None where ``done`` left the plan or finished it."""
        done = [_normal(s) for s in done]
        plan = [_normal(s) for s in self.statements]
        if len(done) >= len(plan) or plan[:len(done)] != done:
            return None
        return self.statements[len(done)]

    def rest_after(self, done: Sequence[str]) -> tuple[str, ...] | None:
        """The plan's statements after ``done`` (the turn's inputs so far, the one about to
        run included), or None where ``done`` left the plan."""
        normal = [_normal(s) for s in done]
        plan = [_normal(s) for s in self.statements]
        if len(normal) > len(plan) or plan[:len(normal)] != normal:
            return None
        return self.statements[len(normal):]


def plan_of(lesson: str, request: str, known: Iterable[str]) -> LessonPlan | None:
    """The plan of ``lesson`` (a transcript as the prompt shows it) for ``request``, or None
    where its request is another or its statements cannot run here (see the module)."""
    transcript = Transcript.parse(lesson)
    said = transcript.user_utterances()
    if not said or words(said[0]) != words(request):
        return None
    literals, listed = lesson_names(transcript)
    named = {n for n in literals if n in listed or " " in n}     # not 'block' of a filter
    if chooses_by_name(said[0], literals, listed) or not named <= set(known):
        return None
    entries = transcript.entries
    start = next(i for i, e in enumerate(entries) if e.calls("wait_for_trigger") and e.output)
    statements: list[str] = []
    for entry in entries[start + 1:]:
        if entry.is_comment:
            continue
        statements.append(entry.source)
        if Entry(entry.source).calls("wait_for_trigger"):
            break
    if not statements or statements[-1].strip() != WAIT:
        return None
    return LessonPlan(request, tuple(statements))


def as_typed(source: str) -> str:
    """A statement as the model writes it after ``>>> `` (continuation lines after ``... ``)."""
    return source.replace("\n", "\n" + PS2)


def _normal(source: str) -> str:
    """Whitespace-normalised (the turn records a block as one line)."""
    return " ".join(source.split())


__all__ = ["LessonPlan", "plan_of", "as_typed"]

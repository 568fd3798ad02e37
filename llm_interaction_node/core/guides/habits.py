"""The habits the user taught, applied by the code before each statement runs.

A habit is an edit of the program under a condition (core/reading/edit.py), stored as a lesson
of source ``habit`` (core/learning/habit.py). The model never sees it as an example to copy:
measured (issue 59), a warning taught for one handover and shown as an example was then said at
every handover, and a step taught after a handover was never done in a new process. Here the
code applies every habit whose condition holds for the call about to run (its skill, its thing
- a name, a kind the model judges, any thing, the held thing - and its place): the statements
an edit adds run as console inputs of their own that the model sees (as a drive the code adds
before a grasp, :mod:`.where_it_lies`), a changed argument is written into the call, a refused
call does not run and the robot says why.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..reading.edit import ACTS, Applied, Call, Edit, Facts, apply, at_request_end

log = logging.getLogger(__name__)

REFUSED_NOTE = "not run: {source} (a habit the user taught: {why})"
SAY_REFUSED = "I will not do that: you told me {why}."


@dataclass
class Habits:
    """``load()``: the edits taught so far (the memory's habit lessons); ``facts()``: what the
    robot holds and whether a thing is of a kind, now. Loaded again at each new turn
    (:meth:`refresh`), so a habit stored in this process holds from the next turn on."""

    load: Callable[[], list[Edit]]
    facts: Callable[[], Facts] = Facts
    edits: list[Edit] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._ended: object = None

    def refresh(self) -> None:
        try:
            edits = list(self.load())
        except Exception as exc:  # noqa: BLE001 - the memory is down: the habits known so far
            log.warning("the habits could not be loaded (%s): the %d known are kept",
                        exc, len(self.edits))
            return
        with self._lock:
            if len(edits) != len(self.edits):
                log.info("%d habit(s) taught: %s", len(edits),
                         "; ".join(e.in_words() for e in edits))
            self.edits = edits

    def for_statement(self, source: str) -> Applied:
        """What runs for ``source`` under the habits (itself where none holds)."""
        with self._lock:
            edits = list(self.edits)
        if not edits or Call.of(source) is None:
            return Applied(source)
        applied = apply(edits, source, self.facts())
        if applied.changed:
            log.info("habits applied to %s: %s", " ".join(source.split())[:120],
                     "; ".join(e.in_words() for e in applied.edits))
        return applied

    def at_end(self, task: object, statements: Iterable[str]) -> list[str]:
        """The statements to run before the hand-back of task ``task`` whose turn ran
        ``statements``, once per task, where the robot acted in it."""
        with self._lock:
            edits = list(self.edits)
            if self._ended == task:
                return []
        acted = any((c := Call.of(s)) is not None and c.skill in ACTS for s in statements)
        out = at_request_end(edits, acted)
        if out:
            with self._lock:
                self._ended = task
        return out


def refused_note(source: str, applied: Applied) -> str:
    return REFUSED_NOTE.format(source=" ".join(source.split()), why=applied.refused)


__all__ = ["Habits", "refused_note", "SAY_REFUSED"]

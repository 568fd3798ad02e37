"""What a learn request did: the lesson, the status, the console's message, what was said.

Shared by the learner and the modes it dispatches to (:data:`.learner.STORES`), so that each
mode, in a module of its own, builds its lesson and outcome without the learner module.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .gate import GateDecision
from .improve_result import ImproveResult

# What the user hears when a lesson does not survive the replay check (one sentence each).
SAY_REPLAY_FAILED = ("Sorry, I did not learn this: when I tried the better way in my simulation "
                     "it did not work out as written, so I stored nothing.")
SAY_END_DIFFERS = ("Sorry, I did not learn this: when I did it again in my simulation from the "
                   "start, things did not end up the way you accepted them, so I stored nothing.")

SAY_ONLY_THE_NAME = ("Sorry, I did not learn this: my lesson would only name the object you "
                     "chose this time, not how to choose it, so I stored nothing.")


# who wrote a lesson's program (issue 43: report how many the model wrote)
AUTHORS = {"model": "the model's rewrite (L_improve)",
           "attempt": "the accepted attempt, as it ran",
           "reading": "the code, from the reading of the request",
           "interaction": "the interaction as it was (mode raw)",
           "corrections": "the request, what worked and the corrections (mode corrected)",
           "edit": "the code, from the model's reading of a habit as an edit"}


@dataclass
class Lesson:
    """What a learn request stores: what the learner passes to memory.add (``source`` is the
    memory's label, e.g. "learned", "final"), and (``example``) what memory.add returned."""

    transcript: str
    source: str
    origin: str
    problem: str | None = None
    improvement: str | None = None
    example: Any = None
    id: str | None = None    # the example id it gets, once kept for later (learning/outbox.py)
    reading: str | None = None   # the reading of its request (reading/record.py JSON)
    author: str | None = None    # who wrote its program: AUTHORS
    scope: str | None = None     # "rule" / "scene" (learning/scenes_check.py); None: not judged
    edit: str | None = None      # a habit: its edit (reading/edit.py JSON)


class LearnStatus(StrEnum):
    """What a call of the learner did."""

    LEARNED = "learned"            # L_improve's rewrite was stored
    STORED_RAW = "stored_raw"      # the interaction itself was stored (mode raw)
    STORED_CORRECTED = "stored_corrected"   # request + what worked + corrections (corrected)
    STORED_FINAL = "stored_final"   # request + the accepted attempt, replayed (final, auto)
    STORED_HABIT = "stored_habit"   # an edit of the program under a condition (learning/habit.py)
    REFUSED = "refused"            # not right after an explicit request (the gate)
    ALREADY_LEARNED = "already_learned"
    DISABLED = "disabled"          # mode off
    NOTHING_TO_LEARN = "nothing_to_learn"   # empty interaction, no problem, unchanged, invalid
    REPLAY_FAILED = "replay_failed"  # the example's outputs are not what the world returns
    WRONG_SHAPE = "wrong_shape"    # the rewrite does not do the request the new way at once
    LLM_FAILED = "llm_failed"
    STORE_FAILED = "store_failed"
    STORE_DEFERRED = "store_deferred"      # memory unreachable: kept in pending, retried


STORED_STATUSES = (LearnStatus.LEARNED, LearnStatus.STORED_RAW, LearnStatus.STORED_CORRECTED,
                   LearnStatus.STORED_FINAL, LearnStatus.STORED_HABIT)


@dataclass
class LearnOutcome:
    """The typed result of one learn request; ``message`` is what the console prints (the
    LLM reads it), ``example`` what the memory stored for the lesson (None if nothing was)."""

    status: LearnStatus
    message: str
    example: Any = None
    gate: GateDecision | None = None
    improve: ImproveResult | None = None

    @property
    def stored(self) -> bool:
        return self.status in STORED_STATUSES


__all__ = ["AUTHORS", "Lesson", "LearnStatus", "LearnOutcome", "STORED_STATUSES",
           "SAY_REPLAY_FAILED", "SAY_END_DIFFERS"]

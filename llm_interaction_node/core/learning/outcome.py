"""What a learn request did: the status, the console's message, what was stored.

Shared by the learner and the modes it dispatches to (:data:`.learner.STORES`), so that a
mode in a module of its own (:mod:`.auto`) builds its outcome without the learner module.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .gate import GateDecision
from .improve import ImproveResult


@dataclass
class LearnedExample:
    """One example the learner stored: what it passed to memory.add, and (``example``)
    what memory.add returned."""

    transcript: str
    source: str
    origin: str
    problem: str | None = None
    improvement: str | None = None
    example: Any = None


class LearnStatus(StrEnum):
    """What a call of the learner did."""

    LEARNED = "learned"            # an improved example was stored (L_improve)
    STORED_RAW = "stored_raw"      # the interaction itself was stored (mode raw)
    STORED_CORRECTED = "stored_corrected"   # request + what worked + corrections (corrected)
    STORED_FINAL = "stored_final"   # request + the accepted attempt, replayed (final, auto)
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
                   LearnStatus.STORED_FINAL)


@dataclass
class LearnOutcome:
    """The typed result of one learn request; ``message`` is what the console prints (the
    LLM reads it), ``example`` what the memory stored (None if nothing was)."""

    status: LearnStatus
    message: str
    example: Any = None
    gate: GateDecision | None = None
    improve: ImproveResult | None = None

    @property
    def stored(self) -> bool:
        return self.status in STORED_STATUSES


__all__ = ["LearnedExample", "LearnStatus", "LearnOutcome", "STORED_STATUSES"]

"""What L_improve did (:func:`.improve.improve`): its status and result, below improve.py and
the learn outcome (outcome.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..llm.usage import Usage


@dataclass
class Improvement:
    problem: str
    improvement: str
    transcript: str


class ImproveStatus(StrEnum):
    """What L_improve did (:attr:`ImproveResult.status`)."""

    IMPROVED = "improved"
    NO_PROBLEM = "no_problem"
    UNCHANGED = "unchanged"
    INVALID = "invalid"
    WRONG_SHAPE = "wrong_shape"         # not the request done the new way in the first turn
    REPLAY_FAILED = "replay_failed"     # outputs differ from the world's, also after the re-ask
    LLM_FAILED = "llm_error"
    EMPTY = "empty"


@dataclass
class ImproveResult:
    """What L_improve did. ``reason`` is a sentence a user can be told."""

    status: ImproveStatus
    reason: str = ""
    improvement: Improvement | None = None
    problem: str | None = None
    suggestion: str | None = None          # the answer to question 2
    answers: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    error: BaseException | None = None     # the LLMError, for status 'llm_error'

    @property
    def ok(self) -> bool:
        return self.improvement is not None

"""Comments in a row (``agent.comments_in_a_row``; 0: no limit): after this many console inputs
in a row that are comments only, the grammar lets the next input be a statement only (the
console's notes count: after one, the model acts; ``Constraint.comment_allowed``). Measured:
the 1.5B model wrote 6 to 12 comments in a row after a failed move, variations on "failure"
is a signal ..., until the statement cap."""
from __future__ import annotations

import logging

from ..decoding.constraint import ConsoleVocabulary
from .state import Guidance, GuideState

log = logging.getLogger(__name__)


def comment_allowed(state: GuideState) -> bool:
    """Whether the next input may be a comment: fewer than ``comments_in_a_row`` of the
    last inputs are comments only (the console's notes count: after one, the model acts)."""
    limit = state.config.comments_in_a_row
    last = state.console.transcript.entries[-limit:]
    if len(last) < limit or not all(e.is_comment for e in last):
        return True
    log.info("%d comments in a row: the grammar lets the next input be a statement only",
             limit)
    return False


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance:
    return Guidance(comment_allowed=comment_allowed(state))

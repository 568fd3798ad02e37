"""How a user turn ended: :class:`TurnStatus`, :data:`FAILED_STATUSES` and the
:class:`TurnRecord` the agent keeps per turn."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..llm import Usage


class TurnStatus(StrEnum):
    """How a user turn ended (a str, so records serialise as plain text)."""

    WAITING = "waiting"              # the LLM handed back with wait_for_trigger()
    ERROR = "error"                  # an error budget was spent or the LLM failed
    STATEMENT_CAP = "statement_cap"  # the statement cap of one turn was reached (an error)
    LOOP_RESET = "loop_reset"        # a second loop: reset, sorry, handed back (no error)
    RESET = "reset"                  # a reset request started a fresh task
    STOPPED = "stopped"              # a stop request ended the turn


# the turns that end a round as a failure whatever the world shows (the reference: the run
# errors); a loop reset hands back normally and the world is judged
FAILED_STATUSES = frozenset({TurnStatus.ERROR, TurnStatus.STATEMENT_CAP})


@dataclass
class TurnRecord:
    """How a user turn ended, with what it cost; ``discarded``: the transcript a reset
    threw away (rendered), so a record of the run can still show what happened."""

    status: TurnStatus
    reason: str = ""
    statements: int = 0
    usage: Usage = field(default_factory=Usage)
    discarded: str = ""

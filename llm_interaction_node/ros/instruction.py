"""One request sent as an Instruct action goal, from its words to its outcome (no rclpy here).

An :class:`Instruction` is what the interaction node keeps of one goal while the robot acts on
it: what the robot said, the console entries of its turn (the transcript), the lessons in its
prompt and the lesson stored while it ran; :func:`outcome_of` turns the way the agent's turn
ended (:class:`~..core.agent.records.TurnRecord`) into the action's outcome in words;
:func:`refusal` says why words are no request at all. :class:`InstructSettings` is the node's
``instruct.*`` parameters. The ROS side (action server, Answer service, feedback) is
:mod:`.instruct_server`.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Literal

from ..core.agent.records import TurnRecord, TurnStatus
from ..core.settings.config import setting

DONE, FAILED, STOPPED, REFUSED = "done", "failed", "stopped", "refused"
READING, ACTING, ASKING, LEARNING = "reading", "acting", "asking", "learning"
WhenBusy = Literal["queue", "reject"]

EMPTY = "the request is empty: say what the robot should do"
NO_WORDS = "the request has no words (only {what}): say what the robot should do"
BUSY = ("the robot was busy with another request, and instruct.when_busy is 'reject': "
        "send it again when the robot is idle")
CANCELLED_QUEUED = "cancelled before the robot started on it"
SHUTDOWN = "the interaction node shut down before the request ended"
AGENT_FAILED = "the agent failed while it acted on the request (see the node's log)"


@dataclass
class InstructSettings:
    """``instruct.*``: the Instruct action (other nodes instruct the robot)."""

    when_busy: WhenBusy = setting("queue", "a goal that comes while the robot acts on another "
                                  "request: queue (it waits its turn, as speech does) | "
                                  "reject (refused at once, said in the result)")


def refusal(text: str) -> str | None:
    """Why ``text`` (cleaned as the node cleans speech) is no request, or None: empty, or
    without a single letter or digit (punctuation, symbols, control characters)."""
    if not text.strip():
        return EMPTY
    if not any(ch.isalnum() for ch in text):
        shown = text if len(text) <= 40 else text[:40] + "..."
        return NO_WORDS.format(what=repr(shown))
    return None


def outcome_of(records: list[TurnRecord]) -> tuple[str, str]:
    """The outcome and its reason from the turns recorded while the request ran (the last
    one counts): handed back -> done; a stop -> stopped; a reset -> stopped; an error, the
    statement cap or a second loop -> failed; none (the agent failed) -> failed."""
    if not records:
        return FAILED, AGENT_FAILED
    last = records[-1]
    if last.status is TurnStatus.WAITING:
        return DONE, "the robot acted on the request and handed back"
    if last.status is TurnStatus.STOPPED:
        return STOPPED, f"stopped: {last.reason or 'stop requested'}"
    if last.status is TurnStatus.RESET:
        return STOPPED, f"the interaction was reset: {last.reason or 'reset requested'}"
    if last.status is TurnStatus.LOOP_RESET:
        return FAILED, f"the robot repeated itself and started over: {last.reason}"
    if last.status is TurnStatus.STATEMENT_CAP:
        return FAILED, f"the robot gave up: {last.reason}"
    return FAILED, f"the robot gave up: {last.reason}" if last.reason else AGENT_FAILED


@dataclass(eq=False)
class Instruction:
    """One goal's request and what happened to it. ``key`` identifies the goal (its UUID
    bytes); ``handle`` is the ROS goal handle (opaque here). Written by the agent's worker
    thread and the server's callbacks under the server's lock; :attr:`finished` is set once
    :attr:`outcome` is."""

    key: bytes
    text: str
    speaker_id: str = ""
    handle: object = None
    queued: bool = False            # it waited behind other requests
    started: bool = False           # the worker took it (the goal executes)
    cancel_requested: bool = False
    stop_honoured: bool = False     # the turn ended by a stop (its `# stopped:` note came)
    asking: str | None = None       # the question waiting for an answer
    turns_before: int = 0           # the agent's turn records when it started
    outcomes_before: int = 0        # the learner's outcomes when it started
    said: list[str] = field(default_factory=list)
    entries: list[str] = field(default_factory=list)     # rendered console entries
    lessons_used: list[str] = field(default_factory=list)
    lesson_stored: str = ""
    outcome: str = ""
    reason: str = ""
    finished: threading.Event = field(default_factory=threading.Event)

    def finish(self, outcome: str, reason: str) -> bool:
        """Set the outcome once; False if it was set already."""
        if self.finished.is_set():
            return False
        self.outcome, self.reason = outcome, reason
        self.finished.set()
        return True

    @property
    def transcript(self) -> str:
        return "\n".join(self.entries)


__all__ = ["Instruction", "InstructSettings", "refusal", "outcome_of", "DONE", "FAILED",
           "STOPPED", "REFUSED", "READING", "ACTING", "ASKING", "LEARNING"]

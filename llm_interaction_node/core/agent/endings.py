"""How a user turn ends: handed back (:meth:`Endings._wait`), given up with an apology
(an error budget spent, the statement cap), after a loop (the first noted and not run, the
second resets the interaction), after a stop or a reset; each recorded as a
:class:`~.records.TurnRecord`."""
from __future__ import annotations

import logging
import threading

from ..console.session import ConsoleSession
from ..guides.calls import WAIT
from ..llm import TokenLedger, Usage
from ..transcript.errors import InteractionAborted
from ..transcript.notes import GIVING_UP, LOOP_NOTE
from ..transcript.notes import STOPPED as STOPPED_NOTE
from ..transcript.transcript import Entry
from ..user.interrupt import StopSignal
from .limits import TurnState
from .records import TurnRecord, TurnStatus

log = logging.getLogger(__name__)

SORRY = "I'm sorry, I don't know how to proceed with this."
STOPPED = "Okay, I stopped."


class Endings:
    """The turn-ending part of :class:`~.loop.Agent` (its state is the agent's)."""

    console: ConsoleSession
    stop: StopSignal
    ledger: TokenLedger
    speaks: bool
    turn: TurnState
    turns: list[TurnRecord]
    _turn_usage: Usage
    _loop_intervention: bool
    _reset_requested: threading.Event

    def _after_abort(self, exc: InteractionAborted) -> None:
        """End the turn after a stop (say so) or a reset (fresh task); a further stop
        while doing that starts this over instead of escaping the loop."""
        while True:
            reason = str(exc) or "stop requested"
            self.stop.clear()
            try:
                if self._reset_requested.is_set():
                    self._reset_taken()
                    log.info("interaction reset: %s", reason)
                    discarded = self._reset_interaction()
                    self._record_turn(TurnStatus.RESET, reason, discarded)
                    self._forget_interaction()
                    self._wait()
                else:
                    log.info("turn stopped: %s", reason)
                    self.console.annotate(STOPPED_NOTE + reason)
                    self._end_turn(TurnStatus.STOPPED, reason, say=STOPPED)
                return
            except InteractionAborted as again:
                exc = again

    def _reset_taken(self) -> None:
        """The requested reset takes effect: what the user said since it was requested,
        held in the channel (:meth:`~.loop.Agent.request_reset`), is for the next wait."""
        self._reset_requested.clear()
        release = getattr(self.console.builtins.channel, "release", None)
        if release is not None:
            release()

    def _on_loop(self, source: str) -> None:
        if Entry(source).is_comment:
            # a repeated comment does nothing: not run, noted once, and never the loop that
            # resets the interaction (measured: after a correction the model wrote the same
            # comment three times, then repeated its right move, and the second loop reset
            # the interaction the user was about to ask to learn)
            self.turn.record_statement(source)
            self.turn.comment_loops += 1
            if self.turn.comment_loops == 1:
                log.info("a comment repeated: noted, not counted as the turn's loop")
                self.console.annotate(LOOP_NOTE)
            return
        self.turn.loops += 1
        if self.turn.loops == 1:
            log.info("loop detected, adding the loop-prevention example: %s", source)
            self._loop_intervention = True
            self.turn.record_statement(source)
            # a small model follows the transcript more than an example: say it there too
            self.console.annotate(LOOP_NOTE)
            return
        log.info("second loop in one turn: resetting the interaction")
        discarded = self._reset_interaction()
        self._end_turn(TurnStatus.LOOP_RESET, "the same statement was repeated again",
                       say=SORRY, discarded=discarded)

    def _reset_interaction(self) -> str:
        """Fresh locals and transcript (with the new-task marker); the old transcript."""
        discarded = self.console.transcript.render()
        self.console.new_task(marker=True)
        self.ledger.new_interaction()
        self._forget_task()
        return discarded

    def _give_up(self, reason: str, status: TurnStatus = TurnStatus.ERROR) -> None:
        log.info("turn ends with an error: %s", reason)
        self.console.annotate(GIVING_UP + reason)
        self._end_turn(status, reason, say=SORRY)

    def _end_turn(self, status: TurnStatus, reason: str, say: str | None = None,
                  discarded: str = "") -> None:
        if say and self.speaks:
            # the robot's own closing sentence, never refused for the speech the model spent
            self.console.builtins.new_speech_turn()
            self.console.execute(f"say({say!r})")
        self._record_turn(status, reason, discarded)
        self._wait()

    def _record_turn(self, status: TurnStatus, reason: str = "", discarded: str = "") -> None:
        self.turns.append(TurnRecord(status, reason, len(self.turn.statements), self._turn_usage,
                                     discarded))

    def _wait(self) -> None:
        self._prepare_next_request()
        if self.console.execute(WAIT).new_turn:
            self._new_turn()


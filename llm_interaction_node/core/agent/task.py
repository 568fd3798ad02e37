"""The agent's memory of the task at hand and its turns: what a new user turn takes over (the
attempt the user answered and its moves, the utterance and its reading, the program for an
asked hand, the hold on a request to learn), and what a new task or a reset forgets."""
from __future__ import annotations

import logging
import threading

from ..console.session import ConsoleSession
from ..decoding import claims
from ..decoding.lesson_follow import LessonPlan
from ..guides.hands import plan as hand_change_plan
from ..guides.learn import learn_waits_now
from ..guides.repeat import actions
from ..llm import Usage
from ..reading import Reading
from ..reading.select import Scene
from ..transcript.errors import BlockedError
from ..user.interrupt import StopSignal
from .config import AgentConfig
from .limits import TurnState

log = logging.getLogger(__name__)


class TaskMemory:
    """The task memory part of :class:`~.loop.Agent` (its state is the agent's)."""

    config: AgentConfig
    console: ConsoleSession
    stop: StopSignal
    turn: TurnState
    _turn_usage: Usage
    _loop_intervention: bool
    _examples_cache: tuple[int, list[str]]
    answered: list[str]
    attempt_moves: list[tuple[str, str | None]]
    task_moves: list[tuple[str, str | None]]
    moves_seen: int
    task_utterances: list[str]
    readings: list[Reading | None]
    request_scene: Scene | None
    learn_waits: bool
    learn_held: bool
    learn_now: bool
    restated: bool
    blocked: BlockedError | None
    turn_failed: bool
    hand_change: LessonPlan | None
    report: claims.Report | None
    _reset_requested: threading.Event

    def _new_turn(self) -> None:
        if not self._reset_requested.is_set():
            self.stop.clear()      # a stop pressed while idle does not abort the new turn
        self.answered = actions(self, self.turn.statements)
        moves = self.move_log()
        self.attempt_moves, self.moves_seen = moves[self.moves_seen:], len(moves)
        self.task_moves = self.task_moves + self.attempt_moves
        utterances = self.console.builtins.utterances
        self._await_warm_up()
        if utterances:
            self.task_utterances.append(str(utterances[-1]))
            self.readings.append(self._read(str(utterances[-1])))
        self.hand_change = hand_change_plan(self)
        if self.habits is not None:     # a habit stored in the last turn holds now; a stop
            self.stop.call(self.habits.refresh)     # never waits for a frozen memory
        # the latest reading (a reply is the latest) against this turn's attempt, once a turn
        self.learn_held = learn_waits_now(self, self.latest_reading())
        if utterances:
            self._learn_when_accepted(self.reply_reading())
        self.restated = False
        self.turn_failed = False
        self.report = None                  # the user spoke: what was reported is answered
        self.turn = TurnState(self.config)
        self._turn_usage = Usage()
        self._loop_intervention = False

    def _learn_when_accepted(self, reply: Reading | None) -> None:
        """Keep a request to learn that came with a change still to make
        (:attr:`learn_held`, judged once per turn in :meth:`_new_turn`: it reads the scene);
        the reply that accepts the next attempt (read as approval) then asks for it (the
        learner's gate honours it: :func:`..learning.gate.accepts`)."""
        self.learn_now = False
        if reply is None:
            return
        if self.learn_held:
            log.info("the user asks to learn, and for a change first: learned when accepted")
            self.learn_waits = True
        elif self.learn_waits and reply.closes:
            self.learn_waits, self.learn_now = False, True

    def _forget_task(self) -> None:
        """Nothing of the last task is answered, restated or refused in the next one."""
        self.answered = []
        self.attempt_moves = []
        self.task_moves = []
        self.moves_seen = len(self.move_log())
        self.task_utterances = []
        self.readings = []
        self.request_scene = None
        self.learn_waits = self.learn_held = self.learn_now = False
        self.restated = False
        self.report = None

    def _forget_interaction(self) -> None:
        """A reset forgets all of the interaction (issue 27): the attempt the user answered
        (else the new request's first statement is refused as its repeat), the turn's
        counters and notes, the user's utterances (the retrieval query, the learner)."""
        self.answered = []
        self.turn = TurnState(self.config)
        self._turn_usage = Usage()
        self._loop_intervention = False
        self._examples_cache = (-1, [])
        self.console.builtins.utterances.clear()
        self._forget_task()

"""The interaction loop (L_interact): ask the LLM for a statement, run it, repeat.

Each LLM call sees the prompt built from the examples and the transcript so far and
returns (usually) one statement; it runs in the console at once and its output becomes
part of the next prompt. A user turn ends when ``wait_for_trigger()`` blocks for the
next utterance. Budgets, loop detection and the statement cap (see :mod:`.limits`) make
sure a confused LLM ends its turn with a clear message instead of running forever.

The reference method's rules: an empty answer is asked again with the temperature raised by
0.1 up to 1.0, then ``wait_for_trigger()`` stands in for it; the first loop of a turn is not
run (a note and the loop-prevention example take its place), a second loop resets the
interaction, says sorry and hands back normally (``TurnStatus.LOOP_RESET``, not an error; the
transcript before the reset stays in the turn's record); a function that a statement calls
and nobody defined is written by :mod:`.fgen` and defined in the console first.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from ..console.prompt import PromptBuilder
from ..console.session import ConsoleSession
from ..decoding import claims
from ..decoding.lesson_follow import LessonPlan
from ..guides.as_asked import as_asked
from ..guides.as_read import as_read
from ..guides.habits import SAY_REFUSED, Habits, refused_note
from ..guides.put_as_read import put_as_read
from ..guides.where_it_lies import drive_before, where_it_lies
from ..llm import LLMClient, LLMError, TokenLedger, Usage
from ..llm.warmup import Warmup
from ..reading import Reader, Reading
from ..reading.select import Scene
from ..transcript.errors import BlockedError, EndOfInteraction, InteractionAborted
from ..transcript.notes import LLM_FAILED
from ..transcript.transcript import Entry
from ..user.interrupt import StopSignal
from .config import AgentConfig
from .endings import Endings
from .fgen import FunctionGenerator, load_fgen_prompt
from .generate import BudgetSpent, Generation
from .limits import TurnState, error_class
from .prefill import ExampleSource, Prefill
from .readings import Readings
from .records import TurnRecord, TurnStatus
from .task import TaskMemory

log = logging.getLogger(__name__)


class Agent(Generation, Endings, TaskMemory, Readings, Prefill):
    """The interaction loop; its parts by concept: :class:`~.generate.Generation` (one LLM
    call, with the decoding guides' grammar: :mod:`..guides`), :class:`~.endings.Endings`
    (how a turn ends), :class:`~.task.TaskMemory` (what a turn takes over, what a reset
    forgets), :class:`~.readings.Readings` (the readings of the user's words) and
    :class:`~.prefill.Prefill` (the examples and the prefills of a stateful LLM)."""

    def __init__(self, llm: LLMClient, console: ConsoleSession, prompt: PromptBuilder,
                 examples: ExampleSource | Sequence[str] = (), loop_example: str = "",
                 ledger: TokenLedger | None = None, config: AgentConfig | None = None,
                 stop: StopSignal | None = None, fgen: FunctionGenerator | None = None,
                 speaks: bool = True, reader: Reader | None = None,
                 habits: Habits | None = None):
        self.llm = llm
        self.habits = habits                 # the habits taught, applied before each statement
        self.reader = reader                 # reads each user utterance (None: no readings)
        self.speaks = speaks                 # the API set has say(); without, give up silently
        self.stop = stop or StopSignal()
        self.console = console
        self.prompt = prompt
        self._examples = examples if callable(examples) else (lambda _u, e=list(examples): e)
        self.loop_example = loop_example
        self.ledger = ledger or TokenLedger()
        self.config = config or AgentConfig()
        self.turns: list[TurnRecord] = []
        self.turn = TurnState(self.config)
        self._turn_usage = Usage()
        self._examples_cache: tuple[int, list[str]] = (-1, [])
        self._head: list[str] | None = None    # the query-independent examples last prefilled
        self._loop_intervention = False
        self.answered: list[str] = []       # the attempt the user's last utterance answered
        self.attempt_moves: list[tuple[str, str | None]] = []    # its moves (the API's log)
        self.moves_seen = 0                 # moves in the API's log before this turn
        self.task_moves: list[tuple[str, str | None]] = []    # every move of this task so far
        self.task_utterances: list[str] = []    # what the user said in this task
        self.readings: list[Reading | None] = []     # ... as the model read it (core/reading)
        self.request_scene: Scene | None = None      # the scene the task's request was said in
        # a request to learn said with a change still to make waits until the user accepts
        self.learn_waits = False            # asked, with the attempt not accepted yet
        self.learn_held = False             # ... by this turn's latest reading (guides/learn.py)
        self.learn_now = False              # this reply accepts what was asked to be learned
        self.restated = False
        self.blocked: BlockedError | None = None    # the last input's refusal, if it was that
        self.turn_failed = False            # an input of this turn failed: no lesson followed
        self.hand_change: LessonPlan | None = None    # the code's program for an asked hand
        # what the console reported did not happen, which say() must keep to
        # (core/decoding/claims.py)
        self.report: claims.Report | None = None
        self._reset_requested = threading.Event()
        if fgen is None and self.config.function_generation:
            fgen = FunctionGenerator(llm, prompt.api_listing, load_fgen_prompt(), self.ledger,
                                     check=console.sandbox.prepare, call=self.stop.call,
                                     max_tokens=self.llm.config.max_tokens)
        self.fgen = fgen
        # the start-up prefill running in the background (core/llm/warmup.py; the ROS node's):
        # a request waits for it before it is read; None: run() prefills before it listens
        self.warmup: Warmup | None = None

    # -- public -----------------------------------------------------------------------
    def run(self) -> None:
        """Run until the user channel ends (EndOfInteraction). Without a background
        :attr:`warmup` the start-up prefill (:meth:`warm_up_steps`) runs here first."""
        try:
            if self.warmup is None:
                try:
                    for _what, step in self.warm_up_steps(self.stop.call):
                        step()
                except InteractionAborted:
                    self.stop.clear()
                    if self._reset_requested.is_set():
                        self._reset_taken()     # no task yet: nothing else to forget
            if not self.console.transcript.statements():
                try:
                    self.start_task(marker=False)
                except InteractionAborted as exc:
                    self._after_abort(exc)
            while True:
                self.step()
        except EndOfInteraction:
            log.info("interaction ended")

    def request_reset(self, reason: str = "reset requested") -> None:
        """From any thread: end the current task (running or waiting) and start a fresh one;
        utterances still waiting in the user channel belong to the old one and are dropped
        (where the channel can: ``discard_pending``). What is said after this returns waits
        in the channel (``hold``) until the reset took effect (:meth:`_reset_taken`): the
        old interaction's pending wait_for_trigger() never takes it."""
        self._reset_requested.set()
        hold = getattr(self.console.builtins.channel, "hold", None)
        if hold is not None:
            hold()
        discard = getattr(self.console.builtins.channel, "discard_pending", None)
        if discard is not None:
            discard()
        self.stop.request(reason, idle=True)

    def start_task(self, marker: bool = True) -> None:
        """Fresh locals and transcript, then wait for the user's first request."""
        self.console.new_task(marker=marker)
        self.ledger.new_interaction()
        self.turn = TurnState(self.config)    # nothing of the last task is "answered"
        self._forget_task()
        self._wait()

    def step(self) -> None:
        """One LLM call and the execution of what it returned."""
        try:
            self.stop.check()
            self._step()
        except InteractionAborted as exc:
            self._after_abort(exc)

    # -- internals --------------------------------------------------------------------
    def _step(self) -> None:
        if self.turn.statements_left <= 0:
            return self._give_up(f"the limit of {self.config.max_statements_per_turn} "
                                 "statements in one turn was reached", TurnStatus.STATEMENT_CAP)
        try:
            statements = self._generate()
        except BudgetSpent as exc:
            return self._give_up(str(exc))
        except LLMError as exc:
            log.error("LLM failed: %s", exc)
            self.console.annotate(f"{LLM_FAILED}{exc}")
            return self._end_turn(TurnStatus.ERROR, f"LLM error: {exc}",
                                  say=self._dropped_request_text(exc))
        for source in statements:
            if self.turn.would_loop(source):
                return self._on_loop(source)
            self.turn.record_statement(source)
            if Entry(source).calls("wait_for_trigger"):
                self._habits_at_end()
                self._record_turn(TurnStatus.WAITING)
                self._prepare_next_request()
            self.stop.check()
            self._define_missing(source)
            source = as_read(self, source)       # the thing the request was read with
            source = where_it_lies(self, source)  # ... and where it lies
            source = put_as_read(self, source)   # ... and where it goes
            source = as_asked(self, source)      # the reply's speed and hand
            drive = drive_before(self, source)   # a grasp: stand where the thing lies
            if drive is not None:
                self._heard(self.console.execute(drive))
            habit = self.habits.for_statement(source) if self.habits is not None else None
            if habit is not None and habit.changed:
                source = self._with_habits(source, habit)
                if source is None:
                    return                 # refused or removed: the model writes the next one
            result = self.console.execute(source)
            self._heard(result)
            if habit is not None and result.error is None and not result.new_turn:
                for extra in habit.after:            # a habit's statement after the call
                    self._heard(self.console.execute(extra))
            if not result.entry.is_comment:          # a comment first: the move still comes
                self.blocked = result.error if isinstance(result.error, BlockedError) else None
            self.turn_failed = self.turn_failed or result.error is not None
            if result.new_turn:
                return self._new_turn()
            if result.error is not None:
                reason = self.turn.record_error(error_class(result.error))
                if reason:
                    return self._give_up(reason)
                return                     # the rest of the batch assumed success
            self.turn.record_success()

    def _with_habits(self, source: str, habit) -> str | None:
        """Run what the habits put before ``source``; the statement to run then (None where a
        habit refuses or removes it: a note says so, and a refusal is said)."""
        for extra in habit.before:
            drive = drive_before(self, extra)   # a placing a habit adds: stand at its surface
            if drive is not None:
                self._heard(self.console.execute(drive))
            self._heard(self.console.execute(extra))
        if habit.source is None:
            if habit.refused is not None:
                self.console.annotate(refused_note(source, habit))
                if self.speaks:
                    self.console.builtins.say(SAY_REFUSED.format(why=habit.refused))
            return None
        return habit.source

    def _habits_at_end(self) -> None:
        """The statements habits add at the end of a request the robot acted in, run before
        it hands back (once per task)."""
        if self.habits is None:
            return
        for extra in self.habits.at_end(self.console.task_id, self.turn.statements):
            self._heard(self.console.execute(extra))

    def _define_missing(self, source: str) -> None:
        """Function generation: define the functions ``source`` calls that nobody defined,
        each as a console input of its own before the statement (see :mod:`.fgen`)."""
        if self.fgen is None:
            return
        definitions = self.fgen.definitions_for(source, self.console.namespace)
        self._turn_usage = self._turn_usage + self.fgen.last_usage
        for definition in definitions:
            log.info("function generation defined %s for %s", definition.name, definition.call)
            self.stop.check()
            self.console.execute(definition.source)


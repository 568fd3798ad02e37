"""The interaction loop (L_interact): ask the LLM for a statement, run it, repeat.

Each LLM call sees the prompt built from the examples and the transcript so far and
returns (usually) one statement; it runs in the console at once and its output becomes
part of the next prompt. A user turn ends when ``wait_for_trigger()`` blocks for the
next utterance. Budgets, loop detection and the statement cap (see :mod:`.policy`) make
sure a confused LLM ends its turn with a clear message instead of running forever.

The reference method's rules: an empty answer is asked again with the temperature raised by
0.1 up to 1.0, then ``wait_for_trigger()`` stands in for it; the first loop of a turn is not
run (a note and the loop-prevention example take its place), a second loop resets the
interaction, says sorry and hands back normally (``TurnStatus.LOOP_RESET``, not an error; the
transcript before the reset stays in the turn's record); a function that a statement calls
and nobody defined is written by :mod:`.fgen` and defined in the console first.
"""
from __future__ import annotations

import ast
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from . import claims
from .config import check_section, setting
from .console.builtins import asked_to_forget
from .console.notes import (
    GIVING_UP,
    LLM_FAILED,
    LOOP_NOTE,
    NOT_RUN,
    REPEAT_NOTE,
    in_the_consoles_voice,
    restate_note,
)
from .console.notes import STOPPED as STOPPED_NOTE
from .console.session import ConsoleSession
from .console.statements import code_lines, extract_statements
from .console.transcript import Entry
from .constraint import ConsoleVocabulary, names_to_say
from .correction import Focus, focus_from
from .errors import BlockedError, EndOfInteraction, InteractionAborted
from .fgen import FunctionGenerator, load_fgen_prompt
from .interrupt import StopSignal
from .learning.hand import (
    at_asked_hand,
    change_of_hands,
    holding_of,
    resolved,
    with_unmet_hand,
)
from .learning.route import at_asked_speed, destination
from .learning.transcripts import calls_any
from .lesson_follow import LessonPlan, as_typed, plan_of
from .llm import LLMClient, LLMError, TokenLedger, Usage, estimate_tokens
from .llm.errors import Failure, spoken
from .policy import ErrorClass, TurnState, error_class
from .prompt import CHAT_SYSTEM, STOP, PromptBuilder
from .reading import Reader, Reading
from .reading.attempt import still_to_do
from .reading.select import Scene, reading_scene
from .reading.structure import CORRECTIONS
from .warmup import Warmup

log = logging.getLogger(__name__)
# left out of the grammar unless the user's last words say "forget" (its gate's rule)
FORGET_ONLY_ASKED = frozenset({"forget_learned"})
# left out of the grammar where the user's last words were read and not as a request to learn
# (the learn gate refuses the call then: measured, a complaint answered with it, issue 44)
LEARN_FUNCTION = "learn_from_interaction"

WAIT_FUNCTION = "wait_for_trigger"
WAIT = f"{WAIT_FUNCTION}()"
LEARN_CALL = "learn_from_interaction()"
SORRY = "I'm sorry, I don't know how to proceed with this."
STOPPED = "Okay, I stopped."
# the notes the agent writes into the transcript are defined in .notes (LOOP_NOTE, REPEAT_NOTE,
# the restating comment: it halved the copies without the correction focus, and added nothing
# beside it, so agent.restate_correction ships off: docs/evaluation.md)

ExampleSource = Callable[[Sequence[str]], Sequence[str]]


@dataclass
class AgentConfig:
    """The ``agent`` section of the settings: the interaction loop's limits and retries (the
    temperature and token limit are the LLM's: ``llm.config``)."""

    max_statements_per_turn: int = setting(15, "statement cap per user turn", minimum=1)
    loop_repeats: int = setting(3, "the same statement this often in a row is a loop", minimum=2)
    redo_cycle: int = setting(3, "a cycle of this many statements or more is a loop when done "
                              "twice in a row (0: only loop_repeats)", minimum=0)
    statement_timeout_s: float = setting(10.0, "generated code's own running time per statement "
                                         "(API calls such as skills excluded)", above=0.0)
    # empty answers: asked again this much hotter each time (reference: 0.1) until the
    # temperature would pass empty_temperature_max, then wait_for_trigger() stands in
    empty_temperature_step: float = setting(0.1, "temperature raise when the LLM returns nothing",
                                            minimum=0.0)
    empty_temperature_max: float = setting(1.0, "empty answers are asked again up to this "
                                           "temperature, then wait_for_trigger() stands in",
                                           minimum=0.0, maximum=2.0)
    idle_retries: int = setting(2, "a user turn answered with nothing but wait_for_trigger() is "
                                "asked again this often (at a raised temperature)", minimum=0)
    idle_temperature_step: float = setting(0.3, "temperature raise per idle retry", minimum=0.0)
    repeat_notes: int = setting(1, "a turn about to redo, statement for statement, the attempt "
                                "the user just answered gets a note in place of the statement "
                                "that completes the copy (a small model copies its last turn "
                                "after a correction), this often per turn; then it runs "
                                "(0: the reference's rule)", minimum=0)
    read_utterances: bool = setting(True, "the model reads each user utterance into a typed "
                                    "reading (core/reading: what is asked, which objects, where "
                                    "they go, a correction, a request to learn) that the "
                                    "correction focus, the learn gate and the lesson writers "
                                    "act on; off: nothing acts on the user's words (the "
                                    "reference method)")
    correction_focus: bool = setting(True, "in a turn that answers an attempt that moved "
                                     "something, the move function may only take the objects "
                                     "and targets the readings of the request and the reply "
                                     "mean, computed in the scene, never a move the attempt "
                                     "made (decoding: core/correction.py)")
    act_on_correction: bool = setting(True, "after a user reply to an attempt that the "
                                      "model read as a correction or a request (core/reading: "
                                      "missing, wrong object, wrong place, retry, do) the robot "
                                      "acts (an API call, a move) before the grammar lets it "
                                      "hand back with wait_for_trigger() (measured: the 1.5B "
                                      "model answered corrections by handing back, turn after "
                                      "turn, at any temperature)")
    move_after_correction: bool = setting(True, "where act_on_correction holds and the "
                                          "correction focus exists (the user's words name "
                                          "where things go), the first statement is a call "
                                          "of the move function within the focus (grammar "
                                          "only; measured: the 1.5B model defined look-alikes "
                                          "of the hand-back instead of acting)")
    unblock_first: bool = setting(True, "after a move refused because another object lies on "
                                  "the one named (BlockedError: 'cannot pick ...: ... lies on "
                                  "top of it'), the next input moves that object (grammar only; "
                                  "measured: the 1.5B model repeated the refused move up to 8 "
                                  "times in one interaction, the hint unread)")
    follow_lessons: bool = setting(True, "where the nearest lesson's request (in the request's "
                                   "names: memory.adapt_names) is the request at hand and its "
                                   "statements can run in this scene, the task's first turn "
                                   "is decoded to follow them, statement by statement, until "
                                   "one differs (grammar only; core/lesson_follow.py; "
                                   "measured: the 1.5B model did not copy such a lesson)")
    say_what_happened: bool = setting(True, "after the console reported that something did "
                                      "not happen (a learn call that stored nothing, a skill "
                                      "that failed, a name the robot does not know), say() may "
                                      "only say the console's own sentence about it, until the "
                                      "robot acts and that works or the user speaks (grammar "
                                      "and check; core/claims.py; measured: 'I will remember "
                                      "that.' right after 'I stored nothing', issue 44)")
    comments_in_a_row: int = setting(2, "after this many console inputs in a row that are "
                                     "comments only, the grammar lets the next input be a "
                                     "statement only (measured: the 1.5B model wrote 6 to 12 "
                                     "comments in a row after a failed move, variations on "
                                     "'failure' is a signal ..., until the statement cap; "
                                     "0: no limit)", minimum=0)
    restate_correction: bool = setting(False, "a turn that answers an attempt starts with a "
                                       "comment restating the user's words")
    repeat_actions_only: bool = setting(True, "the repeat note compares actions only: "
                                        "statements that only query (get_obj_names(), ...) "
                                        "are left out of both attempts")
    learn_on_request: bool = setting(True, "when the reading of the user's reply to an attempt "
                                     "asks to learn or remember (core/reading), the grammar "
                                     "lets the turn's first statement be learn_from_interaction() "
                                     "only (measured: the 1.5B model did not call it after 2 of "
                                     "6 such requests, and those lessons were lost); off: the "
                                     "LLM decides (the reference)")
    function_generation: bool = setting(True, "functions a statement calls that nobody defined "
                                        "are written by a second LLM prompt first "
                                        "(config/fgen.yaml)")
    # a console input the console refuses (echoed output, an object not in the scene: see
    # core/constraint.py) is noted in the transcript in its place ("# not run: why"), so the
    # model sees why, as it sees an error; > 0: first asked again this often, silently, at a
    # raised temperature (the same prompt tells a capable endpoint model nothing new)
    refused_retries: int = setting(0, "a console input the console refuses is asked again "
                                   "this often, silently, before a note takes its place",
                                   minimum=0)

    def __post_init__(self) -> None:
        check_section(self, "agent")


class _BudgetSpent(Exception):
    """The budget of refused console inputs is spent: the turn gives up."""


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


class Agent:
    def __init__(self, llm: LLMClient, console: ConsoleSession, prompt: PromptBuilder,
                 examples: ExampleSource | Sequence[str] = (), loop_example: str = "",
                 ledger: TokenLedger | None = None, config: AgentConfig | None = None,
                 stop: StopSignal | None = None, fgen: FunctionGenerator | None = None,
                 speaks: bool = True, reader: Reader | None = None):
        self.llm = llm
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
        self._answered: list[str] = []      # the attempt the user's last utterance answered
        self._attempt_moves: list[tuple[str, str | None]] = []   # its moves (the API's log)
        self._moves_seen = 0                # moves in the API's log before this turn
        self._task_utterances: list[str] = []   # what the user said in this task
        self._readings: list[Reading | None] = []    # ... as the model read it (core/reading)
        self._request_scene: Scene | None = None     # the scene the task's request was said in
        # a request to learn said with a change still to make waits until the user accepts
        self._learn_waits = False           # asked, with the attempt not accepted yet
        self._learn_held = False            # ... by this turn's latest reading (_learn_waits_now)
        self._learn_now = False             # this reply accepts what was asked to be learned
        self._restated = False
        self._blocked: BlockedError | None = None   # the last input's refusal, if it was that
        self._turn_failed = False           # an input of this turn failed: no lesson followed
        self._hand_change: LessonPlan | None = None   # the code's program for an asked hand
        # what the console reported did not happen, which say() must keep to (core/claims.py)
        self._report: claims.Report | None = None
        self._reset_requested = threading.Event()
        if fgen is None and self.config.function_generation:
            fgen = FunctionGenerator(llm, prompt.api_listing, load_fgen_prompt(), self.ledger,
                                     check=console.sandbox.prepare, call=self.stop.call,
                                     max_tokens=self.llm.config.max_tokens)
        self.fgen = fgen
        # the start-up prefill running in the background (core/warmup.py; the ROS node's):
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
        utterances still waiting in the user channel belong to the old one and are dropped."""
        self._reset_requested.set()
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
    def _after_abort(self, exc: InteractionAborted) -> None:
        """End the turn after a stop (say so) or a reset (fresh task); a further stop
        while doing that starts this over instead of escaping the loop."""
        while True:
            reason = str(exc) or "stop requested"
            self.stop.clear()
            try:
                if self._reset_requested.is_set():
                    self._reset_requested.clear()
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

    def _step(self) -> None:
        if self.turn.statements_left <= 0:
            return self._give_up(f"the limit of {self.config.max_statements_per_turn} "
                                 "statements in one turn was reached", TurnStatus.STATEMENT_CAP)
        try:
            statements = self._generate()
        except _BudgetSpent as exc:
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
                self._record_turn(TurnStatus.WAITING)
                self._prepare_next_request()
            self.stop.check()
            self._define_missing(source)
            source = self._as_asked(source)
            result = self.console.execute(source)
            self._heard(result)
            if not result.entry.is_comment:          # a comment first: the move still comes
                self._blocked = result.error if isinstance(result.error, BlockedError) else None
            self._turn_failed = self._turn_failed or result.error is not None
            if result.new_turn:
                return self._new_turn()
            if result.error is not None:
                reason = self.turn.record_error(error_class(result.error))
                if reason:
                    return self._give_up(reason)
                return                     # the rest of the batch assumed success
            self.turn.record_success()

    def _generate(self) -> list[str]:
        """Ask the LLM; retry empty answers at a raised temperature (reference: +0.1 up to
        1.0), then stand in ``wait_for_trigger()`` for the answer that stayed empty."""
        self._restate()
        examples = self._current_examples()
        interaction = self.console.transcript.render()
        prompt = self.prompt.build(examples, interaction)
        temperature = self.llm.config.temperature
        system = CHAT_SYSTEM if self.llm.config.mode == "chat" else None
        idle_left = self.config.idle_retries
        vocabulary = ConsoleVocabulary.of(self.console)
        vocabulary.focus = self._focus(vocabulary)
        must_act = self._must_act()
        vocabulary.withheld = self._withheld(must_act)
        vocabulary.required = self._required() or self._lesson_statement(vocabulary)
        vocabulary.move_now = (self.config.move_after_correction
                               and vocabulary.focus is not None and must_act)
        vocabulary.comment_allowed = self._comment_allowed()
        if self.config.say_what_happened and self._report is not None:
            log.info("say() keeps to what the console reported: %s", self._report.what)
            vocabulary.speech = self._report.sentences
            vocabulary.speech_refusal = self._report.refusal()
        unblock = self._unblock_focus(vocabulary)
        if unblock is not None:
            vocabulary.focus, vocabulary.move_now = unblock, True
        constraint = vocabulary.current()
        refused_left = self.config.refused_retries
        while True:
            try:
                completion = self.stop.call(self.llm.complete, prompt, stop=STOP,
                                            temperature=temperature,
                                            max_tokens=self.llm.config.max_tokens,
                                            system=system, one_input=True,
                                            grammar=constraint.gbnf())
            except LLMError as exc:
                fewer = fitting_examples(examples, exc)
                if fewer is None:
                    raise
                log.warning("the prompt does not fit the model's context (%s): %d of its %d "
                            "examples left out, the most similar kept last", exc,
                            len(examples) - len(fewer), len(examples))
                examples = fewer
                prompt = self.prompt.build(examples, interaction)
                continue
            self.ledger.record(completion.usage, "interact")
            self._turn_usage = self._turn_usage + completion.usage
            statements = extract_statements(completion.text)
            # a small model imitates the console's notes (a restated correction with words
            # the user never said): those are dropped (an answer of nothing else is empty)
            statements = [s for s in statements if not in_the_consoles_voice(s)]
            refusal = constraint.check_all(statements)
            if refusal and refused_left > 0:
                refused_left -= 1
                log.info("refused console input (%s): asking again", refusal)
                temperature = min(temperature + self.config.empty_temperature_step, 2.0)
                continue
            if refusal:
                self.console.annotate(NOT_RUN + refusal)
                unknown = next(filter(None, map(constraint.missing_name, statements)), None)
                if unknown is not None:      # nothing by that name here: not found, not brought
                    self._report = claims.missing(unknown)
                reason = self.turn.record_error(ErrorClass.REFUSED)
                if reason:
                    raise _BudgetSpent(reason)
                return []
            if (statements and self.turn.repeat_notes < self.config.repeat_notes
                    and self._repeats_the_answered_attempt(statements[0])):
                self.turn.repeat_notes += 1
                log.info("the LLM repeats the attempt the user answered: noted, asking again")
                self.console.annotate(NOT_RUN + REPEAT_NOTE.format(
                    source=" ".join(statements[0].split())))
                return []
            if statements and idle_left > 0 and self._ignores_the_user(statements):
                # small models tend to repeat the last statement (wait_for_trigger()) instead
                # of acting on the user's feedback: ask again, a little less greedily
                idle_left -= 1
                log.info("the LLM answered the user with nothing but %s: asking again", WAIT)
                temperature = min(temperature + self.config.idle_temperature_step, 2.0)
                continue
            if statements:
                return statements
            step = self.config.empty_temperature_step
            temperature = round(temperature + step, 6)
            if step <= 0 or temperature > self.config.empty_temperature_max:
                log.info("the LLM stayed empty: %s stands in for its answer", WAIT)
                return [WAIT]
            log.info("the LLM returned nothing: asking again at temperature %.1f", temperature)

    def _heard(self, result) -> None:
        """What the console reported with an input that say() must keep to, until the robot
        acts and that works or the user speaks (core/claims.py)."""
        self._report = claims.after(self._report, result, self.console.api.queries)

    def _required(self) -> str | None:
        """The statement the grammar forces now: ``learn_from_interaction()`` as the first
        statement of a turn whose user reply the model read as a request to learn
        (``learn_on_request``). A small model often answered "Now it is correct. Memorize
        how you did that." by doing the task again, and the lesson was lost. The learner's
        gate still judges the call (its position, the reading)."""
        if self._learn_due():
            log.info("the user asks to learn: the grammar allows only %s", LEARN_CALL)
            return LEARN_CALL
        if self._hand_change is not None and not self._turn_failed:
            done = [s for s in self.turn.statements if not Entry(s).is_comment]
            statement = self._hand_change.next_after(done)
            if statement is not None:
                log.info("the user asked for the other hand: the code writes %s", statement)
                return statement
        return None

    def _change_of_hands(self) -> LessonPlan | None:
        """The program that holds the thing in the hand the reply asks for
        (:func:`.learning.hand.change_of_hands`), with "the other hand" resolved against what
        the hands hold now (:func:`.learning.hand.resolved`) and a bare complaint read as the
        request's hand where that is what the attempt missed (``with_unmet_hand``); None where
        there is none. The reply's reading is kept so resolved: the turn's grasps take that
        hand (:meth:`_as_asked`)."""
        reply = self._reply_reading()
        request = self._readings[0] if self._readings else None
        if reply is None or not (reply.of_kind("hand") or request and request.of_kind("hand")):
            return None
        holding = holding_of(self.console.api)
        reply = with_unmet_hand(request, resolved(reply, holding), holding)
        self._readings[-1] = reply
        here = next((d for e in reversed(self.console.transcript.entries)
                     if not e.is_comment and (d := destination(e.source))), None)
        program = change_of_hands(reply, holding, here)
        return LessonPlan("", program) if program else None

    def _learn_due(self) -> bool:
        """The learn call is the next statement: first in a turn that answers a request to
        learn (``learn_on_request``) or an approval of what such a request held back
        (:meth:`_learn_when_accepted`); later in a turn whose request to learn came with a
        change, once this turn's moves made it (the robot does it the new way first, then
        learns it)."""
        reply = self._reply_reading()
        if not (self.config.learn_on_request and len(self._task_utterances) >= 2
                and reply is not None):
            return False
        if not self.turn.statements:
            return self._learn_now or (reply.asks_to_learn and not self._learn_held)
        entries = self.console.transcript.entries
        if not (self._learn_waits and reply.asks_to_learn) or \
                (entries and entries[-1].source.strip() == LEARN_CALL):
            return False
        done = self._move_log()[self._moves_seen:]
        scene = self._scene()
        return bool(done) and not still_to_do(reply, done, scene.select if scene else None)

    def _learn_waits_now(self, reply: Reading | None) -> bool:
        """The user's reply asks to learn and for a change the attempt did not make ("Try once
        more ... remember that"; a misread correction): the lesson waits until the user
        accepts the next attempt (measured, issue 43 seed 2026: learned right after "Try once
        more, please", the rejected attempt was stored as the lesson)."""
        if reply is None or not reply.asks_to_learn or not self.console.api.move_function():
            return False
        scene = self._scene()
        return bool(still_to_do(reply, self._attempt_moves, scene.select if scene else None))

    def _lesson_statement(self, vocabulary: ConsoleVocabulary) -> str | None:
        """The nearest lesson's next statement, where the first turn of a task follows it
        (``follow_lessons``, :mod:`.lesson_follow`), as the model types it; else None."""
        lesson = getattr(self._examples, "nearest_lesson", None)
        if not self.config.follow_lessons or lesson is None or len(self._task_utterances) != 1 \
                or self._turn_failed:         # the lesson does not work here: the model decides
            return None
        try:
            known = names_to_say(self.console.api, vocabulary.scene_names())
        except Exception as exc:  # noqa: BLE001 - no scene: the model writes freely
            log.warning("the lesson is not followed: the scene's names are unknown (%s)", exc)
            return None
        plan = plan_of(lesson, self._task_utterances[0], known)
        done = [s for s in self.turn.statements if not Entry(s).is_comment]
        statement = plan.next_after(done) if plan is not None else None
        if statement is None:
            return None
        log.info("following the lesson for %r: statement %d of %d", plan.request,
                 len(done) + 1, len(plan.statements))
        return as_typed(statement)

    def _answers_an_attempt(self) -> bool:
        """This turn answers an attempt: the user spoke again after the robot acted."""
        return bool(self._answered) and len(self._task_utterances) >= 2

    def _restate(self) -> None:
        """Before the first statement of a turn that answers an attempt: the user's words
        again, as a comment (a small model reads the transcript's end, not its middle)."""
        if (self.config.restate_correction and not self._restated and not self.turn.statements
                and self._answers_an_attempt()):
            self._restated = True
            self.console.annotate(restate_note(self._task_utterances[-1]))

    def _focus(self, vocabulary: ConsoleVocabulary) -> Focus | None:
        """What the move function may take in this turn (core/correction.py: from the
        readings of the request and of the reply), or None."""
        move = self.console.api.move_function()
        if not self.config.correction_focus or move is None or not self._answers_an_attempt():
            return None
        function, spec = move
        scene = self._scene()
        if scene is None:
            return None
        # a move this turn already made is no move to offer again (measured: the yellow block
        # put on the left side twice, the blue one never)
        done = self._move_log()[self._moves_seen:]
        focus = focus_from(function.name, spec, self._readings[0] if self._readings else None,
                           self._reply_reading(), scene, self._attempt_moves, done,
                           self._request_scene)
        if focus is not None:
            log.info("after the correction the move may take %s -> %s (refused: %s)",
                     focus.objects or "any object", list(focus.targets), sorted(focus.refused))
        return focus

    def _withheld(self, must_act: bool) -> frozenset[str]:
        """What the grammar leaves out of this turn: ``forget_learned`` unless the user's last
        words were read as a request to forget (measured: "you forgot the glass" ->
        ``forget_learned('glass')``, which its gate refuses, and the turn was lost; without a
        reading, the forget gate's own word veto), ``learn_from_interaction`` where they were
        read and not as a request to learn (the learn gate refuses it then; measured: "that
        is the cleaning spray, I asked for the sponge" answered with it, issue 44), and the
        bare hand-back where ``must_act`` (:meth:`_must_act`)."""
        said = self.console.builtins.utterances
        latest = self._latest_reading()
        asked = latest.asks_to_forget if latest is not None else \
            bool(said) and asked_to_forget(str(said[-1]))
        withheld = set() if asked else set(FORGET_ONLY_ASKED)
        if latest is not None and (not latest.asks_to_learn or self._learn_held) \
                and not self._learn_due():
            withheld.add(LEARN_FUNCTION)
        if must_act:
            log.info("the user's reply asks for more: the grammar leaves out a bare %s", WAIT)
            withheld.add(WAIT_FUNCTION)
        return frozenset(withheld)

    def _unblock_focus(self, vocabulary: ConsoleVocabulary) -> Focus | None:
        """After a move refused because ``blocker`` lies on the object it named: the move
        function may only take ``blocker``, to any place but the two and what lies where
        they lie (``unblock_first``; measured: the blocker put back into the bowl of the
        pile covered the block again)."""
        blocked, move = self._blocked, self.console.api.move_function()
        if blocked is None or move is None or not self.config.unblock_first:
            return None
        function, spec = move
        try:
            names = list(dict.fromkeys(vocabulary.scene_names()))
        except Exception as exc:  # noqa: BLE001 - no scene: the names stay free
            log.warning("no unblocking move: the scene's names are unknown (%s)", exc)
            return None
        if blocked.blocker not in names:
            return None
        mislaid = {blocked.blocked, blocked.blocker, *blocked.around}   # back onto the pile
        mislaid |= self._wanted_targets()      # nor where the user wants things to go
        targets = tuple(t for t in dict.fromkeys(names_to_say(self.console.api, names))
                        if t not in mislaid)
        log.info("%s lies on %s: the next input moves it (%d targets)", blocked.blocker,
                 blocked.blocked, len(targets))
        return Focus(function.name, spec, (blocked.blocker,), targets, free_targets=True)

    def _comment_allowed(self) -> bool:
        """Whether the next input may be a comment: fewer than ``comments_in_a_row`` of the
        last inputs are comments only (the console's notes count: after one, the model acts)."""
        limit = self.config.comments_in_a_row
        if not limit:
            return True
        last = self.console.transcript.entries[-limit:]
        if len(last) < limit or not all(e.is_comment for e in last):
            return True
        log.info("%d comments in a row: the grammar lets the next input be a statement only",
                 limit)
        return False

    def _must_act(self) -> bool:
        """The turn answers an attempt, the robot did not act in it yet (no statement called
        a function of the API that is no query and no speech, nothing moved), and the model
        read the user's reply as a correction or a request (``act_on_correction``; no
        reading: the model decides). Measured: a definition of the model's own that only wraps
        the hand-back, then its call, to get around the grammar; "You forgot the sponge."
        answered by ``say('I will forget about the sponge.')`` and the hand-back (issue 44)."""
        if not self.config.act_on_correction or not self._answers_an_attempt():
            return False
        api = set(self.console.api.names) - self.console.api.queries - claims.SPEECH \
            - {WAIT_FUNCTION}
        if any(calls_any(s, api) for s in self.turn.statements) \
                or len(self._move_log()) > self._moves_seen:
            return False
        reply = self._reply_reading()
        if reply is None:
            return False
        if set(reply.kinds) & {*CORRECTIONS, "do"}:
            return True
        # a reply that only says how ("you are too slow, drive faster") to a request not done
        # yet: its move is still to make (measured, issue 44: the model drove the attempt's
        # legs again, faster, and never on to the place)
        scene = self._scene() if reply.speed is not None else None
        return scene is not None and any(c.where is not None for c in still_to_do(
            self._readings[0], self._attempt_moves, scene.select))

    # -- readings (core/reading) --------------------------------------------------------
    def _scene(self) -> Scene | None:
        """The scene as the readings see it (names, spoken forms, positions); None when the
        API cannot list it."""
        try:
            return reading_scene(self.console.api)
        except Exception as exc:  # noqa: BLE001 - no scene: nothing read, nothing focused
            log.warning("the scene's names are unknown (%s): utterances are not read", exc)
            return None

    def _read(self, utterance: str) -> Reading | None:
        """The model's reading of ``utterance`` in the current scene (None without a reader
        or a scene, or when the model gave none: then nothing acts on it)."""
        if self.reader is None:
            return None
        scene = self._scene()
        if scene is None:
            return None
        reply = len(self._task_utterances) >= 2      # the task's request is read as one
        if not reply:        # its relations are meant in the scene it is said in
            self._request_scene = scene.frozen()
        # a reply answers the attempt: the reader sees what it moved (where the API logs moves)
        moved = [o for o, _ in self._attempt_moves] \
            if reply and self.console.api.move_function() else None
        return self.stop.call(self.reader.read, utterance, scene.vocabulary, reply, moved)

    def _as_asked(self, source: str) -> str:
        """``source`` at the speed and with the hand the reply this turn answers asks for: the
        code writes them into the model's call. A drive after a reply read as a speed ("you are
        too slow, drive faster") goes at that speed (:func:`.learning.route.at_asked_speed`;
        measured, issue 44: the household's too-slow corrections were 0 of 4, no drive was
        faster); a grasp after a reply read as one hand takes it
        (:func:`.learning.hand.at_asked_hand`; a reply only: a request's hand was measured read
        where nobody said one, "could you tidy up the apple?" -> ``hand: left``)."""
        reply = self._reply_reading()
        asked = at_asked_hand(reply, at_asked_speed(reply, source))
        if asked != source:
            log.info("the user asked for another speed or hand: %s runs as %s", source, asked)
        return asked

    def _learn_when_accepted(self, reply: Reading | None) -> None:
        """Keep a request to learn that came with a change still to make
        (:attr:`_learn_held`, judged once per turn in :meth:`_new_turn`: it reads the scene);
        the reply that accepts the next attempt (read as approval) then asks for it (the
        learner's gate honours it: :func:`.learning.gate.accepts`)."""
        self._learn_now = False
        if reply is None:
            return
        if self._learn_held:
            log.info("the user asks to learn, and for a change first: learned when accepted")
            self._learn_waits = True
        elif self._learn_waits and reply.closes:
            self._learn_waits, self._learn_now = False, True

    def _reply_reading(self) -> Reading | None:
        """The reading of the user's last utterance of this task, if it answers an attempt."""
        return self._readings[-1] if len(self._readings) >= 2 else None

    def _latest_reading(self) -> Reading | None:
        return self._readings[-1] if self._readings else None

    def _wanted_targets(self) -> set[str]:
        """The names the readings of this task say things should go to."""
        out: set[str] = set()
        for reading in self._readings:
            for clause in reading.moves if reading is not None else ():
                if clause.where is not None and clause.where.name:
                    out.add(clause.where.name)
        return out

    def _move_log(self) -> list[tuple[str, str | None]]:
        """The moves the API made so far (:meth:`~.registry.ApiRegistry.moves`)."""
        return self.console.api.moves()

    def _forget_task(self) -> None:
        """Nothing of the last task is answered, restated or refused in the next one."""
        self._answered = []
        self._attempt_moves = []
        self._moves_seen = len(self._move_log())
        self._task_utterances = []
        self._readings = []
        self._request_scene = None
        self._learn_waits = self._learn_held = self._learn_now = False
        self._restated = False
        self._report = None

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

    def _dropped_request_text(self, error: LLMError) -> str:
        """What the robot says when the LLM call failed: what the failure is (unreachable,
        a prompt too long for the server's context, a refused key, ...) and which request it
        drops, so the user knows what to do (issue 18)."""
        utterances = self.console.builtins.utterances
        if not utterances:
            return spoken(error)
        said = " ".join(str(utterances[-1]).split())
        said = said if len(said) <= 80 else said[:77].rstrip() + "..."
        return spoken(error, said)

    def _repeats_the_answered_attempt(self, source: str) -> bool:
        """Running ``source`` would complete, statement for statement, the attempt that the
        user's last utterance answered (comments and the hand-back left out): after a
        correction a small model copies its last turn instead of acting on the words. A
        wanted repeat ("you dropped it, try again") is only delayed: the note comes once."""
        attempt = self._answered
        reply = self._reply_reading()
        if reply is not None and reply.asks_again:
            return False                     # "you dropped it, try again": the repeat is wanted
        return bool(attempt) and self._actions(self.turn.statements + [source]) == attempt

    def _ignores_the_user(self, statements: list[str]) -> bool:
        """The first answer to a user turn is wait_for_trigger() alone; comments before it do
        not count (measured: the 1.5B model answered five corrections in a row with
        '# orange is still missing' and then the hand-back, and the retry never fired)."""
        if any(not Entry(s).is_comment for s in self.turn.statements):
            return False
        first = next((s for s in statements if not Entry(s).is_comment), None)
        return first is not None and " ".join(first.split()) == WAIT

    def prefill(self, examples: Sequence[str] | None = None, persist: bool = False,
                call: Callable | None = None) -> Usage | None:
        """Let a stateful LLM (the embedded model) evaluate the stable part of the prompt now:
        at start-up the examples known before the user speaks (``persist``: kept on disk for
        the next start), later each new set of retrieved examples (kept in RAM, so the next
        task that retrieves them again does not evaluate them again). ``call`` runs the
        model's prefill (default: through the stop signal, so a stop ends the wait)."""
        prefill = getattr(self.llm, "prefill", None)
        if prefill is None:
            return None
        if examples is None:
            examples = self._head = list(self._examples([]))
        system = CHAT_SYSTEM if self.llm.config.mode == "chat" else None
        try:
            usage = (call or self.stop.call)(prefill, self.prompt.stable_prefix(examples),
                                             system=system, persist=persist)
        except LLMError as exc:
            log.warning("prefilling the LLM failed: %s", exc)
            return None
        if usage is not None and (usage.evaluated_tokens or usage.prompt_tokens):
            self.ledger.record(usage, "prefill")     # evaluated tokens count, calls do not
            self._turn_usage = self._turn_usage + usage
        return usage

    def warm_up_steps(self, call: Callable | None = None) -> list[tuple[str, Callable]]:
        """The start-up prefill as steps (what, call -> Usage): the console prompt's stable
        prefix with the examples known before the user speaks, then the reading prompts'
        examples, both kept on disk for the next start; none for a model without state.
        ``call`` runs each model call (default: directly, so nothing but the process ends
        them: a background :class:`~.warmup.Warmup`; :meth:`run` passes the stop signal's)."""
        if getattr(self.llm, "prefill", None) is None:
            return []
        direct = call or (lambda fn, *a, **k: fn(*a, **k))
        steps = [("the console prompt", lambda: self.prefill(persist=True, call=direct))]
        if self.reader is not None and getattr(self.reader.llm, "prefill", None) is not None:
            steps.append(("the reading prompts",
                          lambda: self.reader.prefill(persist=True, call=direct)))
        return steps

    def _await_warm_up(self) -> None:
        """A request came while the start-up warm-up runs: wait for it (its prompt starts
        with the tokens being evaluated); a stop or reset ends the wait (InteractionAborted)."""
        warmup = self.warmup
        if warmup is None or warmup.done:
            return
        log.info("a request came during the warm-up: it waits for it (%s)", warmup.describe())
        warmup.wait(self.stop)

    def _prepare_next_request(self) -> None:
        """Before the robot waits for the user: when the examples every request starts with
        changed (a lesson was stored), a stateful LLM evaluates them now, while nobody waits
        for it, so the next request evaluates only its nearest lesson and the interaction
        (issue 26: three new lessons evaluated after the request took the first statement to
        10.8 s). An example source without a ``head`` never changes."""
        head_of = getattr(self._examples, "head", None)
        if head_of is None or getattr(self.llm, "prefill", None) is None:
            return
        if self.warmup is not None and not self.warmup.done:
            return                        # the warm-up prefills the head (and sets it)
        head = self.stop.call(head_of)        # a stop or reset never waits for the memory
        if head is not None and head != self._head:
            self._head = head
            self.prefill(head)

    def _current_examples(self) -> list[str]:
        utterances = self.console.builtins.utterances
        if self._examples_cache[0] != len(utterances):
            # a stop or reset ends the wait for the memory (a frozen server, issue 45)
            examples = list(self.stop.call(self._examples, list(utterances)))
            if examples != self._examples_cache[1] and examples != self._head:
                self.prefill(examples)
            self._examples_cache = (len(utterances), examples)
        examples = self._examples_cache[1]
        if self._loop_intervention and self.loop_example:
            return examples + [self.loop_example]
        return examples

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

    def _forget_interaction(self) -> None:
        """A reset forgets all of the interaction (issue 27): the attempt the user answered
        (else the new request's first statement is refused as its repeat), the turn's
        counters and notes, the user's utterances (the retrieval query, the learner)."""
        self._answered = []
        self.turn = TurnState(self.config)
        self._turn_usage = Usage()
        self._loop_intervention = False
        self._examples_cache = (-1, [])
        self.console.builtins.utterances.clear()
        self._forget_task()

    def _new_turn(self) -> None:
        if not self._reset_requested.is_set():
            self.stop.clear()      # a stop pressed while idle does not abort the new turn
        self._answered = self._actions(self.turn.statements)
        moves = self._move_log()
        self._attempt_moves, self._moves_seen = moves[self._moves_seen:], len(moves)
        utterances = self.console.builtins.utterances
        self._await_warm_up()
        if utterances:
            self._task_utterances.append(str(utterances[-1]))
            self._readings.append(self._read(str(utterances[-1])))
        self._hand_change = self._change_of_hands()
        # the latest reading (a reply is the latest) against this turn's attempt, once a turn
        self._learn_held = self._learn_waits_now(self._latest_reading())
        if utterances:
            self._learn_when_accepted(self._reply_reading())
        self._restated = False
        self._turn_failed = False
        self._report = None                  # the user spoke: what was reported is answered
        self.turn = TurnState(self.config)
        self._turn_usage = Usage()
        self._loop_intervention = False


    def _actions(self, statements: Sequence[str]) -> list[str]:
        """The statements without comment lines, blank ones and hand-backs, and (with
        ``repeat_actions_only``) without those that only query: whitespace-normalised."""
        queries = self.console.api.queries if self.config.repeat_actions_only else None
        out = []
        for source in statements:
            code = " ".join(" ".join(line.split()) for line in code_lines(source))
            if code and code != WAIT and not (queries is not None
                                              and _only_queries(source, queries, self.console.api)):
                out.append(code)
        return out


def fitting_examples(examples: Sequence[str], error: LLMError,
                     margin: int = 64) -> list[str] | None:
    """The prompt's examples with enough left out to fit the context the ``error`` says was
    exceeded, or None (another failure, or nothing left to leave out). Left out from the
    second-to-last backwards: the lessons other than the most similar (which stays right before
    the interaction), newest first, then the least central seeds. Measured: with the seed
    block, four lessons and a long interaction the embedded model's 8,192 tokens were exceeded
    and the turn was lost; k = 16 lessons of ~200 tokens would exceed them on every request."""
    if error.failure is not Failure.CONTEXT_LENGTH or len(examples) < 2:
        return None
    excess = (error.needed_tokens - error.context_size + margin
              if error.needed_tokens and error.context_size else None)
    kept = list(examples)
    dropped = 0
    while len(kept) > 1:
        dropped += estimate_tokens(kept.pop(-2))
        if excess is None or dropped >= excess:
            break
    return kept


def _only_queries(source: str, queries: frozenset[str], api) -> bool:
    """Whether ``source`` calls no API function but queries (``get_obj_names()``, ...)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    called = {n.func.id for n in ast.walk(tree)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in api}
    return called <= queries

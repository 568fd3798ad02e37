"""The robot's interactive Python console: run one statement, record what it printed.

Semantics follow the stdlib interactive console: expression statements print the repr of
non-None values (also inside loops, not inside function bodies), errors print a traceback
restricted to the console's own frames, and the namespace persists between statements of
one task. Generated code runs through the :class:`~.sandbox.Sandbox`, by a
:class:`~.sandbox.statement_runner.StatementRunner`: in this process, or (``isolated=True``, what
every session uses) in a sandbox worker process with hard memory and CPU limits
(:class:`~.sandbox.process.WorkerRunner`).
"""
from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..apis.registry import ApiRegistry
from ..sandbox import Sandbox
from ..sandbox.statement_runner import DISPLAY, FILENAME, StatementRunner, format_console_traceback  # noqa: F401
from ..transcript.errors import EndOfInteraction, InteractionAborted
from ..transcript.notes import NEW_TASK_MARKER
from ..transcript.transcript import Entry, Transcript
from .builtins import InteractionBuiltins

if TYPE_CHECKING:
    from ..learning.outcome import LearnOutcome


@dataclass(frozen=True)
class ApiCall:
    """One call of an API function (a skill, a query, a built-in) during an input: what it
    returned, or what it raised."""

    name: str
    value: object = None
    error: BaseException | None = None


@dataclass
class ExecResult:
    """What one input did: its entry, its error, whether the user spoke meanwhile
    (``new_turn``: wait_for_trigger() returned an utterance, a new user turn began), the
    learn requests it made (``lessons``: the outcome of each learn_from_interaction() call
    during the input, in order; their messages are in the entry's output) and every API call
    it made (``calls``, in order: what the robot did and what each call said)."""

    entry: Entry
    error: BaseException | None = None
    new_turn: bool = False
    lessons: tuple[LearnOutcome, ...] = ()
    calls: tuple[ApiCall, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None


class ConsoleSession:
    """A persistent namespace with the API bound into it, and the transcript of one task."""

    def __init__(self, api: ApiRegistry, builtins: InteractionBuiltins,
                 sandbox: Sandbox | None = None, max_output_chars: int = 4000,
                 isolated: bool = False,
                 input_listeners: Iterable[Callable[[str], None]] = (),
                 listeners: Iterable[Callable[[Entry], None]] = ()):
        """``isolated``: run the code in a sandbox worker process (the parent keeps the API
        calls, the user channel and the transcript); ``input_listeners``: called with each
        input before it runs; ``listeners``: called with each entry once it is recorded.
        The runner is handed the built-ins' output (where they write) as it is built, so what
        a built-in writes (learn_from_interaction()'s message) prints in place."""
        self.api = api
        self.max_output_chars = max_output_chars
        self.builtins = builtins
        self.sandbox = sandbox or Sandbox()
        self.listeners: list[Callable[[Entry], None]] = list(listeners)
        self.input_listeners: list[Callable[[str], None]] = list(input_listeners)
        self._calls: list[ApiCall] = []       # the API calls of the input running now
        if isolated:
            from ..sandbox.process import WorkerRunner
            self.runner = WorkerRunner(api, self.sandbox, output=builtins.output,
                                       bind=self._bind)
        else:
            self.runner = StatementRunner(self._bind, self.sandbox, output=builtins.output)
        self.new_task(marker=False)

    def _bind(self, wrap: Callable[[Callable], Callable] | None = None) -> dict[str, Callable]:
        """The API's functions as the runner calls them: each call is recorded (the input's
        :attr:`ExecResult.calls`)."""
        return {name: self._recorded(name, fn) for name, fn in self.api.bind(wrap).items()}

    def _recorded(self, name: str, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def call(*args, **kwargs):
            try:
                value = fn(*args, **kwargs)
            except BaseException as exc:
                self._calls.append(ApiCall(name, error=exc))
                raise
            self._calls.append(ApiCall(name, value))
            return value
        return call

    # -- the runner ---------------------------------------------------------------------
    @property
    def namespace(self):
        """The names bound in this task (and ``__builtins__``): what the constraint and
        function generation look up; the worker's values stay in the worker."""
        return self.runner.namespace

    def close(self) -> None:
        """End the sandbox worker, if any (it also ends with this process)."""
        self.runner.close()

    # -- tasks ------------------------------------------------------------------------
    def new_task(self, marker: bool = True) -> None:
        """Start a new interaction: fresh locals and transcript, optionally a marker comment."""
        self.runner.reset()
        self.builtins.new_speech_turn()
        self.transcript = Transcript()
        self.task_id = uuid.uuid4().hex[:12]
        if marker:
            self._record(Entry(NEW_TASK_MARKER))

    def _record(self, entry: Entry) -> Entry:
        self.transcript.append(entry)
        for listener in self.listeners:
            listener(entry)
        return entry

    def annotate(self, text: str) -> Entry:
        """Append a comment line (``>>> # text``) that is not executed."""
        return self._record(Entry("# " + text))

    # -- execution --------------------------------------------------------------------
    def execute(self, source: str) -> ExecResult:
        """Run one console input (one statement, possibly multi-line) and record it.

        EndOfInteraction and InteractionAborted propagate after the input is recorded;
        every other failure is recorded as console output and returned.
        """
        source = source.rstrip()
        for listener in self.input_listeners:
            listener(source)
        turn_before, lessons_before = self.builtins.turn, len(self.builtins.lessons)
        self.builtins.new_statement()
        self._calls = []
        try:
            outcome = self.runner.run(source)
        finally:
            self.builtins.statement_done()
        error = outcome.error
        if isinstance(error, (EndOfInteraction, InteractionAborted)):
            self._record(Entry(source, self._output(outcome)))
            raise error
        entry = self._record(Entry(source, self._output(outcome),
                                   error=type(error).__name__ if error is not None else None))
        return ExecResult(entry, error, new_turn=self.builtins.turn != turn_before,
                          lessons=tuple(self.builtins.lessons[lessons_before:]),
                          calls=tuple(self._calls))

    def _output(self, outcome) -> str:
        """What the statement printed, cut to max_output_chars (the prompt must stay small)."""
        text = outcome.output.rstrip("\n")
        if len(text) <= self.max_output_chars and outcome.total_chars is None:
            return text
        total = len(text) if outcome.total_chars is None else outcome.total_chars
        return (text[: self.max_output_chars].rstrip("\n")
                + f"\n... [output truncated: {total} characters in all]")

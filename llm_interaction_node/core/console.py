"""The robot's interactive Python console: run one statement, record what it printed.

Semantics follow the stdlib interactive console: expression statements print the repr of
non-None values (also inside loops, not inside function bodies), errors print a traceback
restricted to the console's own frames, and the namespace persists between statements of
one task. Generated code runs through the :class:`~.sandbox.Sandbox`.
"""
from __future__ import annotations

import ast
import io
import traceback
import uuid
from dataclasses import dataclass
from typing import Callable

from .builtins import InteractionBuiltins
from .errors import EndOfInteraction, InteractionAborted, SemanticHintError, StatementTimeout
from .registry import ApiRegistry
from .sandbox import Sandbox, SandboxViolation
from .transcript import Entry, Transcript

FILENAME = "<console>"
DISPLAY = "__console_display__"
NEW_TASK_MARKER = "# New task. Local variables were reset."

# Extra hints after errors whose plain message rarely tells the LLM what to do.
LOOKUP_HINTS = {
    IndexError: "Hint: the index is outside the sequence; check its length first.",
    KeyError: "Hint: that key does not exist; look at the available keys first.",
}


@dataclass
class ExecResult:
    entry: Entry
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class _DisplayExpressions(ast.NodeTransformer):
    """Make expression statements print their value, as the interactive console does.

    Only statements that run at console level are rewritten: bodies of def and lambda
    are left alone, exactly as compile(..., 'single') would treat them.
    """

    def visit_Expr(self, node: ast.Expr) -> ast.Expr:
        call = ast.Call(func=ast.Name(DISPLAY, ast.Load()), args=[node.value], keywords=[])
        return ast.copy_location(ast.Expr(call), node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        return node

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef


class ConsoleSession:
    """A persistent namespace with the API bound into it, and the transcript of one task."""

    def __init__(self, api: ApiRegistry, builtins: InteractionBuiltins,
                 sandbox: Sandbox | None = None, max_output_chars: int = 4000):
        self.api = api
        self.max_output_chars = max_output_chars
        self.builtins = builtins
        self.sandbox = sandbox or Sandbox()
        self.listeners: list[Callable[[Entry], None]] = []        # after each entry
        self.input_listeners: list[Callable[[str], None]] = []    # before a statement runs
        self._out = io.StringIO()
        builtins.write = self.write
        self.new_task(marker=False)

    # -- output -----------------------------------------------------------------------
    def write(self, text: str) -> None:
        self._out.write(text)

    def _display(self, value) -> None:
        if value is not None:
            self._out.write(repr(value) + "\n")

    # -- tasks ------------------------------------------------------------------------
    def _reset_namespace(self) -> None:
        ns = self.sandbox.new_globals(self.write)
        ns.update(self.api.bind(self.sandbox.wrap_api))
        ns[DISPLAY] = self._display
        self.namespace = ns

    def new_task(self, marker: bool = True) -> None:
        """Start a new interaction: fresh locals and transcript, optionally a marker comment."""
        self._reset_namespace()
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
        self._out = io.StringIO()
        error: BaseException | None = None
        try:
            code = self._compile(source)
            if code is not None:
                self.sandbox.run(code, self.namespace)
        except (EndOfInteraction, InteractionAborted):
            self._record(Entry(source, self._output()))
            raise
        except SyntaxError as exc:
            error = exc
            self._out.write("".join(traceback.format_exception_only(type(exc), exc)))
        except SandboxViolation as exc:
            error = exc
            self._out.write(f"SandboxViolation: {exc}\n")
        except SemanticHintError as exc:
            error = exc
            self._out.write(f"{exc}\n")
        except StatementTimeout as exc:
            error = exc
            self._out.write(f"StatementTimeout: {exc}\n")
        except Exception as exc:  # noqa: BLE001 - every error of generated code is reported
            error = exc
            self._out.write(format_console_traceback(exc))
            hint = next((h for t, h in LOOKUP_HINTS.items() if isinstance(exc, t)), None)
            if hint:
                self._out.write(hint + "\n")
        entry = self._record(Entry(source, self._output(),
                                   error=type(error).__name__ if error is not None else None))
        return ExecResult(entry, error)

    def _output(self) -> str:
        """What the statement printed, cut to max_output_chars (the prompt must stay small)."""
        text = self._out.getvalue().rstrip("\n")
        if len(text) <= self.max_output_chars:
            return text
        return (text[: self.max_output_chars].rstrip("\n")
                + f"\n... [output truncated: {len(text)} characters in all]")

    def _compile(self, source: str):
        tree = ast.parse(source, filename=FILENAME, mode="exec")
        if not tree.body:            # a comment or blank input does nothing
            return None
        tree = self.sandbox.prepare(tree)
        tree = ast.fix_missing_locations(_DisplayExpressions().visit(tree))
        return compile(tree, FILENAME, "exec")


def format_console_traceback(exc: BaseException) -> str:
    """A traceback showing only the console's frames, like the interactive interpreter."""
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack if f.filename == FILENAME])
    te.__cause__ = te.__context__ = None
    return "".join(te.format())

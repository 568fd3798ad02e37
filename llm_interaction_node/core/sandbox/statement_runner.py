"""Run one console input in a persistent namespace and say what it printed.

This is the part of the console that touches generated code: parse, the sandbox's checks and
rewrites, the display rewrite (console semantics), exec under the watchdog, and the error
text. The :class:`~.console.ConsoleSession` records the result; where the code runs is its
choice: here, in the calling process (:class:`StatementRunner`), or in a sandbox worker
process that holds a runner of its own (``core/sandbox/process.py``).
"""
from __future__ import annotations

import ast
import io
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..transcript.errors import (
    EndOfInteraction,
    InteractionAborted,
    SemanticHintError,
    StatementTimeout,
)
from .numpy_view import restore_numpy_settings
from .sandbox import Sandbox, SandboxViolation

FILENAME = "<console>"
DISPLAY = "__console_display__"

# Extra hints after errors whose plain message rarely tells the LLM what to do.
LOOKUP_HINTS = {
    IndexError: "Hint: the index is outside the sequence; check its length first.",
    KeyError: "Hint: that key does not exist; look at the available keys first.",
}

Bind = Callable[[Callable[[Callable], Callable]], Mapping[str, Callable]]


@dataclass
class RunOutcome:
    """What one input printed (errors included, not truncated) and the error it ended with;
    ``defines_only``: the input only defined functions (safe to run again in a new worker);
    ``total_chars``: the output's full length where ``output`` is only its beginning;
    ``printed``: where the error's text starts in ``output``."""

    output: str
    error: BaseException | None = None
    defines_only: bool = False
    total_chars: int | None = None
    printed: int | None = None


class ConsoleOutput:
    """The current input's output as it is written: the code's ``print`` and displayed values
    and what the console's built-ins write (learn_from_interaction()'s message). Made with
    the built-ins (:class:`~.builtins.InteractionBuiltins`) and handed to the console's
    runner, which starts each input with it empty and takes it when the input ends (the
    worker runner: after each API call), so a built-in's text lands where it was written."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()

    def write(self, text: str) -> None:
        self._buffer.write(text)

    def tell(self) -> int:
        """How many characters were written since the last take."""
        return self._buffer.tell()

    def take(self) -> str:
        """What was written since the last take; empties it."""
        text = self._buffer.getvalue()
        self._buffer = io.StringIO()
        return text


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


class StatementRunner:
    """A namespace with the API bound into it (``bind(wrap)``: name -> callable) that runs
    console inputs through ``sandbox``; ``output``: where the current input's output is
    written (the built-ins' :class:`ConsoleOutput`, in-process; a new one by default)."""

    def __init__(self, bind: Bind, sandbox: Sandbox, output: ConsoleOutput | None = None):
        self.bind = bind
        self.sandbox = sandbox
        self.output = output if output is not None else ConsoleOutput()
        self.reset()

    def write(self, text: str) -> None:
        self.output.write(text)

    def _display(self, value) -> None:
        if value is not None:
            self.output.write(repr(value) + "\n")

    def reset(self) -> None:
        """A fresh namespace (a new task), numpy's settings as they were at start."""
        restore_numpy_settings()
        ns = self.sandbox.new_globals(self.write)
        ns.update(self.bind(self.sandbox.wrap_api))
        ns[DISPLAY] = self._display
        self.namespace = ns

    def run(self, source: str) -> RunOutcome:
        """Run one input; every failure of the code is in the output and the outcome (the
        caller re-raises EndOfInteraction and InteractionAborted)."""
        self.output.take()                   # nothing written between inputs is kept
        error: BaseException | None = None
        defines_only = False
        printed = None
        try:
            tree = ast.parse(source, filename=FILENAME, mode="exec")
            defines_only = bool(tree.body) and all(
                isinstance(node, ast.FunctionDef) for node in tree.body)
            code = self._compile(tree)
            if code is not None:
                self.sandbox.run(code, self.namespace)
        except (EndOfInteraction, InteractionAborted, StatementTimeout, Exception) as exc:
            # noqa: BLE001 - every error of generated code is reported
            error = exc
            printed = self.output.tell()
            self.output.write(error_text(exc))
        return RunOutcome(self.output.take(), error, defines_only and error is None,
                          printed=printed)

    def _compile(self, tree: ast.Module):
        if not tree.body:            # a comment or blank input does nothing
            return None
        tree = self.sandbox.prepare(tree)
        tree = ast.fix_missing_locations(_DisplayExpressions().visit(tree))
        return compile(tree, FILENAME, "exec")

    def close(self) -> None:
        """Nothing to release in-process (the worker runner ends its process)."""


def error_text(exc: BaseException) -> str:
    """What the console prints for an error that ended an input."""
    if isinstance(exc, (EndOfInteraction, InteractionAborted)):
        return ""
    if isinstance(exc, SyntaxError):
        return "".join(traceback.format_exception_only(type(exc), exc))
    if isinstance(exc, SandboxViolation):
        return f"SandboxViolation: {exc}\n"
    if isinstance(exc, SemanticHintError):
        return f"{exc}\n"
    if isinstance(exc, StatementTimeout):
        return f"StatementTimeout: {exc}\n"
    text = format_console_traceback(exc)
    hint = next((h for t, h in LOOKUP_HINTS.items() if isinstance(exc, t)), None)
    return text + hint + "\n" if hint else text


def format_console_traceback(exc: BaseException) -> str:
    """A traceback showing only the console's frames, like the interactive interpreter."""
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack if f.filename == FILENAME])
    te.__cause__ = te.__context__ = None
    return "".join(te.format())

"""Per-turn limits on what the LLM may get wrong before the robot gives up.

As in the reference method: undefined names and wrong calls (NameError, TypeError) share one
budget of 3, semantic hints of the robot API have 4, imports 3, index and key errors share 3,
and the counters start again after every statement that succeeds, so only errors in a row use
a budget up. The reference ends the run at once on any other error; here the other classes
(syntax, refused code, ValueError/AttributeError, timeouts, the rest) are fed back too, each
with a budget of its own (docs/evaluation.md, "Differences from the reference's rules"); a turn \
may run a bounded number of statements; a statement, or a cycle of a few
statements, repeated ``loop_repeats`` times in a row is a loop. A cycle of ``redo_cycle`` or
more statements is a loop when done twice in a row: the whole plan again (a small model that
finished a task and does not hand back repeats it until the statement cap, seen in benchmark
runs), so the loop intervention comes while statements are left.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from ..sandbox import ImportRefused, SandboxViolation
from ..transcript.errors import SemanticHintError, StatementTimeout


class ErrorClass(StrEnum):
    """The error classes budgets count (a str: ``agent.budgets`` keys in the settings)."""

    NAME = "name"            # undefined names and wrong calls (NameError, TypeError: one budget)
    ARGUMENT = "argument"    # wrong values / attributes (ValueError, AttributeError)
    SEMANTIC = "semantic"    # SemanticHintError from the robot API
    IMPORT = "import"        # import statements (ImportRefused from the sandbox)
    LOOKUP = "lookup"        # IndexError / KeyError
    SYNTAX = "syntax"        # the LLM did not write valid Python
    SANDBOX = "sandbox"      # refused code
    TIMEOUT = "timeout"      # statements that ran too long
    RUNTIME = "runtime"      # anything else
    REFUSED = "refused"      # inputs the console constraint did not run (the agent's)


DEFAULT_BUDGETS = {
    ErrorClass.NAME: 3, ErrorClass.ARGUMENT: 3, ErrorClass.SEMANTIC: 4, ErrorClass.IMPORT: 3,
    ErrorClass.LOOKUP: 3, ErrorClass.SYNTAX: 3, ErrorClass.SANDBOX: 3, ErrorClass.TIMEOUT: 2,
    ErrorClass.RUNTIME: 3,
}


def error_class(error: BaseException) -> ErrorClass:
    """The class of an error, by its type only (never by its message)."""
    if isinstance(error, SyntaxError):
        return ErrorClass.SYNTAX
    if isinstance(error, (ImportError, ImportRefused)):
        return ErrorClass.IMPORT
    if isinstance(error, SandboxViolation):
        return ErrorClass.SANDBOX
    if isinstance(error, SemanticHintError):
        return ErrorClass.SEMANTIC
    if isinstance(error, (NameError, TypeError)):
        return ErrorClass.NAME
    if isinstance(error, (ValueError, AttributeError)):
        return ErrorClass.ARGUMENT
    if isinstance(error, (IndexError, KeyError)):
        return ErrorClass.LOOKUP
    if isinstance(error, StatementTimeout):
        return ErrorClass.TIMEOUT
    return ErrorClass.RUNTIME


@dataclass
class TurnLimits(Protocol):
    """What a turn is limited by: the ``agent`` settings section (``core.agent.AgentConfig``)."""

    max_statements_per_turn: int
    loop_repeats: int               # a statement or cycle repeated this often in a row is a loop
    redo_cycle: int                 # cycles this long are a loop when done twice in a row


MAX_CYCLE = 6                       # longest cycle of statements looked for


@dataclass
class TurnState:
    """Counters for the current user turn; a fresh one starts with each utterance."""

    limits: TurnLimits
    statements: list[str] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    loops: int = 0
    comment_loops: int = 0          # loops of comments only: noted, never a reset
    repeat_notes: int = 0           # notes given for redoing the attempt the user answered

    def record_statement(self, source: str) -> None:
        self.statements.append(_normalise(source))

    def record_success(self) -> None:
        """A statement ran without error: the error budgets start again (reference method)."""
        self.errors.clear()

    def record_error(self, kind: str) -> str | None:
        """Count an error; return a reason string when its budget is spent."""
        self.errors[kind] += 1
        budget = DEFAULT_BUDGETS.get(kind, DEFAULT_BUDGETS[ErrorClass.RUNTIME])
        if self.errors[kind] > budget:
            return f"too many errors of kind '{kind}' ({self.errors[kind]} > {budget})"
        return None

    def would_loop(self, source: str) -> bool:
        """True if running ``source`` would complete ``loop_repeats`` repetitions in a row of
        one statement or of a cycle of up to ``MAX_CYCLE`` statements (e.g. A B C A B C A B C)."""
        return repeated_cycle(self.statements + [_normalise(source)], self.limits.loop_repeats,
                              MAX_CYCLE, self.limits.redo_cycle) is not None

    @property
    def statements_left(self) -> int:
        return self.limits.max_statements_per_turn - len(self.statements)


def repeated_cycle(statements: list[str], repeats: int, max_cycle: int,
                   redo_cycle: int = 0) -> int | None:
    """The length of the shortest cycle that the END of ``statements`` repeats ``repeats``
    times in a row (twice for cycles of ``redo_cycle`` or more statements; 0: no such rule),
    or None."""
    if repeats < 2:
        return None
    for length in range(1, max_cycle + 1):
        span = length * (2 if redo_cycle and length >= redo_cycle else repeats)
        if span > len(statements):
            continue
        tail = statements[-span:]
        if all(tail[i] == tail[i % length] for i in range(span)):
            return length
    return None


def _normalise(source: str) -> str:
    return " ".join(source.split())

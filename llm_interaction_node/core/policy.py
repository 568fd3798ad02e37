"""Per-turn limits on what the LLM may get wrong before the robot gives up.

As in the reference method: undefined names and wrong calls (NameError, TypeError) share one
budget of 3, semantic hints of the robot API have 4, imports 3, index and key errors share 3,
and the counters start again after every statement that succeeds, so only errors in a row use
a budget up. The reference ends the run at once on any other error; here the other classes
(syntax, refused code, ValueError/AttributeError, timeouts, the rest) are fed back too, each
with a budget of its own (docs/evaluation.md, "Differences from the reference's rules"); a turn may run a bounded number of statements; a statement, or a cycle of a few
statements, repeated ``loop_repeats`` times in a row is a loop. A cycle of ``redo_cycle`` or
more statements is a loop when done twice in a row: the whole plan again (a small model that
finished a task and does not hand back repeats it until the statement cap, seen in benchmark
runs), so the loop intervention comes while statements are left.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from .errors import SemanticHintError, StatementTimeout
from .sandbox import ImportRefused, SandboxViolation

DEFAULT_BUDGETS = {
    "name": 3,        # undefined names and wrong calls (NameError, TypeError: one budget)
    "argument": 3,    # wrong values / attributes (ValueError, AttributeError)
    "semantic": 4,    # SemanticHintError from the robot API
    "import": 3,      # import statements (refused by the sandbox)
    "lookup": 3,      # IndexError / KeyError
    "syntax": 3,      # the LLM did not write valid Python
    "sandbox": 3,     # refused code
    "timeout": 2,     # statements that ran too long
    "runtime": 3,     # anything else
}


def error_class(error: BaseException) -> str:
    if isinstance(error, SyntaxError):
        return "syntax"
    if isinstance(error, (ImportError, ImportRefused)):
        return "import"
    if isinstance(error, SandboxViolation):
        return "sandbox"
    if isinstance(error, SemanticHintError):
        return "semantic"
    if isinstance(error, (NameError, TypeError)):
        return "name"
    if isinstance(error, (ValueError, AttributeError)):
        return "argument"
    if isinstance(error, (IndexError, KeyError)):
        return "lookup"
    if isinstance(error, StatementTimeout):
        return "timeout"
    return "runtime"


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

    def record_statement(self, source: str) -> None:
        self.statements.append(_normalise(source))

    def record_success(self) -> None:
        """A statement ran without error: the error budgets start again (reference method)."""
        self.errors.clear()

    def record_error(self, kind: str) -> str | None:
        """Count an error; return a reason string when its budget is spent."""
        self.errors[kind] += 1
        budget = DEFAULT_BUDGETS.get(kind, DEFAULT_BUDGETS["runtime"])
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

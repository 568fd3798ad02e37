"""Per-turn limits on what the LLM may get wrong before the robot gives up.

As in the reference method: each error class has its own retry budget, a turn may run a
bounded number of statements, and a statement repeated over and over is a loop.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .errors import SemanticHintError, StatementTimeout
from .sandbox import SandboxViolation

DEFAULT_BUDGETS = {
    "name": 3,        # undefined names
    "argument": 3,    # wrong arguments / attributes / values
    "semantic": 4,    # SemanticHintError from the robot API
    "lookup": 4,      # IndexError / KeyError
    "syntax": 3,      # the LLM did not write valid Python
    "sandbox": 3,     # refused code
    "timeout": 2,     # statements that ran too long
    "runtime": 3,     # anything else
    "empty": 3,       # empty LLM output (retried at a higher temperature)
}


def error_class(error: BaseException) -> str:
    if isinstance(error, SyntaxError):
        return "syntax"
    if isinstance(error, SandboxViolation):
        return "sandbox"
    if isinstance(error, SemanticHintError):
        return "semantic"
    if isinstance(error, NameError):
        return "name"
    if isinstance(error, (TypeError, ValueError, AttributeError)):
        return "argument"
    if isinstance(error, (IndexError, KeyError)):
        return "lookup"
    if isinstance(error, StatementTimeout):
        return "timeout"
    return "runtime"


@dataclass
class TurnPolicy:
    max_statements: int = 15
    loop_repeats: int = 3
    budgets: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_BUDGETS))


@dataclass
class TurnState:
    """Counters for the current user turn; a fresh one starts with each utterance."""

    policy: TurnPolicy
    statements: list[str] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    loops: int = 0

    def record_statement(self, source: str) -> None:
        self.statements.append(_normalise(source))

    def record_error(self, kind: str) -> str | None:
        """Count an error; return a reason string when its budget is spent."""
        self.errors[kind] += 1
        budget = self.policy.budgets.get(kind, DEFAULT_BUDGETS["runtime"])
        if self.errors[kind] > budget:
            return f"too many errors of kind '{kind}' ({self.errors[kind]} > {budget})"
        return None

    def would_loop(self, source: str) -> bool:
        """True if running ``source`` would repeat the same statement loop_repeats times."""
        n = self.policy.loop_repeats - 1
        recent = self.statements[-n:] if n > 0 else []
        return len(recent) == n and all(s == _normalise(source) for s in recent)

    @property
    def statements_left(self) -> int:
        return self.policy.max_statements - len(self.statements)


def _normalise(source: str) -> str:
    return " ".join(source.split())

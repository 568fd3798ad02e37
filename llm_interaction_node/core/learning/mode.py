"""What a learning mode uses of the learner: a protocol, so that no mode imports learner.py
(the learner imports the modes and dispatches to them, :data:`.learner.STORES`)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..llm import TokenLedger
    from ..reading.structure import Reading
    from .outcome import LearnOutcome, LearnStatus, Lesson
    from .replay_check import ReplayCheck


class ModeLearner(Protocol):
    """The :class:`~.learner.Learner` as a mode's store function sees it."""

    llm: Any
    api_listing: str
    api_names: frozenset[str]
    say: Callable[[str], None]
    ledger: TokenLedger | None
    interaction_id: Callable[[], str]
    check: ReplayCheck | None
    read: Callable[[str], Reading | None]
    write_move: Callable[[str, str], str] | None
    act: Callable[[str], str] | None

    def ends(self) -> dict[str, str]:
        """Where each object's last move took it, as the interaction left them."""
        ...

    def store(self, lesson: Lesson, status: LearnStatus, message: str, said: str) -> LearnOutcome:
        """Store ``lesson`` in the memory; the outcome (``status`` and ``message`` if it was)."""
        ...


__all__ = ["ModeLearner"]

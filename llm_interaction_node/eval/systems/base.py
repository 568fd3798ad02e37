"""What the benchmark harness needs from a system under test.

One *run* of the protocol: the harness builds a scene, hands the system the instruction
and a ``next_utterance`` callback, and the system acts on the robot. Whenever the system
hands control back to the user (ours: ``wait_for_trigger()``; CaP: the program ended) it
calls ``next_utterance(Round(...))``; the harness then judges the world, asks the simulated
user, and returns the user's next utterance (feedback, a request to learn, ...) or ``None``
when the run is over. ``run`` returns after ``None``. Memory persists across runs; the
interaction (console locals, transcript) does not.

Every LLM call goes through ``self.llm`` (an LLMClient) and is recorded in ``self.ledger``
(a TokenLedger), so token use is comparable across systems.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ...core.apis.tabletop import TabletopRobot
from ...core.llm import LLMClient, TokenLedger


@dataclass
class Round:
    """How the system handed back: ``error`` is None when it finished normally, else a short
    reason (gave up after its error budget, exception in the program, timeout, ...)."""

    error: str | None = None
    transcript: str = ""          # what the system did this round (console text or code)
    statements: int = 0           # statements / program lines executed this round
    statuses: list[str] = field(default_factory=list)   # ours: the agent's TurnStatus per turn
    extra: dict = field(default_factory=dict)


UserTurn = Callable[[Round], "str | None"]


class System(Protocol):
    name: str
    llm: LLMClient
    ledger: TokenLedger
    api_preset: str          # the robot API every system gets (robot_api.preset), per run record

    def run(self, robot: TabletopRobot, instruction: str, next_utterance: UserTurn) -> None:
        """Carry out one run (see the module docstring)."""
        ...

    def episode_succeeded(self) -> None:
        """The harness judged the last run a success: systems that grow their memory with
        successful episodes (Dynamic CaP, HELPER, store_episodes) store what they did in it
        (they know their own last run); others ignore it."""
        ...

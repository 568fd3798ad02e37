"""Our system on the tabletop: the console agent with retrieval and learning, and its ablations.

Each run gets a fresh console (locals and transcript) on the run's robot; the example memory
(ChromaDB, seeded with ``config/transcripts/tabletop``) lives in ``memory_dir`` and persists
across runs. The simulated user is reached through ``wait_for_trigger()``: its first call
returns the instruction, each later call hands the round back to the harness.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...core.agent import AgentConfig
from ...core.llm import LLMClient, TokenLedger
from ...core.memory.store import ExampleMemory, MemoryConfig
from ...core.user import CallbackUser
from ...session import (LearningSettings, attach_learning, build_agent, build_console,
                        memory_examples, store_episode)
from ...paths import config_path
from ...core.apis.tabletop import TabletopRobot
from .base import Round, UserTurn


@dataclass(frozen=True)
class Variant:
    """One row of the paper's ablation table."""

    name: str
    k: int = 16
    mode: str = "improve"            # improve | raw (w/o improve) | off (w/o learning)
    retrieval: bool = True


VARIANTS = {v.name: v for v in (
    Variant("ours"),
    Variant("ours_k4", k=4),
    Variant("ours_no_retrieval", retrieval=False),
    Variant("ours_no_improve", mode="raw"),
    Variant("ours_no_learning", k=64, mode="off"),
)}


class OursSystem:
    def __init__(self, llm: LLMClient, memory_dir: str | Path, variant: str | Variant = "ours",
                 ledger: TokenLedger | None = None, config: AgentConfig | None = None,
                 statement_timeout_s: float = 10.0):
        self.variant = VARIANTS[variant] if isinstance(variant, str) else variant
        self.name = self.variant.name
        self.llm = llm
        self.ledger = ledger or TokenLedger()
        self.config = config or AgentConfig()
        self.statement_timeout_s = statement_timeout_s
        self.learning = LearningSettings(mode=self.variant.mode, retrieval=self.variant.retrieval)
        self.memory = ExampleMemory("tabletop", MemoryConfig(path=str(memory_dir), k=self.variant.k))
        self.memory.seed_from(config_path("transcripts", "tabletop"))
        self._console = None

    def run(self, robot: TabletopRobot, instruction: str, next_utterance: UserTurn) -> None:
        state = {"first": True, "agent": None, "seen_turns": 0}

        def respond(purpose, prompt):
            if state["first"]:
                state["first"] = False
                return instruction
            agent = state["agent"]
            new_turns = agent.turns[state["seen_turns"]:]
            state["seen_turns"] = len(agent.turns)
            error = next((f"{t.status}: {t.reason}" for t in new_turns
                          if t.status in ("error", "reset")), None)
            return next_utterance(Round(error=error, transcript=console.transcript.render(),
                                        statements=sum(t.statements for t in new_turns)))

        console = build_console("tabletop", robot, CallbackUser(respond),
                                statement_timeout_s=self.statement_timeout_s)
        if self.learning.mode != "off":
            attach_learning(console, self.llm, self.memory, self.learning.mode, self.ledger)
        agent = build_agent("tabletop", self.llm, console,
                            memory_examples(self.memory, self.variant.k, self.learning.retrieval),
                            config=self.config, ledger=self.ledger)
        state["agent"] = agent
        self._console = console
        agent.run()

    def episode_succeeded(self) -> None:
        if self._console is not None:
            store_episode(self.memory, self._console, self.learning)

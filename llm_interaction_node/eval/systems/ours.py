"""Our system on the tabletop: the console agent with retrieval and learning, and its ablations.

Each run gets a fresh session (console locals and transcript) on the run's robot from
:func:`~...session.build_session`; the example memory (ChromaDB, seeded with
``config/transcripts/tabletop``) lives in ``memory_dir`` and persists across runs. The
simulated user is reached through ``wait_for_trigger()``: its first call returns the
instruction, each later call hands the round back to the harness.
"""
from __future__ import annotations

import time
from pathlib import Path

from ...core.agent import FAILED_STATUSES
from ...core.apis.sets import TABLETOP
from ...core.apis.tabletop import TabletopRobot
from ...core.console.session import ConsoleSession
from ...core.llm import LLMClient, TokenLedger
from ...core.user.channel import CallbackUser
from ...session import Session, build_session, open_memory
from ...settings import LearningSettings, Settings
from .base import Round, UserTurn
from .variants import VARIANTS, Variant


class OursSystem:
    def __init__(self, llm: LLMClient, memory_dir: str | Path, variant: str | Variant = "ours",
                 ledger: TokenLedger | None = None, settings: Settings | None = None):
        self.variant = VARIANTS[variant] if isinstance(variant, str) else variant
        self.name = self.variant.name
        self.llm = llm
        self.ledger = ledger or TokenLedger()
        self.settings = self.variant.settings(settings or Settings(), memory_dir)
        self.api_preset = self.settings.robot_api.preset    # build_session's robot API
        self.memory = RetrievalLog(open_memory(TABLETOP, self.settings.memory))
        self.session: Session | None = None
        self.first_statement_s: float | None = None   # last run: instruction -> first statement
        self.startup_s: float | None = None           # last run: start -> instruction (prefill)

    def run(self, robot: TabletopRobot, instruction: str, next_utterance: UserTurn) -> None:
        state = {"first": True, "seen_turns": 0}

        def respond(purpose, prompt):
            if state["first"]:
                state["first"] = False
                state["told"] = time.perf_counter()     # after the start-up prefill
                self.startup_s = round(state["told"] - started, 2)
                return instruction
            agent, console = session.agent, session.console
            new_turns = agent.turns[state["seen_turns"]:]
            state["seen_turns"] = len(agent.turns)
            # a budget spent or the statement cap fails the round; a loop reset hands back
            # normally (reference): the world is judged and the user carries on
            error = next((f"{t.status}: {t.reason}" for t in new_turns
                          if t.status in FAILED_STATUSES), None)
            # what a reset threw away comes first, so the record shows all that was done
            before_reset = "".join(t.discarded.rstrip("\n") + "\n" for t in new_turns
                                   if t.discarded)
            return next_utterance(Round(error=error,
                                        transcript=before_reset + console.transcript.render(),
                                        statements=sum(t.statements for t in new_turns),
                                        statuses=[str(t.status) for t in new_turns]))

        def first_input(_source: str) -> None:
            if self.first_statement_s is None and not state["first"]:
                self.first_statement_s = round(time.perf_counter() - state["told"], 2)

        session = build_session(TABLETOP, robot, CallbackUser(respond), self.settings,
                                llm=self.llm, memory=self.memory, ledger=self.ledger,
                                input_listeners=[first_input])
        self.session = session
        self.memory.ids.clear()
        started = time.perf_counter()
        self.first_statement_s = self.startup_s = None
        try:
            session.agent.run()
        finally:
            session.console.close()      # its sandbox worker: one per run otherwise (issue 45)

    @property
    def retrieved(self) -> list[str]:
        """Ids of the learned (non-seed) examples the last run's prompts held, first seen first:
        the run record's answer to "was what an earlier run learned retrieved?"."""
        return list(self.memory.ids)

    def learning_log(self) -> list[dict]:
        """What each learn_from_interaction() of the last run did (for the run record)."""
        learner = self.session.learner if self.session is not None else None
        out = []
        for outcome in (learner.outcomes if learner is not None else []):
            example = outcome.example
            out.append({"status": str(outcome.status), "message": outcome.message,
                        "gate": outcome.gate.rule if outcome.gate else None,
                        "problem": getattr(example, "problem", None),
                        "improvement": getattr(example, "improvement", None),
                        "example_id": getattr(example, "id", None),
                        "transcript": getattr(example, "transcript", None),
                        "improve_answers": outcome.improve.answers if outcome.improve else None})
        return out

    def episode_succeeded(self) -> None:
        if self.session is not None:
            store_episode(self.memory, self.session.console, self.settings.learning)


def store_episode(memory, console: ConsoleSession, learning: LearningSettings):
    """HELPER / Dynamic CaP growth for ours: keep the transcript of an episode that ended in
    success (``learning.store_episodes``; a no-op unless enabled). Called when the harness
    judged the episode a success (:meth:`OursSystem.episode_succeeded`)."""
    if not learning.store_episodes or not console.transcript.statements():
        return None
    return memory.add(console.transcript.render(), "episode", origin=console.task_id)


class RetrievalLog:
    """An example memory that notes the non-seed examples it hands out for prompts."""

    def __init__(self, memory):
        self._memory = memory
        self.ids: list[str] = []

    def prompt_examples(self, utterances, k=None, beyond=None):
        """Noted only for a request: the query-independent head a model prefills (no
        utterance) holds every lesson, retrieved or not."""
        found = self._memory.prompt_examples(utterances, k, beyond)
        if utterances:
            self.ids.extend(e.id for e in found if e.source != "seed" and e.id not in self.ids)
        return found

    def __getattr__(self, name):
        return getattr(self._memory, name)

"""The HELPER baseline as a benchmark System.

Protocol ("Baselines"): a planner prompt with the top-k (k = 16) language -> program examples
retrieved from a memory (seeded with the 16 static CaP examples, grown with successful
episodes in ``episode_succeeded()``), then the scene line and ``# <command>``. On an execution
error a separate self-reflection / correction prompt with k = 3 failure examples asks for a
corrected program (at most ``max_corrections`` times per command). No learning from feedback:
user feedback is passed to the planner as a new command, and the planner never sees its
earlier code (each program runs in a fresh namespace).

Programs may call the tabletop API, ``np`` and the ``parse_obj_name`` / ``parse_position``
sub-programs (static CaP prompts), because the seed examples use them. Undefined functions are
not defined recursively (that is CaP's mechanism): they fail and go to the correction prompt.
"""
from __future__ import annotations

import ast
import io
from pathlib import Path
from typing import Any

from ...core.apis.tabletop import TabletopApi, TabletopRobot
from ...core.llm import LLMClient, LLMError, TokenLedger
from .base import Round, UserTurn
from .cap import (
    DEFAULT_K,
    FILENAME,
    ProgramSystem,
    PromptSet,
    clean_code,
    episode_transcript,
    format_error,
    load_prompt_file,
    program_grammar,
    render_transcript_example,
    seed_memory,
)

HELPER_PROMPTS = ("eval", "helper_tabletop.yaml")


class Helper(ProgramSystem):
    """HELPER: retrieval-augmented planner + error correction (see the module docstring)."""

    name = "helper"

    def __init__(self, llm: LLMClient, memory_dir: str | Path, k: int = DEFAULT_K,
                 ledger: TokenLedger | None = None, *, api_name: str = "helper",
                 helper_prompts: str | Path | None = None, k_fail: int = 3,
                 max_corrections: int = 2, embedder=None, **kwargs: Any):
        super().__init__(llm, memory_dir, k, ledger, **kwargs)
        from ...core.memory.config import MemoryConfig
        from ...core.memory.store import ExampleMemory

        if memory_dir is None:
            raise ValueError("Helper needs a memory_dir")
        own = load_prompt_file(helper_prompts, default=HELPER_PROMPTS)
        for part in ("planner", "correction"):
            if part not in own:
                raise ValueError(f"the HELPER prompt file lacks the part {part!r}")
        self.planner: PromptSet = own["planner"]
        self.correction: PromptSet = own["correction"]
        self.k_fail = int(k_fail)
        self.max_corrections = int(max_corrections)
        self.memory = ExampleMemory(api_name, MemoryConfig(path=str(memory_dir), k=self.k),
                                    embedder=embedder)
        seed_memory(self.memory, self.prompts["main"].examples, "cap_tabletop.yaml:main")
        self.last_rounds: list[tuple[str, str]] = []   # (command, program that ran last)
        self.last_scene = ""
        self.last_retrieved: list = []

    # -- prompts --------------------------------------------------------------------
    def planner_prompt(self, command: str) -> str:
        """Header, retrieved examples (most similar last), scene line, the command. Nothing
        of the earlier rounds: HELPER does not see its earlier code."""
        found = self.memory.retrieve([command], self.k)
        self.last_retrieved = found
        examples = [render_transcript_example(ex.transcript) for ex, _ in found]
        return "".join([self.header(self.planner), "\n", *examples, f"{self._scene}\n",
                        f"# {command}\n"])

    def correction_prompt(self, command: str, code: str, error: str) -> str:
        parts = [self.header(self.correction), "\n"]
        for ex in self.correction.examples[: self.k_fail]:
            parts.append(self._failure_block(ex.context, ex.instruction, ex.code, ex.error)
                         + ex.fixed.rstrip() + "\n\n")
        parts.append(self._failure_block(self._scene, command, code, error))
        return "".join(parts)

    @staticmethod
    def _failure_block(context: str, command: str, code: str, error: str) -> str:
        head = f"{context}\n" if context else ""
        failed = "\n".join("#   " + ln for ln in code.rstrip().splitlines()) or "#   (empty)"
        return (f"{head}# command: {command}\n# failed program:\n{failed}\n"
                f"# error: {error.strip()}\n# corrected program:\n")

    # -- the run --------------------------------------------------------------------
    def _try(self, api: TabletopApi, code: str) -> BaseException | str | None:
        """Run a program in a fresh namespace; the error or None."""
        if not code.strip():
            return "empty program"
        try:
            ast.parse(code, filename=FILENAME, mode="exec")
        except SyntaxError as exc:
            return exc
        return self._execute(code, self._namespace(api))

    def _command_round(self, api: TabletopApi, command: str) -> Round:
        self._out = io.StringIO()
        try:
            code = clean_code(self._complete(self.planner_prompt(command), "plan"))
        except LLMError as exc:
            return self._round(f"llm error: {exc}", command, "")
        programs = [code]
        error = self._try(api, code)
        corrections = 0
        while error is not None and corrections < self.max_corrections:
            corrections += 1
            text = error if isinstance(error, str) else format_error(error)
            try:
                code = clean_code(self._complete(self.correction_prompt(command, code, text),
                                                 "correct"))
            except LLMError as exc:
                error = f"llm error: {exc}"
                break
            programs.append(code)
            error = self._try(api, code)
        self.last_rounds.append((command, code))
        transcript_code = "\n# corrected:\n".join(p.rstrip() for p in programs)
        return self._round(error, command, transcript_code, corrections=corrections,
                           programs=programs)

    def run(self, robot: TabletopRobot, instruction: str, next_utterance: UserTurn) -> None:
        api = self.make_api(robot)
        self.grammar = program_grammar(api)
        self._scene = f"objects = {api.get_obj_names()!r}"
        self.last_scene = self._scene
        self.last_rounds = []
        self._sub_calls = []
        command = instruction
        while True:
            reply = next_utterance(self._command_round(api, command))
            if reply is None:
                return
            command = str(reply)

    def episode_succeeded(self) -> None:
        """Store the last run's commands with the programs that ran last for each."""
        rounds = [(u, c) for u, c in self.last_rounds if c.strip()]
        if rounds:
            self.memory.add(episode_transcript(rounds, self.last_scene), "episode",
                            origin=self.name)


def make(
    llm: LLMClient,
    memory_dir: str | Path,
    k: int = DEFAULT_K,
    ledger: TokenLedger | None = None,
    **kwargs: Any,
) -> Helper:
    """The factory ``eval.systems.make_system`` uses."""
    return Helper(llm, memory_dir, k, ledger, **kwargs)


__all__ = ["Helper", "make"]

"""The start-up warm-up is the same in every world (issue 60 item 4): what the embedded model
evaluates before the user speaks (the console prompt's header, API listing and seed block, the
reading prompts' examples, core/agent/prefill.py: warm_up_steps; L_improve's chat up to the
interaction, the learner's: core/learning/improve.py warm_up) holds nothing of a world, so
the states the install saved on disk for `make run`'s world serve a world never started before
(measured: docs/benchmarks.md, "The first request in a world never started before"). A world
adds only after it: its scene comes with the request, in the interaction."""
from __future__ import annotations

from pathlib import Path

import pytest

from llm_interaction_node.cli import make_world
from llm_interaction_node.core.llm.base import Backend
from llm_interaction_node.core.llm.config import LLMConfig
from llm_interaction_node.core.llm.scripted import render_chat
from llm_interaction_node.core.llm.usage import Usage
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.paths import DEFAULT_WORLD, list_worlds
from llm_interaction_node.session import build_session
from llm_interaction_node.settings import load_settings

WORLDS = list_worlds()


class Prefills(Backend):
    """A stateful stand-in: it records each prefill's text (what would be saved on disk)."""

    def __init__(self):
        self.config = LLMConfig(model="prefills")
        self.prefills: list[str] = []

    def describe(self) -> str:
        return "records prefills"

    def prefill(self, prefix, system=None, persist=False):
        assert persist
        self.prefills.append(prefix)
        return Usage()

    def prefill_chat(self, messages, until, persist=False):
        assert persist
        head, found, _ = render_chat(messages).partition(until)
        assert found
        self.prefills.append(head)
        return Usage()

    def execute(self, request):
        raise AssertionError("the warm-up only prefills")


def warm_up(world: str, memory: Path) -> list[str]:
    settings = load_settings(None, overrides={"memory.path": str(memory)})
    llm = Prefills()
    session = build_session("humanoid", make_world("humanoid", world, 0), EventQueue(), settings,
                            llm=llm)
    steps = session.agent.warm_up_steps()
    assert [what for what, _ in steps] == ["the console prompt", "the reading prompts",
                                           "the learning prompt"]
    for _what, step in steps:
        step()
    return llm.prefills


@pytest.mark.timeout(120)
def test_every_world_warms_up_the_same_prompts(tmp_path):
    assert len(WORLDS) >= 4 and DEFAULT_WORLD in WORLDS
    first = warm_up(DEFAULT_WORLD, tmp_path / "memory")
    assert "# Examples of earlier interactions:" in first[0] and len(first) >= 3
    # L_improve's chat up to the interaction (core/learning/improve.py: warm_up)
    assert first[-1].endswith("Interaction:\n") and "Functions of the robot:" in first[-1]
    for world in WORLDS:
        if world != DEFAULT_WORLD:
            assert warm_up(world, tmp_path / "memory") == first, world


def test_only_modes_that_ask_l_improve_warm_it_up(tmp_path):
    settings = load_settings(None, overrides={"memory.path": str(tmp_path / "memory"),
                                              "learning.mode": "final"})
    session = build_session("humanoid", make_world("humanoid", DEFAULT_WORLD, 0), EventQueue(),
                            settings, llm=Prefills())
    assert [what for what, _ in session.agent.warm_up_steps()] == [
        "the console prompt", "the reading prompts"]

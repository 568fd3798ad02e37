"""Memory wiring of a session: ablation settings, example sources, episodes, forgetting."""
import pytest

from llm_interaction_node.core.builtins import FORGET_REFUSAL
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.user import EventQueue
from llm_interaction_node.session import LearningSettings, attach_learning, build_console, \
    make_world, memory_examples, open_memory, store_episode

LEARNED = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'bring me the mango juice'}
>>> say('I will bring the juice in my left hand.')
>>> wait_for_trigger()"""


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    return open_memory("humanoid", {"path": str(tmp_path_factory.mktemp("memory"))})


def console_with(memory, utterances):
    console = build_console("humanoid", make_world("humanoid", "drinks_and_cup"),
                            EventQueue(utterances, close=True))
    attach_learning(console, ScriptedLLM([]), memory)
    return console


def test_learning_settings_validate():
    assert LearningSettings.from_dict(None) == LearningSettings()
    assert LearningSettings.from_dict({"mode": "raw", "retrieval": False}).mode == "raw"
    with pytest.raises(ValueError, match="learning.mode"):
        LearningSettings.from_dict({"mode": "sometimes"})
    with pytest.raises(ValueError, match="unknown learning settings"):
        LearningSettings.from_dict({"k": 3})


def test_seeded_memory_feeds_the_prompt_with_and_without_retrieval(memory):
    seeds = memory.count("seed")
    assert seeds >= 10
    retrieved = memory_examples(memory, k=4)(["can you hand me the milk?"])
    assert len(retrieved) == 4 and "milk-carton_0" in retrieved[-1]       # most similar last
    everything = memory_examples(memory, k=4, retrieval=False)(["can you hand me the milk?"])
    assert len(everything) == memory.count()
    assert memory_examples(memory, k=4)([]) == []


def test_successful_episodes_are_stored_only_when_enabled(memory):
    console = console_with(memory, ["hello"])
    console.execute("wait_for_trigger()")
    console.execute("list_locations()")
    assert store_episode(memory, console, LearningSettings()) is None
    example = store_episode(memory, console, LearningSettings(store_episodes=True))
    assert memory.get(example.id).source == "episode" and "list_locations()" in example.transcript
    memory.delete([example.id])


def test_forget_removes_learned_examples_only_on_request(memory):
    learned = memory.add(LEARNED, "learned", improvement="Carry the juice in the left hand.")
    seeds = memory.count("seed")
    console = console_with(memory, ["where is the juice?",
                                    "please forget what you learned about the mango juice"])
    console.execute("wait_for_trigger()")
    assert console.execute("forget_learned('mango juice')").entry.output == repr(FORGET_REFUSAL)
    assert memory.has(learned.id)
    console.execute("wait_for_trigger()")
    out = console.execute("forget_learned('mango juice')").entry.output
    assert out == "'removed 1 learned example(s)'"
    assert not memory.has(learned.id) and memory.count("seed") == seeds

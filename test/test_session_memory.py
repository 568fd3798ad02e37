"""Memory wiring of a session: ablation settings, example sources, episodes, forgetting."""
import pytest

from learning_support import learning_session
from llm_interaction_node.core.console.builtins import FORGET_REFUSAL
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.source import ExampleSource
from llm_interaction_node.core.settings.config import from_mapping
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.eval.systems.ours import store_episode
from llm_interaction_node.session import build_session, make_world, open_memory
from llm_interaction_node.settings import LearningSettings, Settings

LEARNED = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'bring me the mango juice'}
>>> say('I will bring the juice in my left hand.')
>>> wait_for_trigger()"""


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    return open_memory("humanoid", {"path": str(tmp_path_factory.mktemp("memory"))})


def console_with(memory, utterances):
    return learning_session(utterances, memory, [], replay=False).console


def test_learning_settings_validate():
    assert from_mapping(LearningSettings, None, "learning") == LearningSettings()
    assert from_mapping(LearningSettings, {"mode": "raw", "retrieval": False},
                        "learning").mode == "raw"
    with pytest.raises(ValueError, match="learning.mode"):
        from_mapping(LearningSettings, {"mode": "sometimes"}, "learning")
    with pytest.raises(ValueError, match="learning.mode"):
        LearningSettings(mode="sometimes")
    with pytest.raises(ValueError, match="unknown learning setting"):
        from_mapping(LearningSettings, {"k": 3}, "learning")


def test_seeded_memory_feeds_the_prompt_with_and_without_retrieval(memory):
    seeds = memory.count("seed")
    assert seeds >= 10
    # the default layout (memory.order seed_block): every seed in its fixed order, whatever
    # the request; no lesson here, so nothing after them (test_prompt_layout.py: with lessons)
    four = open_memory("humanoid", MemoryConfig(path=memory.config.path, k=4), seed=False)
    block = [e.transcript for e in four.seed_block()]
    assert len(block) == seeds and ExampleSource(four)([]) == block
    assert ExampleSource(four)(["can you hand me the milk?"]) == block
    assert ExampleSource(four)(["put the sponge away", "thanks"]) == block
    everything = ExampleSource(four, retrieval=False)(
        ["can you hand me the milk?"])
    assert len(everything) == memory.count()
    # memory.order stable_nearest: the 4 retrieved in their fixed order, the most similar again
    from llm_interaction_node.core.memory.order import stable_order
    four = open_memory("humanoid", MemoryConfig(path=memory.config.path, k=4,
                                                order="stable_nearest"), seed=False)
    retrieved = ExampleSource(four)(["can you hand me the milk?"])
    assert len(retrieved) == 5 and len(set(retrieved)) == 4 and retrieved[-1] in retrieved[:-1]
    assert "milk-carton_0" in retrieved[-1]                                # most similar last
    # no utterance yet (the start-up prefill): the head of the fixed order, the 4 most
    # central examples, which the retrieved ones share up to the first they lack (issue 20)
    head = ExampleSource(four)([])
    assert head == [e.transcript for e in stable_order(four.list(), four.seed_centrality())][:4]
    assert retrieved[0] == head[0] or head[0] not in retrieved


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


def test_build_session_assembles_the_agent_from_the_settings(memory):
    settings = Settings().with_overrides({"memory.k": 3, "agent.statement_timeout_s": 0.5,
                                          "agent.max_statements_per_turn": 7,
                                          "learning.mode": "raw",
                                          "memory.path": memory.config.path})
    llm = ScriptedLLM(["learn_from_interaction()", "wait_for_trigger()"])
    world = make_world("humanoid", "drinks_and_cup")
    memory = open_memory("humanoid", settings.memory, seed=False)    # memory.k = 3: its own
    session = build_session("humanoid", world, EventQueue(["remember this, please"], close=True),
                            settings, llm=llm, memory=memory)
    assert session.memory is memory and session.learner.mode == "raw"
    assert session.console.sandbox.timeout_s == 0.5
    assert session.agent.config is settings.agent                    # the section, as is
    assert session.agent.config.max_statements_per_turn == 7
    assert session.agent.stop is session.stop and session.agent.ledger is session.ledger
    raw_before = memory.count("raw")
    session.agent.run()                                     # the queue closes: the run ends
    assert memory.count("raw") == raw_before + 1            # the learner stored the interaction
    assert session.learner.last_outcome.stored
    assert "examples in" in session.memory_note
    prompt = llm.prompts[0]
    # every seed (memory.order seed_block), then at most memory.k = 3 learned ones
    learned = memory.count() - memory.count("seed") - 1     # before the raw one was stored
    assert prompt.count("# Example ") == memory.count("seed") + min(3, learned)


def test_build_session_without_memory_uses_the_fixed_examples():
    settings = Settings().with_overrides({"memory.enabled": False})
    session = build_session("tabletop", make_world("tabletop"), EventQueue([], close=True),
                            settings, llm=ScriptedLLM([]))
    assert session.memory is None and session.learner is None
    assert session.memory_note.startswith("no memory")
    out = session.console.execute("learn_from_interaction()").entry.output
    assert "no memory" in out


def test_build_session_hands_the_callers_listeners_to_the_console(tmp_path):
    """Issue 28: the caller's listeners are constructor arguments (nobody appends to a built
    console); with learning, the replay check's start listener comes first; a learn call's
    outcome is in what the input returns."""
    memory = open_memory("humanoid", {"path": str(tmp_path / "memory")}, seed=False)
    for enabled in (False, True):
        seen, inputs = [], []
        settings = Settings().with_overrides({"memory.enabled": enabled, "learning.mode": "raw"})
        session = build_session("humanoid", make_world("humanoid", "drinks_and_cup"),
                                EventQueue(["remember this, please"], close=True), settings,
                                llm=ScriptedLLM([]), memory=memory if enabled else None,
                                listeners=[seen.append], input_listeners=[inputs.append])
        console = session.console
        assert console.input_listeners[-1] == inputs.append
        assert console.listeners == [seen.append]
        console.execute("wait_for_trigger()")
        result = console.execute("learn_from_interaction()")
        assert inputs == ["wait_for_trigger()", "learn_from_interaction()"]
        assert [e.source for e in seen] == inputs
        if enabled:
            assert type(console.input_listeners[0]).__name__ == "FirstInputStart"
            assert result.lessons == (session.learner.last_outcome,)
            assert result.entry.output == result.lessons[0].message
        else:
            assert len(console.input_listeners) == 1
            # no learner: the call says so, and what it did is an outcome that stored nothing
            assert [o.stored for o in result.lessons] == [False]
        console.close()


def test_a_lesson_after_a_reset_is_stored_not_refused_as_a_repeat(tmp_path):
    """Issue 45: request, lesson (stored), a reset while idle, a new request, its lesson: the
    second lesson was refused as "already called for this user request" (the learner still
    held the first request's utterance count), and the user heard nothing."""
    import threading
    import time

    from llm_interaction_node.core.learning.outcome import LearnStatus
    from llm_interaction_node.core.user.interrupt import StopSignal
    stop = StopSignal()                 # shared by the queue and the agent, as in the node
    queue = EventQueue(["go to the counter", "thanks, remember that"], stop=stop)
    llm = ScriptedLLM(["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
                       "wait_for_trigger()", "learn_from_interaction()", "wait_for_trigger()",
                       "move_to(get_location_coordinates('handover_to_human'))",
                       "wait_for_trigger()", "learn_from_interaction()", "wait_for_trigger()"])
    spoken: list[str] = []
    settings = Settings.from_dict({"memory": {"path": str(tmp_path / "memory")},
                                   "learning": {"mode": "raw"}})
    session = build_session("humanoid", make_world("humanoid", "drinks_and_cup"), queue,
                            settings, llm=llm, speak=spoken.append, stop=stop)
    runner = threading.Thread(target=session.agent.run, daemon=True)
    runner.start()

    def wait_for(predicate, what):
        deadline = time.monotonic() + 60
        while not predicate():
            assert runner.is_alive() and time.monotonic() < deadline, what
            time.sleep(0.02)

    wait_for(lambda: len(session.learner.outcomes) == 1 and session.agent.turns
             and session.agent.turns[-1].status == "waiting", "the first lesson")
    session.agent.request_reset("reset service")
    wait_for(lambda: session.agent.turns[-1].status == "reset", "the reset")
    queue.put("go to the handover place")
    queue.put("thanks, remember that")
    wait_for(lambda: len(session.learner.outcomes) == 2, "the second lesson")
    queue.close()
    runner.join(30)
    statuses = [o.status for o in session.learner.outcomes]
    assert statuses == [LearnStatus.STORED_RAW, LearnStatus.STORED_RAW], \
        [o.message for o in session.learner.outcomes]
    learned = session.memory.list("raw")
    assert len(learned) == 2
    assert any("handover_to_human" in e.transcript for e in learned)
    session.console.close()

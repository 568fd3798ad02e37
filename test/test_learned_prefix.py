"""Issue 17 / 26: a learned example lands after the seed examples in the next request's
prompt, so the embedded model's saved state of the seed block (the start-up prefill) is reused
(in this process from RAM, in the next from disk: test_local_llm.py measures that) and only
the lesson is evaluated after it.

The LLM is a scripted stand-in that records what it is asked to prefill; the memory
(ChromaDB, the embedding model) and the household world are real."""
from llm_interaction_node.core.console.prompt import CURRENT_HEADING, EXAMPLE_HEADING
from llm_interaction_node.core.llm import ScriptedLLM, Usage
from llm_interaction_node.core.user.channel import CallbackUser
from llm_interaction_node.session import build_session, make_world
from llm_interaction_node.settings import Settings

LEARNED = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'bring me the mango juice'}
>>> say('I will bring you the mango juice.')
>>> move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))
'success'
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'thanks, that is how I like it'}
>>> wait_for_trigger()"""


class PrefillingLLM(ScriptedLLM):
    """The scripted stand-in with the embedded model's prefill hook (records its calls)."""

    def __init__(self, responses):
        super().__init__(responses)
        self.prefilled: list[tuple[str, bool]] = []

    def prefill(self, prefix, system=None, persist=False):
        self.prefilled.append((prefix, persist))
        return Usage(prompt_tokens=1)


def _session(tmp_path, llm, respond, api="humanoid", world="drinks_and_cup", **overrides):
    settings = Settings().with_overrides({"memory.path": str(tmp_path / "memory"), **overrides})
    return build_session(api, make_world(api, world), CallbackUser(respond), settings, llm=llm)


def _before_current(prefix: str) -> str:
    """The start-up prefix without its closing heading: what a longer prefix shares."""
    assert prefix.endswith(CURRENT_HEADING + "\n")
    return prefix[: -len(CURRENT_HEADING + "\n")]


def test_a_learned_example_comes_after_everything_the_saved_prefix_holds(tmp_path):
    said = ["bring me the juice please"]
    memory = {}

    def respond(purpose, prompt):
        if said:
            return said.pop(0)
        if "learned" not in memory:       # the first request is done: store a lesson now
            memory["learned"] = session.memory.add(LEARNED, "learned", origin="lesson")
            return "bring me the juice please, thanks"
        return None

    llm = PrefillingLLM(["say('Here it comes.')", "wait_for_trigger()", "say('Here it is.')",
                         "wait_for_trigger()"])
    session = _session(tmp_path, llm, respond)
    seeds = session.memory.count("seed")
    session.agent.run()

    startup, persist = llm.prefilled[0]
    assert persist and startup.count("# Example ") == seeds
    # the request after the lesson: the seeds as at start-up, then the lesson (memory.order
    # seed_block: the top-k learned examples after the seed block, most similar last)
    after = [p for p, persisted in llm.prefilled[1:] if LEARNED in p]
    assert after and not any(persisted for p, persisted in llm.prefilled[1:])
    shared = _before_current(startup)
    assert after[0].startswith(shared)
    rest = after[0][len(shared):]
    assert rest == EXAMPLE_HEADING.format(n=seeds + 1) + "\n" + LEARNED + "\n\n" + \
        CURRENT_HEADING + "\n"
    assert llm.prompts[-1].startswith(after[0])      # the prompt the model then completed

    # the next start: the start-up prefill is the seed block as before (the embedded model
    # restores that state from disk) and the lesson after it, so the request evaluates none
    said[:] = ["bring me the juice please"]
    again = PrefillingLLM(["say('Here it comes.')", "wait_for_trigger()"])
    _session(tmp_path, again, lambda purpose, prompt: said.pop(0) if said else None).agent.run()
    restart, persist = again.prefilled[0]
    assert persist and restart == after[0] and restart.startswith(shared)
    assert len(again.prefilled) == 1 and again.prompts[0].startswith(restart)


def test_a_stored_lesson_is_prefilled_before_the_robot_waits_for_the_next_request(tmp_path):
    """Issue 26: the first statement after new lessons waited for their tokens (10.8 s after
    three). The lessons follow the seed block in the order they were stored, so the agent
    prefills seeds + lessons as soon as one was stored, before it hands back; the next request
    evaluates only its nearest lesson again (when that is not the last one) and the
    interaction."""
    said = ["bring me the juice please", "thanks, remember that for next time",
            "bring me the juice please", "good, remember that too", "what is on the table?"]
    at_request = {}

    def respond(purpose, prompt):
        if not said:
            return None
        at_request[len(said)] = list(llm.prefilled)
        return said.pop(0)

    llm = PrefillingLLM(["say('Here it comes.')", "wait_for_trigger()",
                         "learn_from_interaction()", "wait_for_trigger()",
                         "say('Here it is.')", "wait_for_trigger()",
                         "learn_from_interaction()", "wait_for_trigger()",
                         "list_objects()", "wait_for_trigger()"])
    session = _session(tmp_path, llm, respond, **{"learning.mode": "raw"})
    memory = session.memory
    session.agent.run()
    lessons = memory.list("raw")
    assert len(lessons) == 2, [e.source for e in memory.list()]
    first, second = lessons
    # before the third utterance (the request after the first lesson): seeds + lesson 1
    prefilled = [p for p, persisted in at_request[3] if not persisted]
    assert prefilled and first.transcript.strip("\n") in prefilled[-1]
    assert llm.prompts[4].startswith(prefilled[-1]), "the request's prompt extends it"
    # before the fifth: seeds + both lessons, stored order
    head = [p for p, persisted in at_request[1] if not persisted][-1]
    assert head.index(first.transcript.strip("\n")) < head.index(second.transcript.strip("\n"))
    assert head.count("# Example ") == memory.count("seed") + 2
    # that request's nearest lesson is whichever it is: the prompt shares the whole head up to
    # its closing heading and repeats at most that one lesson after it
    last = llm.prompts[-2]
    assert last.startswith(_before_current(head))
    rest = last[len(_before_current(head)):].split(CURRENT_HEADING)[0]
    assert rest.count("# Example ") <= 1


def test_every_request_shares_the_whole_start_up_prefill_the_seed_block(tmp_path):
    """Issue 26: the tabletop's 25 seed examples are more than memory.k = 16; the start-up
    prefill holds all of them (memory.order seed_block) and each new instruction's prompt
    starts with that whole prefix, so after start-up only the interaction is evaluated."""
    requests = ["put the red block in the blue bowl", "which bowl is the highest?"]
    said = list(requests)
    llm = PrefillingLLM(["get_obj_names()", "wait_for_trigger()", "get_obj_pos('blue bowl')",
                         "wait_for_trigger()"])
    session = _session(tmp_path, llm, lambda purpose, prompt: said.pop(0) if said else None,
                       api="tabletop", world="red block,blue bowl")
    seeds = session.memory.count("seed")
    assert seeds > session.memory.config.k
    session.agent.run()
    startup, persist = llm.prefilled[0]
    assert persist and startup.count("# Example ") == seeds
    assert all(prefix == startup for prefix, _ in llm.prefilled), "no other example set"
    assert len(llm.prompts) >= 2
    for prompt in llm.prompts:
        assert prompt.startswith(startup)


def test_with_more_examples_than_k_the_start_up_prefill_holds_the_head_of_the_fixed_order(
        tmp_path):
    """Issue 20, memory.order stable_nearest (before issue 26's seed block): the tabletop's 25
    seed examples are more than memory.k = 16. The start-up prefill holds the query-independent
    head of the prompt order: the first k examples of the whole store, the most central seeds first;
    the first request's prompt shares it up to the first head example it did not retrieve,
    so those are evaluated before the user speaks (before: header and API listing only)."""
    from llm_interaction_node.core.memory.order import stable_order

    request = "put the red block in the blue bowl"
    said = [request]
    llm = PrefillingLLM(["put_first_on_second('red block', 'blue bowl')", "wait_for_trigger()"])
    session = _session(tmp_path, llm, lambda purpose, prompt: said.pop(0) if said else None,
                       api="tabletop", world="red block,blue bowl",
                       **{"memory.order": "stable_nearest"})
    memory, k = session.memory, session.memory.config.k
    assert memory.count() > k
    head = stable_order(memory.list(), memory.seed_centrality())[:k]
    central = memory.seed_centrality()
    assert [central[e.origin] for e in head] == sorted(central.values(), reverse=True)[:k]
    session.agent.run()

    startup, persist = llm.prefilled[0]
    assert persist and startup.count("# Example ") == k
    at = [startup.index(e.transcript.strip("\n")) for e in head]
    assert at == sorted(at)                                   # the head, in its order
    # the first request: its k retrieved examples in the same order, then the nearest again
    retrieved = {e.id for e, _ in memory.retrieve([request], k)}
    shared = next((n for n, e in enumerate(head) if e.id not in retrieved), k)
    common = startup[
        : next(n for n, (a, b) in enumerate(zip(startup, llm.prompts[0], strict=False)) if a != b)
    ]
    assert all(e.transcript.strip("\n") in common for e in head[:shared])
    assert shared == k or head[shared].transcript.strip("\n") not in common
    assert shared >= 3, f"only {shared} of the {k} prefilled examples reused"

"""The interaction loop against the real in-process household world; only the LLM is scripted."""
import pytest

from llm_interaction_node.core.agent import LOOP_NOTE, SORRY, AgentConfig
from llm_interaction_node.core.apis.sets import HUMANOID
from llm_interaction_node.core.console.session import NEW_TASK_MARKER
from llm_interaction_node.core.llm import LLMError, ScriptedLLM
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import build_agent, build_console, load_examples, make_world
from reading_support import scripted_reader

FETCH_JUICE = [
    "list_object_locations(affordance='grasp')",
    "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
    "grasp('mango-juice_0')",
    "move_to(get_location_coordinates('handover_to_human'))",
    "handover_object_to_human('mango-juice_0')",
    "wait_for_trigger()",
]


# how the model reads the replies these tests send (the reading stand-in: reading_support)
READINGS = {
    "Now it is correct. Memorize how you did that.": "learn",
    "that was the wrong one, try again": "wrong object",
    "you forgot the cup, bring it as well": "do: coffee cup -> none",
    "you forgot the cup": "do: coffee cup -> none",
    "bring the cup too": "do: coffee cup -> none",
    "Thanks, that's all.": "done",
    "and the cup, bring it too. remember that": "do: coffee cup -> none\nlearn",
    "you are too slow, hurry up": "faster: anywhere -> anywhere",
    "go faster to the dining table": "faster: anywhere -> dining table",
}


def make_agent(responses, utterances, examples=(), idle_retries=0, fgen=False, repeat_notes=0,
               readings=READINGS, **policy):
    """An agent on the drinks_and_cup world; ``idle_retries`` 0 unless a test is about them
    (scripts here often answer a turn with a plain wait_for_trigger()), ``repeat_notes`` too
    (scripts repeat turns) and the restating comment (it adds an input to every answered
    turn); function generation off unless a test is about it (scripts here call undefined
    names to spend budgets); ``readings``: how the model reads the utterances (others read as
    ``other``)."""
    policy.setdefault("restate_correction", False)
    world = make_world("humanoid", "drinks_and_cup")
    spoken = []
    console = build_console("humanoid", world, EventQueue(utterances, close=True),
                            speak=spoken.append)
    llm = ScriptedLLM(responses)
    agent = build_agent("humanoid", llm, console, examples,
                        config=AgentConfig(idle_retries=idle_retries, function_generation=fgen,
                                          repeat_notes=repeat_notes,
                                          **policy),
                        reader=scripted_reader(readings))
    return agent, llm, world, spoken


def sources(agent):
    return [e.source for e in agent.console.transcript]


def learn_forced(llm) -> list[int]:
    """The LLM calls whose grammar allowed only ``learn_from_interaction()``."""
    return [n for n, c in enumerate(llm.calls)
            if c["grammar"].startswith('root ::= " "? "learn_from')]


def test_a_request_is_carried_out_in_the_world():
    agent, llm, world, _ = make_agent(FETCH_JUICE, ["could I have the mango juice?"])
    agent.run()
    assert world.snapshot()["objects"]["mango-juice_0"]["held_by"] == "human"
    assert sources(agent) == ["wait_for_trigger()"] + FETCH_JUICE
    outputs = [e.output for e in agent.console.transcript]
    assert outputs[0] == "{'type': 'dialog', 'text': 'could I have the mango juice?'}"
    assert outputs[2:6] == ["'success'"] * 4
    assert [t.status for t in agent.turns] == ["waiting"]
    assert agent.ledger.total.calls == len(FETCH_JUICE) and llm.remaining == 0


def test_prompt_keeps_its_stable_part_first_and_ends_with_the_console_prompt():
    examples = load_examples("humanoid")
    assert len(examples) >= 3
    agent, llm, _, _ = make_agent(FETCH_JUICE, ["could I have the mango juice?"], examples)
    agent.run()
    first, last = llm.prompts[0], llm.prompts[-1]
    prefix = first[: first.index("# Current interaction:")]
    assert all(p.startswith(prefix) for p in llm.prompts)        # cacheable prefix
    assert all(p.endswith("\n>>>") for p in llm.prompts)
    assert (
        "def grasp(object_name: str, hand: Literal['left', 'right', None] = None) -> str" in first
    )
    assert "def wait_for_trigger() -> dict[str, str]" in first
    # examples keep their order (retrieval puts the most similar last)
    positions = [first.index(e.splitlines()[1]) for e in examples]
    assert positions == sorted(positions)
    assert "handover_object_to_human('mango-juice_0')\n'success'\n>>>" in last


def test_malformed_llm_output_is_handled_and_fed_back():
    responses = [
        "Sure! I will look for the juice first.",                       # prose
        "```python\nobjs = list_objects()\nlen(objs)\n```",              # markdown, 2 statements
        ">>> grasp('orange-juice_0')\n'success'\n>>> say('done')",       # echo with invented output
        " wait_for_trigger()",
    ]
    agent, _, world, _ = make_agent(responses, ["get me the juice"])
    # refused inputs (core/decoding/constraint.py) are noted at once (agent.refused_retries = 0)
    agent.run()
    entries = agent.console.transcript.entries
    assert entries[1].source.startswith("# not run: 'Sure' is not a function")   # never run
    assert [e.source for e in entries[2:4]] == ["objs = list_objects()", "len(objs)"]
    assert entries[3].output == "6"
    assert entries[4].source.startswith("# not run: grasp(): 'orange-juice_0' is not in the scene")
    assert "mango-juice_0" in entries[4].source
    assert entries[5].source == "wait_for_trigger()"
    assert world.snapshot()["objects"]["mango-juice_0"]["held_by"] is None


def test_refused_input_is_asked_again_before_it_is_noted():
    responses = ["cannot", "Sure! Here it is.", "list_locations()", "wait_for_trigger()"]
    agent, llm, _, _ = make_agent(responses, ["where can you go?"])
    agent.config.refused_retries = 2      # asked again silently before a note (default: 0)
    agent.run()
    assert sources(agent)[1:] == ["list_locations()", "wait_for_trigger()"]
    temperatures = [c["temperature"] for c in llm.calls]
    assert temperatures[0] < temperatures[1] < temperatures[2]      # asked again, less greedily
    assert "known ::=" in llm.calls[0]["grammar"] and "'tumbler_0'" in llm.calls[0]["grammar"]


def test_error_budget_ends_the_turn_and_the_robot_says_so():
    responses = [f"undefined_{i}()" for i in range(4)] + ["list_locations()", "wait_for_trigger()"]
    agent, _, _, spoken = make_agent(responses, ["do something", "try again"])
    agent.run()
    src = sources(agent)
    assert src[1:5] == [f"undefined_{i}()" for i in range(4)]
    assert src[5].startswith("# giving up: too many errors of kind 'name'")
    assert src[6] == f"say({SORRY!r})" and spoken == [SORRY]
    assert src[7] == "wait_for_trigger()"
    assert agent.turns[0].status == "error"
    # the next user turn starts with fresh budgets and works
    assert src[8:] == ["list_locations()", "wait_for_trigger()"]
    assert [t.status for t in agent.turns] == ["error", "waiting"]


def test_statement_cap_per_turn():
    responses = ["list_locations()", "list_objects()", "get_object_in_hand()", "list_locations()"]
    agent, llm, _, _ = make_agent(responses, ["hello"], max_statements_per_turn=3)
    agent.run()
    assert sources(agent)[4].startswith("# giving up: the limit of 3 statements")
    assert llm.remaining == 1 and agent.turns[0].status == "statement_cap"


def test_a_loop_gets_an_intervention_then_a_reset():
    responses = ["list_locations()"] * 3 + ["list_locations()"]
    agent, llm, _, spoken = make_agent(responses, ["where is the tea?"])
    agent.run()
    assert HUMANOID.loop_example not in llm.prompts[2]
    assert HUMANOID.loop_example in llm.prompts[3]               # the intervention
    # the second loop resets the interaction: fresh transcript with a marker
    assert sources(agent) == ["# " + NEW_TASK_MARKER.lstrip("# "), f"say({SORRY!r})",
                              "wait_for_trigger()"]
    assert spoken == [SORRY] and agent.turns[0].status == "loop_reset"
    # the transcript before the reset is kept in the turn's record
    discarded = agent.turns[0].discarded
    assert "where is the tea?" in discarded and discarded.count(">>> list_locations()") == 2
    assert "# " + LOOP_NOTE in discarded


def test_empty_output_is_retried_at_a_higher_temperature():
    """Reference rule: each empty answer is asked again 0.1 hotter."""
    agent, llm, _, _ = make_agent(["", "  \n", "list_locations()", "wait_for_trigger()"], ["hi"])
    agent.run()
    assert [c["temperature"] for c in llm.calls] == [0.0, 0.1, 0.2, 0.0]
    assert sources(agent)[1:] == ["list_locations()", "wait_for_trigger()"]


def test_output_that_stays_empty_hands_back_with_a_wait():
    """Reference rule: past temperature 1.0, wait_for_trigger() stands in for the answer: the
    turn hands back normally (no error, no apology) and the next user turn works."""
    agent, llm, _, spoken = make_agent([""] * 11 + ["list_locations()", "wait_for_trigger()"],
                                       ["hi", "where can you go?"])
    agent.run()
    temperatures = [c["temperature"] for c in llm.calls[:11]]
    assert temperatures == pytest.approx([k / 10 for k in range(11)])
    assert spoken == [] and llm.remaining == 0
    assert sources(agent) == ["wait_for_trigger()"] * 2 + ["list_locations()",
                                                           "wait_for_trigger()"]
    assert [t.status for t in agent.turns] == ["waiting", "waiting"]


def test_an_llm_failure_ends_the_turn_without_crashing():
    error = LLMError("connection refused: is the server running?")
    agent, _, _, spoken = make_agent([error, "wait_for_trigger()"], ["hi", "again"])
    agent.run()
    assert agent.turns[0].status == "error" and "connection refused" in agent.turns[0].reason
    assert spoken and "language model" in spoken[0]
    assert sources(agent)[-1] == "wait_for_trigger()" and agent.turns[-1].status == "waiting"


def test_a_prompt_too_long_for_the_server_is_told_as_that_not_as_unreachable():
    from llm_interaction_node.core.llm.errors import Failure
    error = LLMError("the prompt is too long", failure=Failure.CONTEXT_LENGTH,
                     context_size=4096, needed_tokens=5032)
    agent, _, _, spoken = make_agent([error, "wait_for_trigger()"], ["bring me the juice"])
    agent.run()
    assert agent.turns[0].status == "error"
    assert "cannot reach" not in spoken[0] and "too long" in spoken[0]
    assert "4096 tokens" in spoken[0] and "5032" in spoken[0]
    assert '"bring me the juice"' in spoken[0]


@pytest.mark.parametrize("hostile", ["import os", "open('/etc/passwd').read()",
                                     "().__class__.__base__.__subclasses__()"])
def test_hostile_code_from_the_llm_is_refused_and_the_session_goes_on(hostile):
    agent, _, _, _ = make_agent([hostile, "list_locations()", "wait_for_trigger()"], ["hi"])
    agent.run()
    entries = agent.console.transcript.entries
    assert entries[1].source == hostile and ("SandboxViolation" in entries[1].output
                                             or "NameError" in entries[1].output)
    assert entries[2].output.startswith("['inFrontOf_kitchen-counter_0'")


CYCLE = ["list_locations()", "list_objects()", "get_object_in_hand()", "list_object_locations()"]
PAIR = ["list_locations()", "list_objects()"]


def test_a_repeated_cycle_of_statements_is_a_loop():
    """Issue 10: a cycle of statements repeated went unnoticed until the statement cap."""
    responses = PAIR * 3 + ["wait_for_trigger()"]
    agent, llm, _, spoken = make_agent(responses, ["where is the tea?"], max_statements_per_turn=30)
    agent.run()
    closing = 3 * len(PAIR) - 1              # index of the call whose statement closes it
    assert HUMANOID.loop_example not in llm.prompts[closing]
    assert HUMANOID.loop_example in llm.prompts[closing + 1]
    # the statement that completed the third repetition was not run; a note took its place
    assert sources(agent)[1:] == (PAIR * 3)[:closing] + ["# " + LOOP_NOTE, "wait_for_trigger()"]
    assert spoken == [] and [t.status for t in agent.turns] == ["waiting"]


def test_a_plan_done_twice_in_a_row_is_a_loop():
    """Seen in benchmark runs: the model finished ("put the blocks in the green bowl", four
    puts), did not hand back and did it all again until the statement cap. A cycle of
    ``redo_cycle`` (3) or more statements is a loop at its second pass, while statements are
    left for the intervention to work."""
    responses = CYCLE * 2 + ["wait_for_trigger()"]
    agent, llm, _, spoken = make_agent(responses, ["where is the tea?"])
    agent.run()
    closing = 2 * len(CYCLE) - 1
    assert HUMANOID.loop_example not in llm.prompts[closing]
    assert HUMANOID.loop_example in llm.prompts[closing + 1]
    assert sources(agent)[1:] == (CYCLE * 2)[:closing] + ["# " + LOOP_NOTE, "wait_for_trigger()"]
    assert spoken == [] and [t.status for t in agent.turns] == ["waiting"]
    # redo_cycle 0: only loop_repeats counts (the same plan twice runs to its end)
    agent, llm, _, _ = make_agent(CYCLE * 2 + ["wait_for_trigger()"], ["where is the tea?"],
                                  redo_cycle=0)
    agent.run()
    assert sources(agent)[1:] == CYCLE * 2 + ["wait_for_trigger()"]
    assert not any(HUMANOID.loop_example in prompt for prompt in llm.prompts)


def test_repeated_cycle_lengths():
    from llm_interaction_node.core.agent.limits import repeated_cycle
    a, b, c = "a()", "b()", "c()"
    assert repeated_cycle([a, a, a], 3, 6) == 1 and repeated_cycle([a, a], 3, 6) is None
    assert repeated_cycle([a, b, a, b], 3, 6, redo_cycle=3) is None      # a pair needs 3
    assert repeated_cycle([a, b, a, b, a, b], 3, 6, redo_cycle=3) == 2
    assert repeated_cycle([a, b, c, a, b, c], 3, 6, redo_cycle=3) == 3
    assert repeated_cycle([a, b, c, a, b, c], 3, 6) is None
    assert repeated_cycle([c, a, b, c, a, b, c], 5, 6, redo_cycle=3) == 3    # not monotonic


def test_a_second_cycle_loop_resets_and_apologises():
    responses = CYCLE * 2 + CYCLE * 2
    agent, _, _, spoken = make_agent(responses, ["where is the tea?"], max_statements_per_turn=40)
    agent.run()
    assert spoken == [SORRY] and agent.turns[0].status == "loop_reset"


def test_a_success_starts_the_error_budgets_again():
    """Reference policy: only errors in a row use a budget up."""
    responses = ["undefined_a()", "undefined_b()", "undefined_c()", "list_locations()",
                 "undefined_d()", "undefined_e()", "undefined_f()", "wait_for_trigger()"]
    agent, _, _, spoken = make_agent(responses, ["do something"])
    agent.run()
    assert spoken == [] and [t.status for t in agent.turns] == ["waiting"]


@pytest.mark.parametrize("error, kind", [
    (ImportError("no"), "import"), (SyntaxError("x"), "syntax"), (KeyError("k"), "lookup"),
    (IndexError("i"), "lookup"), (TypeError("t"), "name"), (NameError("n"), "name"),
    (ValueError("v"), "argument"), (AttributeError("a"), "argument")])
def test_error_classes_and_reference_budgets(error, kind):
    from llm_interaction_node.core.agent.limits import DEFAULT_BUDGETS, error_class
    assert error_class(error) == kind
    assert DEFAULT_BUDGETS["name"] == DEFAULT_BUDGETS["argument"] == 3
    assert DEFAULT_BUDGETS["semantic"] == 4
    assert DEFAULT_BUDGETS["import"] == DEFAULT_BUDGETS["lookup"] == 3


def test_an_import_refused_by_the_sandbox_counts_as_import():
    responses = ["import os", "import sys", "import json", "import re", "wait_for_trigger()"]
    agent, _, _, spoken = make_agent(responses, ["hi"])
    agent.run()
    assert "too many errors of kind 'import'" in sources(agent)[5] and spoken == [SORRY]


def test_giving_up_on_the_tabletop_does_not_call_a_say_it_does_not_have():
    """Issue 10: the tabletop API has no say(); giving up ended in a NameError."""
    from llm_interaction_node.sims.tabletop2d import TabletopWorld2D
    world = TabletopWorld2D.random(2, 1, seed=0)
    console = build_console("tabletop", world, EventQueue(["hi"], close=True))
    llm = ScriptedLLM([f"undefined_{i}()" for i in range(4)])
    agent = build_agent("tabletop", llm, console, (),
                        config=AgentConfig(function_generation=False))
    agent.run()
    text = console.transcript.render()
    assert "# giving up: too many errors of kind 'name'" in text
    assert "say(" not in text and "NameError: name 'say'" not in text
    assert console.transcript.entries[-1].source == "wait_for_trigger()"


class _PrefillingLLM(ScriptedLLM):
    """The scripted stand-in with the embedded model's prefill hook (records its calls)."""

    def __init__(self, responses):
        super().__init__(responses)
        self.prefilled = []

    def prefill(self, prefix, system=None, persist=False):
        from llm_interaction_node.core.llm import Usage
        self.prefilled.append((prefix, persist))
        return Usage(prompt_tokens=100, cached_tokens=40, evaluated_tokens=60)


def test_the_stable_prefix_is_prefilled_at_start_and_for_new_examples():
    examples = load_examples("humanoid")[:3]
    world = make_world("humanoid", "drinks_and_cup")
    console = build_console("humanoid", world, EventQueue(["hi", "and now?"], close=True))
    llm = _PrefillingLLM(["wait_for_trigger()", "wait_for_trigger()"])
    chosen = iter([examples, examples[:2], examples[:2]])
    agent = build_agent("humanoid", llm, console, lambda utterances: list(examples)
                        if not utterances else next(chosen), config=AgentConfig(idle_retries=0))
    agent.run()
    (start, persisted), *later = llm.prefilled
    assert persisted and all(e.strip() in start for e in examples)   # before the user spoke
    assert all(not p for _, p in later)
    # every prompt starts with a prefilled prefix; a changed example set was prefilled again
    assert all(any(p.startswith(prefix) for prefix, _ in llm.prefilled) for p in llm.prompts)
    assert any(examples[2].strip() not in prefix for prefix, _ in later)
    assert agent.ledger.by_purpose()["prefill"].evaluated_tokens == 60 * len(llm.prefilled)
    assert agent.ledger.total.calls == 2                     # prefills are no LLM calls


def test_a_turn_answered_with_nothing_but_a_wait_is_asked_again():
    """The embedded model answered feedback with wait_for_trigger() (benchmark transcripts):
    the first answer to a user turn that ignores the user is asked again, a little hotter."""
    agent, llm, world, _ = make_agent(["wait_for_trigger()"] + FETCH_JUICE,
                                      ["could I have the mango juice?"], idle_retries=2)
    agent.run()
    assert sources(agent) == ["wait_for_trigger()"] + FETCH_JUICE
    assert [c["temperature"] for c in llm.calls[:2]] == [0.0, 0.3]
    assert world.snapshot()["objects"]["mango-juice_0"]["held_by"] == "human"


def test_a_comment_before_the_wait_does_not_hide_that_the_user_was_ignored():
    """As measured: '# orange is still missing', then the hand-back, turn after turn: the
    comment is no answer; the wait is asked again, a little hotter."""
    comment = "# the juice is still missing"
    agent, llm, world, _ = make_agent([comment, "wait_for_trigger()"] + FETCH_JUICE,
                                      ["could I have the mango juice?"], idle_retries=2)
    agent.run()
    assert sources(agent) == ["wait_for_trigger()", comment] + FETCH_JUICE
    assert [c["temperature"] for c in llm.calls[:3]] == [0.0, 0.0, 0.3]
    assert world.snapshot()["objects"]["mango-juice_0"]["held_by"] == "human"


def test_a_wait_the_model_insists_on_is_accepted():
    agent, llm, _, _ = make_agent(["wait_for_trigger()"] * 3 + ["list_locations()",
                                                                 "wait_for_trigger()"],
                                  ["thanks", "where can you go?"], idle_retries=2)
    agent.run()
    assert sources(agent) == ["wait_for_trigger()", "wait_for_trigger()", "list_locations()",
                              "wait_for_trigger()"]
    assert [c["temperature"] for c in llm.calls] == [0.0, 0.3, 0.6, 0.0, 0.0]


def test_name_and_type_errors_share_one_budget():
    """Reference rule: NameError and TypeError count against one budget of 3."""
    responses = ["undefined_a()", "list_locations(1, 2, 3)", "undefined_b()", "grasp()",
                 "wait_for_trigger()"]
    agent, _, _, spoken = make_agent(responses, ["do something"])
    agent.run()
    assert "too many errors of kind 'name' (4 > 3)" in sources(agent)[5] and spoken == [SORRY]


def test_an_import_is_refused_with_a_typed_error():
    """The import class is a type (ImportRefused), not a message the policy reads."""
    import ast

    from llm_interaction_node.core.agent.limits import error_class
    from llm_interaction_node.core.sandbox import ImportRefused, Sandbox, SandboxViolation
    for source in ("import os", "from math import pi", "def f():\n    import os"):
        with pytest.raises(ImportRefused) as caught:
            Sandbox().prepare(ast.parse(source))
        assert isinstance(caught.value, SandboxViolation) and error_class(caught.value) == "import"
    assert error_class(SandboxViolation("imports are fine in this message")) == "sandbox"


COUNT_DEF = "def count_things(objects):\n    return len(objects)"


def test_an_undefined_function_is_written_by_the_fgen_prompt_before_the_statement_runs():
    agent, llm, _, _ = make_agent(["n = count_things(list_objects())", COUNT_DEF + "\n",
                                   "n", "wait_for_trigger()"], ["how many things are there?"],
                                  fgen=True)
    agent.run()
    entries = agent.console.transcript.entries
    # a person at the console sees the definition typed in, then the statement
    assert [e.source for e in entries[1:4]] == [COUNT_DEF, "n = count_things(list_objects())",
                                                "n"]
    assert entries[1].output == "" and entries[3].output == "6"
    fgen_prompt = llm.prompts[1]
    assert fgen_prompt.rstrip().endswith("# define function: n = count_things(list_objects()).")
    assert "def list_objects(" in fgen_prompt                     # the API listing
    assert "objects_named_like" in fgen_prompt                    # an example it can use
    assert "LineString" not in fgen_prompt and "get_obj_names" not in fgen_prompt
    assert llm.calls[1]["stop"][0] == "\n# define"
    assert agent.ledger.by_purpose()["fgen"].calls == 1
    assert agent.turns[0].statements == 3                         # the definition is no statement
    assert agent.turns[0].usage.calls == 4


def test_function_generation_writes_helpers_first_and_is_bounded():
    parent = "def count_things(objects):\n    return tally(objects)"
    helper = "def tally(items):\n    return len(items) + offset_of(items)"
    agent, llm, _, _ = make_agent(["n = count_things(list_objects())", parent, helper,
                                   "wait_for_trigger()"], ["how many?"], fgen=True)
    agent.run()
    src = sources(agent)
    assert src[1:4] == [helper, parent, "n = count_things(list_objects())"]
    # depth 2: tally's own helper (offset_of) is not generated; the statement says so
    assert (
        "NameError: name 'offset_of' is not defined" in agent.console.transcript.entries[3].output
    )
    assert "# define function: tally(objects)." in llm.prompts[2]
    assert llm.remaining == 0


@pytest.mark.parametrize("answer", ["def count_things(objects):\n    import os\n    return 1",
                                    "Sorry, I cannot write that.",
                                    "def something_else():\n    return 1"])
def test_a_definition_that_is_refused_or_wrong_is_not_run(answer):
    agent, _, _, _ = make_agent(["n = count_things(list_objects())", answer,
                                 "wait_for_trigger()"], ["how many?"], fgen=True)
    agent.run()
    entries = agent.console.transcript.entries
    assert entries[1].source == "n = count_things(list_objects())"
    assert "NameError: name 'count_things' is not defined" in entries[1].output
    assert "count_things" not in agent.console.namespace


def test_the_tabletop_fgen_prompt_shows_the_shapely_examples_and_the_helper_can_use_them():
    from llm_interaction_node.sims.tabletop2d import TabletopWorld2D
    world = TabletopWorld2D.random(2, 1, seed=0)
    console = build_console("tabletop", world, EventQueue(["line them up"], close=True))
    definition = ("def line_through(a, b):\n"
                  "    return LineString([tuple(a[:2]), tuple(b[:2])])")
    llm = ScriptedLLM(["names = get_obj_names()",
                       "l = line_through(get_obj_pos(names[0]), get_obj_pos(names[1]))",
                       definition, "l.length > 0", "wait_for_trigger()"])
    agent = build_agent("tabletop", llm, console, (), config=AgentConfig(idle_retries=0))
    agent.run()
    fgen_prompt = llm.prompts[2]
    assert "segment_between" in fgen_prompt and "turn_shape" in fgen_prompt   # shapely examples
    assert "objects_named_like" not in fgen_prompt                            # humanoid only
    assert [e.output for e in console.transcript.entries][-2] == "True"


def test_function_generation_follows_the_setting():
    from llm_interaction_node.settings import Settings
    assert Settings().agent.function_generation is True
    for value in (True, False):
        config = Settings().with_overrides({"agent.function_generation": value}).agent
        world = make_world("humanoid", "drinks_and_cup")
        console = build_console("humanoid", world, EventQueue(["hi"], close=True))
        agent = build_agent("humanoid", ScriptedLLM([]), console, (), config=config)
        assert (agent.fgen is not None) is value


def test_the_fgen_prompt_file_is_checked_and_calls_are_found_with_their_assignment(tmp_path):
    import ast

    from llm_interaction_node.core.agent.fgen import load_fgen_prompt, undefined_calls
    prompt = load_fgen_prompt()
    assert len(prompt.examples) >= 6 and all(ex.code.lstrip().startswith("def ")
                                             for ex in prompt.examples)
    for text, named in [
        ("- just a list\n", "expected a mapping"),
        ("header: h\nexamples:\n  - call: f()\n", "example 1 needs 'call' and 'code'"),
        (
            "header: h\nexamples:\n  - {call: f(), code: 'def f(): 1', uses: np}\n",
            "'uses' must be a list",
        ),
    ]:
        path = tmp_path / "fgen.yaml"
        path.write_text(text)
        with pytest.raises(ValueError, match=named):
            load_fgen_prompt(path)
    tree = ast.parse("i = get_closest_idx(pts, goal)\nfor p in pts:\n    shift(p)\nlen(pts)")
    assert undefined_calls(tree, {"__builtins__": {"len": len}}) == [
        ("get_closest_idx", "i = get_closest_idx(pts, goal)"), ("shift", "shift(p)")]


def test_a_turn_that_would_redo_the_answered_attempt_gets_a_note_first():
    """Benchmark transcripts: after "put the green block on the top side" the embedded model
    did again what the user had just answered. The statement that would complete the copy is
    not run; a note in its place says why, and the model is asked again."""
    agent, llm, _, spoken = make_agent(
        ["list_locations()", "say('I can go there.')", "wait_for_trigger()",
         "list_locations()", "say('I can go there.')",          # the copy: noted, not run
         "say('Sorry, I will bring it now.')", "wait_for_trigger()"],
        ["where can you go?", "no, I asked you to bring me the juice"], repeat_notes=1,
        restate_correction=True)
    agent.run()
    got = sources(agent)
    assert got[4] == '# The user says: "no, I asked you to bring me the juice". Do that now.'
    assert got[5] == "list_locations()" and got[6].startswith("# not run: say('I can go there.') "
                                                               "would do again exactly")
    assert got[7:] == ["say('Sorry, I will bring it now.')", "wait_for_trigger()"]
    assert spoken == ["I can go there.", "Sorry, I will bring it now."]


def test_a_repeat_the_model_insists_on_runs_and_no_notes_is_the_reference_rule():
    agent, _, _, spoken = make_agent(
        ["say('Here it is.')", "wait_for_trigger()",
         "say('Here it is.')", "say('Here it is.')", "wait_for_trigger()"],
        ["say it", "you dropped it, try again"], repeat_notes=1)
    agent.run()
    assert spoken == ["Here it is.", "Here it is."]               # noted once, then it runs
    assert sum(s.startswith("# not run:") for s in sources(agent)) == 1
    # repeat_notes 0: the reference's behaviour, no note
    agent, _, _, spoken = make_agent(
        ["say('Here it is.')", "wait_for_trigger()", "say('Here it is.')", "wait_for_trigger()"],
        ["say it", "again"], repeat_notes=0)
    agent.run()
    assert spoken == ["Here it is.", "Here it is."]
    assert not any(s.startswith("#") for s in sources(agent))


def test_after_a_request_to_learn_the_grammar_allows_only_the_learn_call():
    """agent.learn_on_request: measured with the 1.5B model, "Now it is correct. Memorize how
    you did that." was answered by doing the task again in 2 of 6 runs, and the lesson was
    lost. The first statement of such a turn is decoded under a grammar that allows only
    learn_from_interaction(); a correction, a new request and the first request are not."""
    responses = FETCH_JUICE + ["learn_from_interaction()", "wait_for_trigger()",
                               "say('On it.')", "wait_for_trigger()"]
    said = ["could I have the mango juice?", "Now it is correct. Memorize how you did that.",
            "that was the wrong one, try again"]
    agent, llm, _, _ = make_agent(responses, said)
    agent.run()
    grammars = [c["grammar"] for c in llm.calls]
    forced = learn_forced(llm)
    assert forced == [len(FETCH_JUICE)], forced          # the first statement after the request
    assert sources(agent)[len(FETCH_JUICE) + 1] == "learn_from_interaction()"
    assert "known ::=" in grammars[len(FETCH_JUICE) + 2], "the correction's turn is free"

    agent, llm, _, _ = make_agent(responses, said, learn_on_request=False)
    agent.run()
    assert learn_forced(llm) == []


def test_a_request_to_learn_with_a_change_still_to_make_waits_until_the_user_accepts():
    """Measured (issue 43, seed 2026): "... Try once more, please." read as a request to learn,
    the learn call forced right after it, and the rejected attempt was stored as the lesson.
    A reply read as learn AND something the attempt did not do: the turn is free (the learn
    call left out of its grammar), the robot makes the change, and the reply that accepts it
    ("Thanks, that's all.", read as done) gets the learn call."""
    bring_cup = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
                 "grasp('coffee-cup_0')",
                 "move_to(get_location_coordinates('handover_to_human'))",
                 "handover_object_to_human('coffee-cup_0')", "wait_for_trigger()"]
    responses = FETCH_JUICE + bring_cup + ["learn_from_interaction()", "wait_for_trigger()"]
    said = ["could I have the mango juice?", "and the cup, bring it too. remember that",
            "Thanks, that's all."]
    agent, llm, world, _ = make_agent(responses, said)
    agent.run()
    grammars = [c["grammar"] for c in llm.calls]
    forced = learn_forced(llm)
    assert forced == [len(FETCH_JUICE) + len(bring_cup)], forced
    assert "learn_from_interaction" not in grammars[len(FETCH_JUICE)]   # not before the change
    assert world.snapshot()["objects"]["coffee-cup_0"]["held_by"] == "human"
    assert sources(agent)[-2] == "learn_from_interaction()"
    # where the reply says where the change goes, the robot makes it, then learns it at once
    to_me = {**READINGS, "and the cup, bring it too. remember that": "do: coffee cup -> me\nlearn"}
    agent, llm, world, _ = make_agent(FETCH_JUICE + bring_cup[:-1] + ["learn_from_interaction()",
                                                                      "wait_for_trigger()"],
                                      said[:2], readings=to_me)
    agent.run()
    forced = learn_forced(llm)
    assert forced == [len(FETCH_JUICE) + len(bring_cup) - 1], forced
    assert world.snapshot()["objects"]["coffee-cup_0"]["held_by"] == "human"
    # a request to learn after an attempt that did what it says is honoured at once
    done = {**READINGS, "and the cup, bring it too. remember that": "do: mango juice -> me\nlearn"}
    agent, llm, _, _ = make_agent(FETCH_JUICE + ["learn_from_interaction()", "wait_for_trigger()"],
                                  said[:2], readings=done)
    agent.run()
    assert learn_forced(llm) == [len(FETCH_JUICE)]


def test_after_a_reply_read_as_a_speed_the_drives_of_the_turn_go_at_that_speed():
    """Measured (issue 44): "you are too slow, drive faster" put right in 0 of 4 household
    situations; nothing made the next drive faster. The code writes the speed into the
    model's drives (move_to, bring_object_to) of that turn; other calls are as written."""
    slow = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'), speed_factor=0.3)",
            "wait_for_trigger()"]
    agent, _, world, _ = make_agent(
        slow + ["move_to(get_location_coordinates('handover_to_human'))",
                "bring_object_to('coffee-cup_0', 'on_dining-table_0')", "wait_for_trigger()"],
        ["go to the counter", "you are too slow, hurry up"])
    agent.run()
    assert sources(agent)[-3:] == [
        "move_to(get_location_coordinates('handover_to_human'), speed_factor=2.0)",
        "bring_object_to('coffee-cup_0', 'on_dining-table_0', speed_factor=2.0)",
        "wait_for_trigger()"]
    agent, _, _, _ = make_agent(
        slow + ["move_to(get_location_coordinates('handover_to_human'))",
                "bring_object_to('coffee-cup_0', 'on_dining-table_0')", "wait_for_trigger()"],
        ["go to the counter", "go faster to the dining table"])
    agent.run()
    assert sources(agent)[-3:] == [      # the turn hurries, whatever route was read
        "move_to(get_location_coordinates('handover_to_human'), speed_factor=2.0)",
        "bring_object_to('coffee-cup_0', 'on_dining-table_0', speed_factor=2.0)",
        "wait_for_trigger()"]


def test_after_a_too_slow_reply_to_a_request_not_done_its_move_comes_first_and_fast():
    """Measured (issue 44, household correction bench at 6ae51f2): after "You are too slow,
    drive faster." to a robot dawdling off with the cup, the model drove the attempt's legs
    again (faster) and never on to the place, 0 of 4. The request's move is still to make: the
    turn's first statement is that move (the focus), at the asked speed."""
    said = ["take the cup to the dining table", "you are too slow, hurry up"]
    dawdle = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
              "grasp('coffee-cup_0')",
              "move_to(get_location_coordinates('room_center'), speed_factor=0.3)",
              "wait_for_trigger()"]
    agent, llm, world, _ = make_agent(
        dawdle + ["bring_object_to('coffee-cup_0', 'on_dining-table_0')", "wait_for_trigger()"],
        said, readings={**READINGS, said[0]: "do: coffee cup -> dining table"})
    agent.run()
    top = _top(llm.calls[len(dawdle)]["grammar"])
    assert "call-" in top and "begin" not in top, top        # the move, nothing else
    assert sources(agent)[-2] == \
        "bring_object_to('coffee-cup_0', 'on_dining-table_0', speed_factor=2.0)"
    assert world.snapshot()["objects"]["coffee-cup_0"]["location"] == "on_dining-table_0"
    # a request with no place to go to: a speed reply asks for no move
    readings = {**READINGS, "pick up the cup": "do: coffee cup -> none"}
    agent, llm, _, _ = make_agent(dawdle + ["wait_for_trigger()"], ["pick up the cup", said[1]],
                                  readings=readings)
    agent.run()
    assert "begin" in _top(llm.calls[len(dawdle)]["grammar"])


def _top(grammar: str) -> str:
    """What the grammar lets an input start with."""
    return next(line for line in grammar.splitlines() if line.startswith("top ::="))


TOOK_RIGHT = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
              "grasp('mango-juice_0', 'right')", "wait_for_trigger()"]
CHANGE = ["place_object('mango-juice_0', 'on_kitchen-counter_0')",
          "grasp('mango-juice_0', 'left')"]


@pytest.mark.parametrize("reading", ["hand: left", "hand: other"])
def test_after_a_reply_read_as_a_hand_the_code_writes_the_change_of_hands(reading):
    """Measured (issue 44): "use your left hand, please" / "The other hand, please." put right
    0 of 4 times; once told which hand, the model grasped another thing with it. The code
    writes the change (put it down where the robot stands, grasp it with the asked hand);
    "the other" is the hand not holding the juice."""
    said = ["pick up the juice", "the other hand please"]
    agent, llm, world, _ = make_agent(TOOK_RIGHT + CHANGE + ["wait_for_trigger()"], said,
                                      readings={said[0]: "do: mango juice -> none",
                                                said[1]: reading})
    agent.run()
    forced = [c["grammar"] for c in llm.calls[len(TOOK_RIGHT):len(TOOK_RIGHT) + 2]]
    assert all(g.startswith('root ::= " "? ') and "place_object" in g.splitlines()[0]
               for g in forced[:1]), forced[0].splitlines()[0]
    assert "grasp('mango-juice_0', 'left')" in forced[1].splitlines()[0]
    assert agent.readings[-1].render() == "hand: left"
    assert sources(agent)[-3:] == CHANGE + ["wait_for_trigger()"]
    assert world.snapshot()["objects"]["mango-juice_0"]["held_by"] == "left"


def test_a_bare_complaint_after_the_wrong_hand_is_answered_with_the_requests_hand():
    """Measured (issue 44): "I said your left hand." read as ``do: none -> none``, 3 of 4;
    the request's hand, which the attempt did not use, is what the complaint asks for."""
    said = ["pick up the juice with your left hand", "I said your left hand."]
    agent, llm, world, _ = make_agent(TOOK_RIGHT + CHANGE + ["wait_for_trigger()"], said,
                                      readings={said[0]: "do: mango juice -> none\nhand: left",
                                                said[1]: "do: none -> none"})
    agent.run()
    assert sources(agent)[-3:] == CHANGE + ["wait_for_trigger()"]
    assert world.snapshot()["objects"]["mango-juice_0"]["held_by"] == "left"


def test_away_from_a_surface_a_hand_reply_is_written_into_the_models_grasps():
    """Where the robot stands at no surface (at the handover place) the code writes no change;
    the model's grasps of that turn take the asked hand, and the API says how to change
    hands."""
    took = TOOK_RIGHT[:2] + ["move_to(get_location_coordinates('handover_to_human'))",
                             "wait_for_trigger()"]
    again = ["grasp('mango-juice_0')",
             "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
             "place_object('mango-juice_0', 'on_kitchen-counter_0')",
             "grasp('mango-juice_0', 'right')", "wait_for_trigger()"]
    said = ["pick up the juice", "use your left hand, please"]
    agent, llm, world, _ = make_agent(took + again, said,
                                      readings={said[0]: "do: mango juice -> none",
                                                said[1]: "hand: left"})
    agent.run()
    assert not any(c["grammar"].startswith('root ::= " "? "place') for c in llm.calls)
    log = agent.console.transcript
    refused = next(e for e in log if e.source == "grasp('mango-juice_0', 'left')")
    assert "place_object(" in refused.output
    assert sources(agent)[-2:] == ["grasp('mango-juice_0', 'left')", "wait_for_trigger()"]
    assert world.snapshot()["objects"]["mango-juice_0"]["held_by"] == "left"


def test_a_prompt_too_long_for_the_context_leaves_out_examples_and_keeps_the_nearest():
    """The embedded model's context was exceeded (seed block, lessons, a long interaction) and
    the turn was lost; now the examples before the most similar one are left out until the
    prompt fits, and the turn goes on."""
    from llm_interaction_node.core.llm.errors import Failure
    examples = load_examples("humanoid")
    too_long = LLMError("the prompt does not fit", failure=Failure.CONTEXT_LENGTH,
                        context_size=8192, needed_tokens=8193)
    agent, llm, world, spoken = make_agent([too_long] + FETCH_JUICE,
                                           ["could I have the mango juice?"], examples)
    agent.run()
    assert world.snapshot()["objects"]["mango-juice_0"]["held_by"] == "human" and not spoken
    first, second = llm.prompts[0], llm.prompts[1]
    assert examples[-2].strip() in first and examples[-2].strip() not in second
    assert examples[-1].strip() in second and examples[0].strip() in second
    assert second.index(examples[-1].strip()) > second.index(examples[0].strip())


def test_only_a_context_failure_leaves_examples_out():
    from llm_interaction_node.core.agent import fitting_examples
    from llm_interaction_node.core.llm.errors import Failure
    context = LLMError("too long", failure=Failure.CONTEXT_LENGTH)    # sizes unknown: one
    assert fitting_examples(["a", "b", "c"], context) == ["a", "c"]
    assert fitting_examples(["c"], context) is None
    assert fitting_examples(["a", "b", "c"], LLMError("down")) is None
    big = LLMError("too long", failure=Failure.CONTEXT_LENGTH, context_size=100,
                   needed_tokens=100 + 5)
    # 69 tokens too many: y and z (40 each) go, x stays
    assert fitting_examples(["x " * 100, "y " * 40, "z " * 40, "last"], big) == ["x " * 100, "last"]


def test_after_a_correction_the_first_statement_cannot_be_the_bare_hand_back():
    """agent.act_on_correction: measured, the 1.5B model answered corrections with
    wait_for_trigger() turn after turn, at any temperature. After a reply the model read as a
    correction, the grammar of the turn's first statement (after comments) leaves the
    hand-back out, also after speech or a query (measured, issue 44: "You forgot the sponge."
    answered by say('I will forget about the sponge.') and the hand-back), until an action;
    after "thanks" (read as done), without a reading, and with the setting off it is there."""
    pytest.importorskip("llguidance")
    from grammar_support import accepted

    def grammars(said, **policy):
        responses = FETCH_JUICE + ["# the cup too", "say('Sorry.')",
                                   "list_object_locations(affordance='grasp')",
                                   "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
                                   "wait_for_trigger()"]
        agent, llm, _, _ = make_agent(responses, said, **policy)
        agent.run()
        return [c["grammar"] for c in llm.calls][len(FETCH_JUICE):]

    def lets_wait(grammar):
        return accepted(grammar, " wait_for_trigger()\n{'type': 'dialog'}\n")

    comment, first, spoken, queried, acted = grammars(["could I have the mango juice?",
                                                       "you forgot the cup, bring it as well"])
    assert not any(map(lets_wait, (comment, first, spoken, queried))) and lets_wait(acted)
    assert accepted(first, " say('Sorry.')") and accepted(comment, " # the cup too")
    for disguised in ("reply = wait_for_trigger()", "wait_for_trigger = wait_for_trigger()",
                      "say('ok'); wait_for_trigger()", "wait_for_trigger_and_wait()",
                      "wait_for_triggerAgain = 1", "def f():\n...     return wait_for_trigger()"):
        assert not accepted(first, " " + disguised, whole=False), disguised
    assert all(map(lets_wait, grammars(["could I have the mango juice?", "Thanks, that's all."])))
    assert all(map(lets_wait, grammars(["could I have the mango juice?", "bring the cup too"],
                                       act_on_correction=False)))
    assert all(map(lets_wait, grammars(["could I have the mango juice?", "bring the cup too"],
                                       readings={})))           # read as "other": no correction
    first_request = make_agent(["wait_for_trigger()"], ["hello"])
    first_request[0].run()
    assert lets_wait(first_request[1].calls[0]["grammar"]), "a new request may be answered so"


def test_until_the_robot_acts_no_statement_may_hand_back():
    """Measured: after a correction the model wrote ``again = lambda: hand_back()`` (function
    generation defined ``hand_back`` as a wrapper of the hand-back), then called it. Until a
    statement calls a function of the API that acts (a query or speech does not), or
    something moved, the hand-back stays out."""
    pytest.importorskip("llguidance")
    from grammar_support import accepted
    responses = FETCH_JUICE + ["again = lambda: 1", "x = 2",
                               "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
                               "wait_for_trigger()"]
    agent, llm, _, _ = make_agent(responses, ["could I have the mango juice?",
                                              "you forgot the cup"])
    agent.run()
    grammars = [c["grammar"] for c in llm.calls][len(FETCH_JUICE):]
    lets_wait = [accepted(g, " wait_for_trigger()") for g in grammars]
    assert lets_wait == [False, False, False, True]


def test_after_two_comments_in_a_row_the_next_input_is_a_statement():
    """agent.comments_in_a_row (measured: after a failed move, 6 to 12 comments in a row,
    "'failure' is a signal that the robot should give up", until the statement cap): the
    grammar of the input after two comment-only inputs has no comment; after a statement it
    has again; with the setting 0 it always has."""
    pytest.importorskip("llguidance")
    from grammar_support import accepted
    responses = ["# one", "# two", "list_locations()", "# three", "wait_for_trigger()"]

    def lets_comment(**policy):
        agent, llm, _, _ = make_agent(responses, ["where can you go?"], **policy)
        agent.run()
        return [accepted(c["grammar"], " # a comment") for c in llm.calls]

    assert lets_comment() == [True, True, False, True, True]
    assert lets_comment(comments_in_a_row=0) == [True] * 5


@pytest.mark.parametrize("unblock_first", [True, False])
def test_after_a_move_refused_for_a_block_on_top_the_next_input_moves_that_block(unblock_first):
    """agent.unblock_first (measured, matching_bowls: "cannot pick 'blue block': 'orange
    block' lies on top of it" and the same put again, 8 times in one interaction): the next
    input's grammar is a move of the block on top (a comment may come first), to anywhere but
    the two and the bowl they lie in (measured: the blocker put back into the pile's bowl
    covered the block again); after a statement runs, the grammar is free again."""
    pytest.importorskip("llguidance")
    from grammar_support import accepted
    world = make_world("tabletop", "red block,blue block,green bowl,blue bowl", seed=0)
    console = build_console("tabletop", world, EventQueue(["put the red block in the blue bowl"],
                                                          close=True))
    console.execute("put_first_on_second('red block', 'green bowl')")
    console.execute("put_first_on_second('blue block', 'red block')")
    llm = ScriptedLLM(["wait_for_trigger()",
                       "put_first_on_second('red block', 'blue bowl')", "# first the blue one",
                       "put_first_on_second('blue block', 'left side')",
                       "put_first_on_second('red block', 'blue bowl')", "wait_for_trigger()"])
    agent = build_agent("tabletop", llm, console, (),
                        config=AgentConfig(idle_retries=0, unblock_first=unblock_first,
                                           function_generation=False))
    agent.run()
    grammars = [c["grammar"] for c in llm.calls][1:]
    blocked = "cannot pick 'red block': 'blue block' lies on top of it"
    assert [e.output for e in console.transcript.entries if blocked in e.output]
    assert [e.output for e in console.transcript.entries][-2] == "'success'"
    again = " put_first_on_second('red block', 'blue bowl')"
    unblock = " put_first_on_second('blue block', 'left side')"
    assert accepted(grammars[0], again)
    for g in grammars[1:3]:                          # the comment, then the move
        assert accepted(g, unblock)
        assert accepted(g, again) is not unblock_first
        assert accepted(g, " put_first_on_second('blue block', 'red block')") is not unblock_first
        assert accepted(g, " put_first_on_second('blue block', 'green bowl')") is not unblock_first
    assert accepted(grammars[1], " # first the blue one")
    assert accepted(grammars[3], again), "free again after the move"


def test_a_repeated_comment_is_noted_but_never_the_loop_that_resets():
    """Measured: after a correction the model wrote one comment three times (the first loop),
    then repeated its right move (the second loop): the interaction was reset and the lesson
    the user asked for next was lost. A loop of comments is noted, not run, not counted."""
    comment = "# the user has learned from this interaction"
    responses = [comment] * 3 + ["list_locations()"] * 3 + ["wait_for_trigger()"]
    agent, llm, _, spoken = make_agent(responses, ["where can you go?"])
    agent.run()
    src = sources(agent)
    assert src.count(comment) == 2 and src.count("# " + LOOP_NOTE) == 2
    assert src.count("list_locations()") == 2 and src[-1] == "wait_for_trigger()"
    assert spoken == [] and [t.status for t in agent.turns] == ["waiting"]

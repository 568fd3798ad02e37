"""Issue 3 end to end: a robot is corrected, learns, and a NEW process does it right.

Only the LLM is scripted (statements, then the three L_improve answers); the household
world, the console, ChromaDB and the embeddings are real, and each phase is its own process.
Taught and recalled with an embedded store, the both-hands lesson is test_section_e's E1; here
it goes through a Chroma server shared by the two processes.
"""
from pathlib import Path

import pytest

from drivers.scripted_session import run_session
from learning_support import examples_of, teach_then_use

pytestmark = pytest.mark.slow

TWO_TRIPS = [
    "list_object_locations(affordance='grasp')",
    "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
    "grasp('mango-juice_0')",
    "move_to(get_location_coordinates('handover_to_human'))",
    "handover_object_to_human('mango-juice_0')",
    "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
    "grasp('coffee-cup_0')",
    "move_to(get_location_coordinates('handover_to_human'))",
    "handover_object_to_human('coffee-cup_0')",
    "wait_for_trigger()",
]
REQUEST = "I'd like the mango juice and a cup, please"
CORRECTION = "thanks, but next time use both hands, remember that"
PROBLEM = "The robot made two trips although it could carry both items at once."
IMPROVEMENT = "Grasp the juice and the cup with different hands and bring them together."
# every output as the world returns it: the example is replayed before it is stored
IMPROVED = f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': "{REQUEST}"}}
>>> list_object_locations(affordance='grasp')
[('mango-juice_0', 'on_kitchen-counter_0'), ('coffee-cup_0', 'on_kitchen-counter_0'), \
('tumbler_0', 'on_kitchen-counter_0'), ('kitchen-sponge_0', 'on_dining-table_0'), \
('milk-carton_0', 'on_dining-table_0'), ('empty-mug_0', None)]
>>> move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))
'success'
>>> grasp('mango-juice_0', 'left')  # one item in each hand: a single trip
'success'
>>> grasp('coffee-cup_0', 'right')
'success'
>>> move_to(get_location_coordinates('handover_to_human'))
'success'
>>> handover_object_to_human('mango-juice_0')
'success'
>>> handover_object_to_human('coffee-cup_0')
'success'
>>> wait_for_trigger()"""


def learn_then_recall(tmp_path, memory):
    first, second = teach_then_use(
        tmp_path, "drinks_and_cup", {"utterances": [REQUEST, CORRECTION], "responses": TWO_TRIPS},
        (PROBLEM, IMPROVEMENT), IMPROVED,
        {"utterance": "I would like the mango juice and a cup, please",
         "responses": ["wait_for_trigger()"] * 3},   # asked twice more: an idle answer
        memory)
    # the world really changed and the improved example was stored
    objects = first["world"]["objects"]
    assert objects["mango-juice_0"]["held_by"] == "human"
    assert objects["coffee-cup_0"]["held_by"] == "human"
    assert len(first["stored"]) == 1 and first["remaining"] == 0
    assert any("hands" in s for s in first["spoken"])          # the user is told what was learned
    assert ">>> learn_from_interaction()" in first["transcript"]

    prompt = second["prompts"][0]
    assert examples_of(prompt)[-1] == IMPROVED   # the learned example, most similar last
    # every seed (memory.order seed_block), then the one lesson (most similar last)
    seeds = len(list((Path(__file__).resolve().parents[1] / "config" / "transcripts"
                      / "humanoid").glob("*.txt")))
    assert prompt.count("# Example ") == seeds + 1
    return first, second


def test_learning_without_an_explicit_request_stores_nothing(tmp_path):
    """As in the paper's refused examples (E1 "serve", E2 kitchen counter): the robot calls
    learn_from_interaction() on its own after acting, not right after a request to learn."""
    memory = {"path": str(tmp_path / "memory"), "k": 4}
    out = run_session(tmp_path, "no_request", {
        "memory": memory, "utterances": [REQUEST],
        "responses": TWO_TRIPS[:-1] + ["learn_from_interaction()", "wait_for_trigger()"],
    })
    assert out["stored"] == [] and out["remaining"] == 0
    assert ("learn_from_interaction()\nIgnoring learn_from_interaction call since it did not "
            "happen on explicit user request.") in out["transcript"]


def test_what_one_robot_learned_reaches_another_through_a_chroma_server(tmp_path, chroma_server):
    learn_then_recall(tmp_path, {"host": "127.0.0.1", "port": chroma_server, "k": 8})

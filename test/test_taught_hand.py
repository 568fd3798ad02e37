"""A hand the user taught for a thing ("use your left hand for the juice from now on"): a
habit, the row ``hand`` of the edit shape (core/learning/habit.py ``FROM_READING``: ``set
hand`` on the grasp of the thing, a one-call bring's grasp included), written into the call by
the agent (core/guides/habits.py), judged by the household simulator's skill log; and the
teach-once bench's hand pairs, taught, checked and left alone in new sessions on one memory
(real console, learner, ChromaDB; the model and the reader scripted)."""
from __future__ import annotations

import json

import pytest

from llm_interaction_node.bench import household_lessons as L
from llm_interaction_node.bench import household_situations as H
from llm_interaction_node.bench.reading_items import household_vocabulary
from llm_interaction_node.core.apis.humanoid import HumanoidApi
from llm_interaction_node.core.learning.habit import edit_of_reading
from llm_interaction_node.core.reading import ReadingVocabulary, parse
from llm_interaction_node.core.reading.edit import Facts, apply
from llm_interaction_node.core.transcript.errors import SemanticHintError
from llm_interaction_node.eval.phrasings import load_phrasings

HOUSE = ReadingVocabulary.of(["mango-juice_0", "coffee-cup_0"], ["on_dining-table_0"],
                             ["inFrontOf_dining-table_0"], me=True)


def read(text: str, utterance: str = "(said)"):
    return parse(utterance, " " + text.replace("\n", "\n- ") + "\n\n", HOUSE)


def test_a_hand_read_in_a_request_to_learn_is_a_set_edit_on_the_grasp_of_its_thing():
    edit = edit_of_reading(read("hand: left\nlearn"), [], {"mango-juice_0": "handover"},
                           said="left hand for the juice from now on")
    assert (edit.op, edit.argument, edit.value) == ("set", "hand", "left")
    assert (edit.when.skill, edit.when.thing) == ("grasp", "mango-juice_0")
    bring = "bring_object_to('mango-juice_0', 'handover_to_human')"
    assert apply([edit], bring, Facts()).source == \
        "bring_object_to('mango-juice_0', 'handover_to_human', hand='left')"
    cup = "bring_object_to('coffee-cup_0', 'handover_to_human')"
    assert apply([edit], cup, Facts()).source == cup             # another thing: as written
    # no one hand asked ("both", "other" unresolved): no edit
    for other in ("hand: both\nlearn", "hand: other\nlearn"):
        assert edit_of_reading(read(other), [], {"mango-juice_0": "x"}) is None, other


def test_the_humanoid_api_takes_a_thing_with_the_hand_a_one_call_bring_names():
    world = H.household_world("drinks_and_cup")
    things = sorted(n for n, o in world.snapshot()["objects"].items() if o["held_by"] is None)
    juice, other = next(n for n in things if n.startswith("mango-juice")), \
        next(n for n in things if not n.startswith("mango-juice"))
    api = HumanoidApi(world)
    assert api.bring_object_to(juice, "handover_to_human", hand="left") == "success"
    assert api.bring_object_to(other, "handover_to_human") == "success"
    grasps = [(c.args["object_name"], c.args["hand"]) for c in world.log if c.skill == "grasp"]
    assert grasps == [(juice, "left"), (other, "right")]      # unnamed: the API's first free
    with pytest.raises(SemanticHintError):
        api.bring_object_to(juice, "handover_to_human", hand="third")


POOL = load_phrasings("config/phrasings/development.yaml")


def test_hand_pairs_teach_the_other_hand_than_the_api_takes_in_the_pool_s_words():
    pairs = L.teach_once_pairs(kinds=("hand",), phrasings=POOL)
    assert len(pairs) == 2
    for pair in pairs:
        request, lesson = pair.teach
        assert L.TAUGHT_HAND in lesson and H.said(pair.a) in lesson and "both" not in lesson
        assert pair.check != request and H.said(pair.a) in pair.check


def test_used_and_over_applied_of_a_hand_pair_are_read_from_the_grasps():
    pair = L.teach_once_pairs(kinds=("hand",), phrasings=POOL)[0]
    world = H.household_world(pair.world)
    HumanoidApi(world).bring_object_to(pair.a, "handover_to_human")
    assert not L.used(pair, world, {})                       # grasped with the right
    world = H.household_world(pair.world)
    api = HumanoidApi(world)
    api.bring_object_to(pair.a, "handover_to_human", hand="left")
    assert L.used(pair, world, {})
    api.bring_object_to(pair.other, "handover_to_human", hand="left")
    assert L.over_applied(pair, world, {}, {})


def test_a_hand_lesson_taught_once_is_the_robot_s_in_a_new_session(tmp_path):
    """Teach: the juice brought (the right hand), "use your left hand for the X from now on"
    read as ``hand: left`` with ``learn`` and by the form as nothing: the row ``hand`` of the
    edit shape, stored as a habit. Check: a new session's one-call bring grasps X with the
    left, though the model never names a hand (the habit writes it); other: another thing
    with the right."""
    from reading_support import ReadingScript
    from test_household_bench import scripted_sessions

    pair = L.teach_once_pairs(kinds=("hand",), phrasings=POOL)[0]
    request, lesson = pair.teach
    bring = "bring_object_to({!r}, 'handover_to_human')"
    scripts = {"teach": [bring.format(pair.a), "wait_for_trigger()", "learn_from_interaction()",
                         "wait_for_trigger()", "wait_for_trigger()"],
               "check": [bring.format(pair.a), "wait_for_trigger()"],
               "other": [bring.format(pair.other), "wait_for_trigger()"]}
    spoken = household_vocabulary(H.household_world(pair.world)).spoken
    reader = ReadingScript({request: f"do: {spoken(pair.a)} -> me",
                            lesson: "hand: left\nlearn",
                            pair.check: f"do: {spoken(pair.a)} -> me",
                            pair.unrelated: f"do: {spoken(pair.other)} -> me"})
    sessions = scripted_sessions(scripts)

    def session(spec, out):
        return sessions({**spec, "reader_llm": reader}, out)

    rows = L.bench([pair], tmp_path, echo=lambda s: None, session=session,
                   settings={"learning.mode": "final", "agent.function_generation": False})
    assert rows[0]["learned"], rows
    assert rows[0]["used"] and not rows[0]["over_applied"], rows
    teach = json.loads((tmp_path / f"{pair.id}-teach.json").read_text())
    assert "Stored the habit" in teach["transcript"], teach["transcript"]
    check = json.loads((tmp_path / f"{pair.id}-check.json").read_text())
    assert f"bring_object_to({pair.a!r}, 'handover_to_human', hand='left')" in \
        check["transcript"]                                  # the habit wrote the hand

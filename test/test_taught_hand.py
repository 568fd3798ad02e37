"""A hand the user taught for a thing (core/learning/taught_hand.py): stored in the lesson's
reading, made the robot's (the humanoid API grasps that thing with that hand wherever a call
leaves the hand open), judged by the household simulator's skill log; and the teach-once
bench's hand pairs, taught, checked and left alone in new sessions on one memory (real
console, learner, ChromaDB; the model and the reader scripted)."""
from __future__ import annotations

import json

from llm_interaction_node.bench import household_lessons as L
from llm_interaction_node.bench import household_situations as H
from llm_interaction_node.bench.reading_items import household_vocabulary
from llm_interaction_node.core.apis.humanoid import HumanoidApi
from llm_interaction_node.core.learning.taught_hand import (
    RememberedHands,
    taught,
    with_taught_hand,
)
from llm_interaction_node.core.reading import ReadingVocabulary, parse
from llm_interaction_node.core.reading.record import reading_to_json
from llm_interaction_node.eval.phrasings import load_phrasings

HOUSE = ReadingVocabulary.of(["mango-juice_0", "coffee-cup_0"], ["on_dining-table_0"],
                             ["inFrontOf_dining-table_0"], me=True)


def read(text: str, utterance: str = "(said)"):
    return parse(utterance, " " + text.replace("\n", "\n- ") + "\n\n", HOUSE)


def test_the_lesson_reading_gains_the_hand_of_the_request_to_learn():
    request = read("do: mango juice -> me", "bring me the juice")
    asked = read("hand: left\nlearn")
    lesson = with_taught_hand(request, asked)
    assert lesson.render(HOUSE.spoken) == "do: mango juice -> me\nhand: left"
    assert taught(lesson) == {"mango-juice_0": "left"}
    # no one hand asked ("both", "other" unresolved), or the request said its own: unchanged
    for other in ("hand: both\nlearn", "hand: other\nlearn", "learn", "done"):
        assert with_taught_hand(request, read(other)) is request, other
    own = read("do: mango juice -> me\nhand: right")
    assert with_taught_hand(own, asked) is own and taught(own) == {"mango-juice_0": "right"}
    assert with_taught_hand(read("question"), asked).render() == "question"   # nothing moved
    assert with_taught_hand(None, asked) is None and taught(None) == {}


def test_remembered_hands_are_the_latest_lesson_s_for_each_thing():
    first = reading_to_json(read("do: mango juice -> me\nhand: left"))
    later = reading_to_json(read("do: mango juice and coffee cup -> dining table\nhand: right"))
    stored = [first, None, "not json", later]
    hands = RememberedHands(lambda: stored)
    assert hands("mango-juice_0") == "right" and hands("coffee-cup_0") == "right"
    stored[:] = [later, first]                           # asked again: a change counts at once
    assert hands("mango-juice_0") == "left" and hands("coffee-cup_0") == "right"
    assert hands("banana_0") is None


def test_the_humanoid_api_grasps_a_thing_with_its_taught_hand_where_the_call_leaves_it_open():
    world = H.household_world("drinks_and_cup")
    things = sorted(n for n, o in world.snapshot()["objects"].items() if o["held_by"] is None)
    juice, other = next(n for n in things if n.startswith("mango-juice")), \
        next(n for n in things if not n.startswith("mango-juice"))
    api = HumanoidApi(world, hand_for={juice: "left"}.get)
    assert api.bring_object_to(juice, "handover_to_human") == "success"
    assert api.bring_object_to(other, "handover_to_human") == "success"
    grasps = [(c.args["object_name"], c.args["hand"]) for c in world.log if c.skill == "grasp"]
    assert grasps == [(juice, "left"), (other, "right")]      # untaught: the API's first free

    world = H.household_world("drinks_and_cup")
    api = HumanoidApi(world, hand_for={juice: "left"}.get)
    api.move_to(api.get_location_coordinates(H.state(world)[juice][0].replace("on_",
                                                                                "inFrontOf_")))
    assert api.grasp(juice, "right") == "success"              # a hand the call names wins
    assert world.log[-1].args["hand"] == "right"
    world = H.household_world("drinks_and_cup")
    api = HumanoidApi(world, hand_for=lambda name: 1 / 0)     # the memory is down: any hand
    api.move_to(api.get_location_coordinates(H.state(world)[juice][0].replace("on_",
                                                                                "inFrontOf_")))
    assert api.grasp(juice) == "success" and world.log[-1].args["hand"] == "right"


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
    api = HumanoidApi(world, hand_for={pair.a: "left", pair.other: "left"}.get)
    api.bring_object_to(pair.a, "handover_to_human")
    assert L.used(pair, world, {})
    api.bring_object_to(pair.other, "handover_to_human")
    assert L.over_applied(pair, world, {}, {})


def test_a_hand_lesson_taught_once_is_the_robot_s_in_a_new_session(tmp_path):
    """Teach: the juice brought (the right hand), "use your left hand for the X from now on"
    read as ``hand: left`` with ``learn``, the lesson stored (mode final) with that hand in its
    reading. Check: a new session's one-call bring grasps X with the left, though the model
    never names a hand; other: another thing with the right."""
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
    check = json.loads((tmp_path / f"{pair.id}-check.json").read_text())
    assert "'left'" not in check["transcript"]               # the model never named the hand

"""The section E bench's judgements of "the lesson was used", on real worlds (no model)."""
from llm_interaction_node.bench.section_e import OVER_APPLIED, SCENARIOS, USED, _Trace
from llm_interaction_node.core.transcript.errors import EndOfInteraction
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import build_console, make_world


def play(world_name, statements, said=("go",)):
    world = make_world("humanoid", world_name)
    trace = _Trace()
    console = build_console(
        "humanoid", world, EventQueue(list(said), close=True),
        listeners=[lambda _e: trace.append(tuple(v is not None for v in world.hands.values()))])
    for s in ["wait_for_trigger()", *statements]:
        try:
            console.execute(s)
        except EndOfInteraction:
            break
    return world, trace


TABLE = "move_to(get_location_coordinates('inFrontOf_long-table_0'))"
SPONGE = ["grasp('kitchen-sponge_0')", "place_object('kitchen-sponge_0', 'on_workshop-bench_0')"]


def bench(speed):
    return f"move_to(get_location_coordinates('inFrontOf_workshop-bench_0'), speed_factor={speed})"


def test_faster_on_the_safe_route_only():
    used = USED["faster_on_safe_route_only"]
    assert used(*play("sponge_workbench", [TABLE, SPONGE[0], bench(2.0), SPONGE[1]]))
    assert not used(*play("sponge_workbench", [TABLE, SPONGE[0], bench(1.0), SPONGE[1]]))
    fast_everywhere = TABLE.replace("))", "), speed_factor=2.0)")
    assert not used(*play("sponge_workbench", [fast_everywhere, SPONGE[0], bench(2.0), SPONGE[1]]))


COUNTER = "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))"
HUMAN = "move_to(get_location_coordinates('handover_to_human'))"


def test_both_hands_and_the_cup_with_the_juice():
    one_trip = [
        COUNTER,
        "grasp('mango-juice_0', 'left')",
        "grasp('coffee-cup_0', 'right')",
        HUMAN,
        "handover_object_to_human('mango-juice_0')",
        "handover_object_to_human('coffee-cup_0')",
    ]
    two_trips = [
        COUNTER,
        "grasp('mango-juice_0')",
        HUMAN,
        "handover_object_to_human('mango-juice_0')",
        COUNTER,
        "grasp('coffee-cup_0')",
        HUMAN,
        "handover_object_to_human('coffee-cup_0')",
    ]
    assert USED["both_hands"](*play("drinks_and_cup", one_trip))
    assert not USED["both_hands"](*play("drinks_and_cup", two_trips))
    assert USED["cup_with_juice"](*play("drinks_and_cup", two_trips))
    assert not USED["cup_with_juice"](*play("drinks_and_cup", two_trips[:4]))


def test_the_ladder_unasked():
    ladder = "bring_object_to('step-ladder_0', 'inFrontOf_fridge_0')"
    world, trace = play("ladder_and_shelf", [ladder])
    assert USED["ladder_unasked"](world, trace)
    trace.asks.append("ask")
    assert not USED["ladder_unasked"](world, trace)
    assert not USED["ladder_unasked"](*play("ladder_and_shelf", []))


def test_every_scenario_has_a_world_and_a_check():
    for name, s in SCENARIOS.items():
        assert s.lesson_used in USED and s.teach and s.check, name
        assert s.over_applied in OVER_APPLIED and s.unrelated not in (s.check, *s.teach), name
        make_world("humanoid", s.world)


SPONGE_TO_HUMAN = ["move_to(get_location_coordinates('inFrontOf_dining-table_0'))",
                   "grasp('kitchen-sponge_0')", HUMAN,
                   "handover_object_to_human('kitchen-sponge_0')"]


def test_a_lesson_over_applied_to_an_unrelated_request():
    """Issue 30 item 3: asked for the sponge after a lesson about juice (or the ladder), or
    for a move off the safe route after the speed lesson, the world shows whether the lesson
    acted where it does not belong."""
    taken = OVER_APPLIED["drinks_taken"]
    assert not taken(*play("drinks_and_cup", SPONGE_TO_HUMAN))
    cup_too = SPONGE_TO_HUMAN[:2] + [COUNTER, "grasp('coffee-cup_0')"] + SPONGE_TO_HUMAN[2:]
    assert taken(*play("drinks_and_cup", cup_too))
    assert not taken(*play("drinks_and_cup", ["grasp('coffee-cup_0')"])), "a failed grasp"

    moved = OVER_APPLIED["ladder_moved"]
    assert not moved(*play("ladder_and_shelf", SPONGE_TO_HUMAN))
    ladder = "bring_object_to('step-ladder_0', 'inFrontOf_dining-table_0')"
    assert moved(*play("ladder_and_shelf", [ladder] + SPONGE_TO_HUMAN))

    fast = OVER_APPLIED["any_fast_move"]
    counter = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0')"
               + ", speed_factor={})", "place_object('screwdriver_0', 'on_kitchen-counter_0')"]
    normal = [TABLE, "grasp('screwdriver_0')", counter[0].format(1.0), counter[1]]
    assert not fast(*play("sponge_workbench", normal))
    assert fast(*play("sponge_workbench", [TABLE, normal[1], counter[0].format(1.5), counter[1]]))


def test_a_teach_session_that_stores_a_lesson_gives_a_record_json_can_write(tmp_path):
    """The session process of the bench, with a scripted LLM in place of the embedded model:
    E1's utterances, a lesson stored in mode ``corrected``; its record is what the bench writes
    (a session that stored an example crashed here once: a removed learner attribute)."""
    import json

    from llm_interaction_node.bench.section_e import run_session
    from llm_interaction_node.core.llm import ScriptedLLM
    juice = "mango-juice_0"
    llm = ScriptedLLM(
        [
            "wait_for_trigger()",
            "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
            f"grasp('{juice}')",
            "move_to(get_location_coordinates('handover_to_human'))",
            f"handover_object_to_human('{juice}')",
            "wait_for_trigger()",
            "say('I will bring the cup too.')",
            "wait_for_trigger()",
            "learn_from_interaction()",
            "wait_for_trigger()",
        ]
        + ["wait_for_trigger()"] * 5
    )
    record = run_session({"scenario": "E1", "mode": "corrected", "phase": "teach",
                          "memory": str(tmp_path / "memory")}, llm=llm)
    assert record["error"] is None and record["learned"]
    assert len(record["stored"]) == 1 and "next time" in record["stored"][0]
    assert json.loads(json.dumps(record))["learn_calls"][0]["status"] == "stored_corrected"

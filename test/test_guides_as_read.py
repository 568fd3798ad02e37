"""The thing the request was read with (core/guides/as_read.py): in a request's first attempt
in the household, a grasp (or a move, a hand-over) of a thing the reading does not name and
the user did not say takes the one the reading names. The console model and the reader are
stand-ins; the agent, the console, the API and the simulated world are real."""
from __future__ import annotations

from llm_interaction_node.bench import household_situations as H
from llm_interaction_node.core.agent import AgentConfig
from llm_interaction_node.core.guides.as_read import object_of, with_object
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.reading import parse
from llm_interaction_node.core.reading.structure import named_things
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import build_agent, build_console
from reading_support import scripted_reader
from test_reading_other_names import HOME

WAIT = "wait_for_trigger()"
GLASS = "I'd like the glass"
READINGS = {GLASS: "do: tumbler -> me",
            "I'd like the cup": "do: coffee cup -> me",
            "the juice and the glass, please": "do: mango juice and tumbler -> me",
            "I'd like something": "do: none -> me",
            "what a nice day": "other"}


def run(utterances, statements, world_name="drinks_and_cup", readings=READINGS):
    world = H.household_world(world_name)
    console = build_console("humanoid", world, EventQueue(utterances, close=True))
    agent = build_agent("humanoid", ScriptedLLM(statements), console, (),
                        config=AgentConfig(function_generation=False, idle_retries=0),
                        reader=scripted_reader(readings))
    agent.run()
    return world, console


def held_by_human(world):
    return {n for n, (_, by) in H.state(world).items() if by == H.HUMAN}


def fetch(obj, world_name="drinks_and_cup"):
    return H.steps([(obj, H.HUMAN)], H.state(H.household_world(world_name)))


def test_the_glass_read_as_the_tumbler_is_brought_though_the_model_grasped_the_cup():
    world, console = run([GLASS], fetch("coffee-cup_0") + [WAIT])
    assert held_by_human(world) == {"tumbler_0", "empty-mug_0"}
    ran = [e.source for e in console.transcript.entries]
    assert "grasp('tumbler_0')" in ran and "handover_object_to_human('tumbler_0')" in ran
    assert not any("coffee-cup_0" in s for s in ran)


def test_a_one_call_move_takes_the_thing_read():
    world, _ = run([GLASS], ["bring_object_to('coffee-cup_0', 'handover_to_human')", WAIT])
    assert held_by_human(world) == {"tumbler_0", "empty-mug_0"}


def test_a_thing_the_user_said_is_never_changed():
    # "cup" said: the model's cup stands, though the reading (wrongly) named the tumbler
    world, _ = run(["I'd like the cup"], fetch("coffee-cup_0") + [WAIT],
                   readings={"I'd like the cup": "do: tumbler -> me"})
    assert "coffee-cup_0" in held_by_human(world) and "tumbler_0" not in held_by_human(world)


def test_the_thing_read_is_left_as_the_model_took_it():
    world, _ = run([GLASS], fetch("tumbler_0") + [WAIT])
    assert "tumbler_0" in held_by_human(world)


def test_no_named_thing_or_two_left_leave_the_model_s_choice():
    world, _ = run(["I'd like something"], fetch("coffee-cup_0") + [WAIT])
    assert "coffee-cup_0" in held_by_human(world)
    world, _ = run(["what a nice day"], fetch("coffee-cup_0") + [WAIT])
    assert "coffee-cup_0" in held_by_human(world)
    # two things read, neither taken yet: which first is the model's (the cup stays)
    world, _ = run(["the juice and the glass, please"],
                   ["bring_object_to('coffee-cup_0', 'handover_to_human')", WAIT])
    assert "coffee-cup_0" in held_by_human(world)


def test_with_one_thing_read_taken_the_other_takes_the_place_of_the_unnamed_one():
    world, _ = run(["the juice and the glass, please"],
                   ["bring_object_to('mango-juice_0', 'handover_to_human')",
                    "bring_object_to('coffee-cup_0', 'handover_to_human')", WAIT])
    assert {"mango-juice_0", "tumbler_0"} <= held_by_human(world)
    assert "coffee-cup_0" not in held_by_human(world)


def test_after_the_user_answered_the_turn_is_the_model_s():
    utterances = [GLASS, "and the cup too"]
    readings = {**READINGS, "and the cup too": "do: coffee cup -> me"}
    world, _ = run(utterances, fetch("tumbler_0") + [WAIT] + fetch("coffee-cup_0") + [WAIT],
                   readings=readings)
    assert {"tumbler_0", "coffee-cup_0"} <= held_by_human(world)


def test_the_statement_helpers():
    params = {"grasp": "object_name", "place_object": "object_in_hand_name"}
    assert object_of("grasp('coffee-cup_0', 'left')", params) == "coffee-cup_0"
    assert object_of("grasp(object_name='coffee-cup_0')", params) == "coffee-cup_0"
    assert object_of("grasp(name)", params) is None
    assert object_of("say('coffee-cup_0')", params) is None
    assert with_object("grasp('coffee-cup_0', 'left')", params, "tumbler_0") == \
        "grasp('tumbler_0', 'left')"
    assert with_object("place_object(object_in_hand_name='a', destination_object_name='b')",
                       params, "tumbler_0") == \
        "place_object(object_in_hand_name='tumbler_0', destination_object_name='b')"
    reading = parse("(said)", " do: mango juice and tumbler -> me\n- do: tumbler -> me\n\n", HOME)
    assert named_things(reading) == ("mango-juice_0", "tumbler_0")
    assert named_things(parse("(said)", " do: every cup -> me\n\n", HOME)) == ()


def test_switched_off_the_model_s_call_runs_as_written():
    world = H.household_world("drinks_and_cup")
    console = build_console("humanoid", world, EventQueue([GLASS], close=True))
    agent = build_agent("humanoid", ScriptedLLM(fetch("coffee-cup_0") + [WAIT]), console, (),
                        config=AgentConfig(function_generation=False, idle_retries=0,
                                           take_what_was_read=False),
                        reader=scripted_reader(READINGS))
    agent.run()
    assert "coffee-cup_0" in held_by_human(world) and "tumbler_0" not in held_by_human(world)


def test_a_turn_that_follows_a_lesson_is_left_as_the_lesson_has_it():
    """What comes along with the thing asked for may come first in a lesson's program."""
    from llm_interaction_node.core.guides.as_read import as_read
    from llm_interaction_node.core.reading.select import reading_scene
    from test_guides_where_it_lies import lesson_state

    world = H.household_world("drinks_and_cup")
    console = build_console("humanoid", world, EventQueue([], close=True))
    scene = reading_scene(console.api)
    reading = parse(GLASS, " do: tumbler -> me\n\n", scene.vocabulary)
    lesson = "\n".join([">>> wait_for_trigger()", repr({"type": "dialog", "text": GLASS}),
                        ">>> grasp('coffee-cup_0')", "'success'",
                        ">>> grasp('tumbler_0')", "'success'",
                        ">>> wait_for_trigger()"])
    source = "grasp('coffee-cup_0')"

    def state(nearest):
        return lesson_state(console, GLASS, reading, [source], nearest)
    assert as_read(state(None), source) == "grasp('tumbler_0')"
    assert as_read(state(lesson), source) == source
    other = lesson.replace(GLASS, "bring me the milk")           # a lesson of another request
    assert as_read(state(other), source) == "grasp('tumbler_0')"

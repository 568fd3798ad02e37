"""Teach once, in the household: "whenever you bring me the juice, also bring me a cup.
remember that", said right after the turn that brought the juice (issue 44 item 4). The model
read it as ``also: coffee cup with mango juice``; the lesson is a habit, a row of the edit
shape (core/learning/habit.py ``also_edit``): after the hand-over of the juice, the move of
the cup; the robot does it now (brings the cup), the edited program is replayed, and a later
request that hands over the juice brings the cup after it, and only that one. Only the LLM is
scripted (the model's form reads nothing: the clause reading's row decides); the console, the
household world, the replay and ChromaDB are real."""
from __future__ import annotations

import json

from llm_interaction_node.bench import household_situations as H
from llm_interaction_node.core.learning.habit import also_edit
from llm_interaction_node.core.reading import Clause, Reading, Selection
from llm_interaction_node.core.reading.edit import Facts, apply
from reading_support import ReadingScript
from test_habits import _handed, _session

REQUEST = "could I have the juice please"
LESSON = "whenever you bring me the juice, also bring me a cup. remember that"
JUICE = "bring_object_to('mango-juice_0', 'handover_to_human')"
CUP = "bring_object_to('coffee-cup_0', 'handover_to_human')"
STEPS = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
         "grasp('mango-juice_0')", "move_to(get_location_coordinates('handover_to_human'))",
         "handover_object_to_human('mango-juice_0')"]
TEACH = [JUICE, "wait_for_trigger()", "learn_from_interaction()", "wait_for_trigger()"]
READINGS = {REQUEST: "do: mango juice -> me", LESSON: "also: coffee cup with mango juice\nlearn"}


def _also(thing: str, with_: str) -> Reading:
    return Reading("(said)", (Clause("also", Selection("named", names=(thing,)),
                                     companion=Selection("named", names=(with_,))),
                              Clause("learn")))


def test_what_comes_along_is_a_move_after_the_hand_over_of_what_it_comes_with():
    edit = also_edit(_also("coffee-cup_0", "mango-juice_0"),
                     {"mango-juice_0": "handover_to_human"}, None)
    assert (edit.op, edit.when.skill, edit.when.thing) == \
        ("after", "handover_object_to_human", "mango-juice_0")
    assert apply([edit], JUICE, Facts()).after == [CUP]
    assert apply([edit], STEPS[-1], Facts()).after == [CUP]             # by steps too
    assert apply([edit], CUP, Facts()).after == []                      # another thing
    placed = also_edit(_also("coffee-cup_0", "mango-juice_0"),
                       {"mango-juice_0": "on_dining-table_0"},
                       lambda obj, to: f"bring_object_to({obj!r}, {to!r})")
    assert placed.when.skill == "place_object" and placed.statements == (
        "bring_object_to('coffee-cup_0', 'on_dining-table_0')",)
    # read the other way round, what was brought is what it comes with
    turned = also_edit(_also("mango-juice_0", "coffee-cup_0"),
                       {"mango-juice_0": "handover_to_human"}, None)
    assert turned.when.thing == "mango-juice_0" and turned.statements == (CUP,)
    assert also_edit(Reading("x", (Clause("learn"),)), {}, None) is None


def test_the_robot_brings_the_cup_now_and_later_after_the_juice_only(tmp_path):
    reader = ReadingScript({**READINGS, "bring me the juice again": "do: mango juice -> me",
                            "the milk please": "do: milk carton -> me"})
    spoken, robot, session = _session(tmp_path, [REQUEST, LESSON], TEACH, reader)
    outcome = session.learner.last_outcome
    assert str(outcome.status) == "stored_habit", outcome.message
    assert _handed(robot) == ["mango-juice_0", "coffee-cup_0"]       # done now
    [habit] = session.memory.list("habit")
    edit = json.loads(habit.edit)
    assert edit["op"] == "after" and edit["statements"] == [CUP], edit
    lines = habit.transcript.splitlines()
    assert lines.index(f">>> {JUICE}") < lines.index(f">>> {CUP}")      # the edited program
    _, robot, _ = _session(tmp_path, ["bring me the juice again"],
                           [JUICE, "wait_for_trigger()"], reader)
    assert _handed(robot) == ["mango-juice_0", "coffee-cup_0"]       # a new session: followed
    _, robot, _ = _session(tmp_path, ["the milk please"],
                           [BRING_MILK, "wait_for_trigger()"], reader)
    assert _handed(robot) == ["milk-carton_0"]                       # not over-applied


BRING_MILK = "bring_object_to('milk-carton_0', 'handover_to_human')"


def test_by_steps_the_cup_is_brought_after_the_hand_over(tmp_path):
    spoken, robot, session = _session(
        tmp_path, [REQUEST, LESSON],
        [*STEPS, "wait_for_trigger()", "learn_from_interaction()", "wait_for_trigger()"],
        ReadingScript(READINGS))
    assert str(session.learner.last_outcome.status) == "stored_habit"
    assert _handed(robot) == ["mango-juice_0", "coffee-cup_0"]


def test_a_companion_of_a_thing_never_brought_is_not_learned(tmp_path):
    """Measured (teach-once bench, living_room): the glasses were never brought (the grasp
    failed), and that attempt was stored as the lesson to bring the book with them."""
    spoken, robot, session = _session(
        tmp_path, [REQUEST, LESSON],
        ["move_to(get_location_coordinates('handover_to_human'))", "wait_for_trigger()",
         "learn_from_interaction()", "wait_for_trigger()"], ReadingScript(READINGS))
    outcome = session.learner.last_outcome
    assert str(outcome.status) == "nothing_to_learn", outcome.message
    assert session.memory.list("habit") == [] and _handed(robot) == []
    assert any(s.startswith("Sorry, I did not hand you the mango juice") for s in spoken), spoken


def test_a_rule_to_bring_something_along_is_a_request_to_learn_by_what_it_says(tmp_path):
    """Measured: "from now on, bring the sponge along with the cleaning spray" was read as
    ``also`` without ``learn``; an ``also`` is a lasting rule, so the gate honours it."""
    reader = ReadingScript({**READINGS, LESSON: "also: coffee cup with mango juice"})
    _, robot, session = _session(tmp_path, [REQUEST, LESSON], TEACH, reader)
    assert str(session.learner.last_outcome.status) == "stored_habit"
    assert H.state(robot)["coffee-cup_0"][1] == H.HUMAN


def test_a_form_that_goes_for_the_companion_gives_way_to_the_also_row(tmp_path):
    """Measured (five-kind bench at seeds 28755 and 18703): the form read "also bring me the
    cup" as a drive (to the kitchen counter, where the cup lies; to the handover place) after
    the juice's hand-over; the reading's row is the lesson. A form that drives elsewhere or
    speaks stands (held-out: "move to the room center", "say cheers" were read ``also``)."""
    from test_habits import form_text
    for drive in ('move_to(get_location_coordinates("inFrontOf_kitchen-counter_0"))',
                  'move_to(get_location_coordinates("handover_to_human"))'):
        reader = ReadingScript(READINGS, edits={LESSON: form_text(
            "after you hand it over", "the mango juice", "anywhere", drive)})
        _, robot, session = _session(tmp_path / drive[-12:-3], [REQUEST, LESSON], TEACH, reader)
        [habit] = session.memory.list("habit")
        assert json.loads(habit.edit)["statements"] == [CUP], drive
        assert _handed(robot) == ["mango-juice_0", "coffee-cup_0"]
    table = 'move_to(get_location_coordinates("inFrontOf_dining-table_0"))'
    reader = ReadingScript(READINGS, edits={LESSON: form_text(
        "after you hand it over", "anything", "anywhere", table)})
    _, robot, session = _session(tmp_path / "table", [REQUEST, LESSON], TEACH, reader)
    [habit] = session.memory.list("habit")      # a drive elsewhere (held-out: "move to the
    assert "dining-table" in json.loads(habit.edit)["statements"][0]   # room center") stands
    assert _handed(robot) == ["mango-juice_0"]
    cheers = 'say("Cheers!")'
    reader = ReadingScript(READINGS, edits={LESSON: form_text(
        "after you hand it over", "anything", "anywhere", cheers)})
    _, robot, session = _session(tmp_path / "cheers", [REQUEST, LESSON], TEACH, reader)
    [habit] = session.memory.list("habit")
    assert json.loads(habit.edit)["statements"] == ["say('Cheers!')"]
    assert _handed(robot) == ["mango-juice_0"]

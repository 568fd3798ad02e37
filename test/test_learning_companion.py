"""Teach once, in the household: "whenever you bring me the juice, also bring me a cup.
remember that", said right after the turn that brought the juice (issue 44 item 4). The model
read it as ``also: coffee cup with mango juice``; the code writes the plan edit, the robot
does it first (brings the cup), and the lesson (juice, then cup) is stored, replayed against
the world the user asked for, with the condition that it holds where a request names the juice.
Only the LLM is scripted; the console, the household world, the replay and ChromaDB are real."""
from __future__ import annotations

import json

from learning_support import learning_session
from llm_interaction_node.core.learning.companion import with_companions
from llm_interaction_node.core.learning.learner import LearnStatus
from llm_interaction_node.core.memory.meaning import slot_mapping
from llm_interaction_node.core.reading import Clause, Reading, Selection
from llm_interaction_node.core.reading.record import reading_from_json
from llm_interaction_node.core.transcript.transcript import Entry

REQUEST = "could I have the juice please"
LESSON = "whenever you bring me the juice, also bring me a cup. remember that"
JUICE = "bring_object_to('mango-juice_0', 'handover_to_human')"
CUP = "bring_object_to('coffee-cup_0', 'handover_to_human')"
TRIP = ["wait_for_trigger()", JUICE, "say('Here is the juice.')", "wait_for_trigger()"]
READINGS = {REQUEST: "do: mango juice -> me",
            LESSON: "also: coffee cup with mango juice\nlearn"}


def _also(thing: str, with_: str) -> Reading:
    return Reading("(said)", (Clause("also", Selection("named", names=(thing,)),
                                     companion=Selection("named", names=(with_,))),
                              Clause("learn")))


def test_the_companion_follows_each_move_of_what_it_comes_with():
    attempt = [Entry("list_objects()"), Entry(JUICE), Entry("say('here')")]
    edited, added = with_companions(_also("coffee-cup_0", "mango-juice_0"), attempt)
    assert [e.source for e in edited] == ["list_objects()", JUICE, CUP, "say('here')"]
    assert added == (CUP,)
    assert with_companions(_also("coffee-cup_0", "tumbler_0"), attempt) == (attempt, ())
    done = attempt + [Entry(CUP)]             # brought already: nothing added
    assert with_companions(_also("coffee-cup_0", "mango-juice_0"), done)[1] == ()
    assert with_companions(None, attempt) == (attempt, ())


STEPS = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
         "grasp('mango-juice_0')", "move_to(get_location_coordinates('handover_to_human'))",
         "handover_object_to_human('mango-juice_0')"]


def test_after_a_thing_brought_by_steps_the_companion_is_brought_by_the_move_function():
    """Measured (teach-once bench, sponge_workbench): the model brought the spray by grasp,
    move_to and handover, none a one-call move, and nothing was added; now the API's move
    function brings the companion to where the thing ended, after its last step."""
    attempt = [Entry(x) for x in STEPS + ["say('here')"]]
    write = lambda obj, to: f"bring_object_to({obj!r}, {to!r})"     # noqa: E731
    edited, added = with_companions(_also("coffee-cup_0", "mango-juice_0"), attempt, write,
                                    {"mango-juice_0": "handover_to_human"})
    assert [e.source for e in edited] == STEPS + [CUP, "say('here')"] and added == (CUP,)
    assert with_companions(_also("coffee-cup_0", "mango-juice_0"), attempt)[1] == ()


def test_by_steps_through_the_learner_the_cup_is_brought_first_and_stored(memory):
    s = learning_session([REQUEST, LESSON], memory, ["wait_for_trigger()", *STEPS,
                                                     "wait_for_trigger()"],
                         mode="final", all_ok=True, readings=READINGS)
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert s.robot.objects["coffee-cup_0"].held_by == "human"
    [example] = memory.list("final")
    lines = example.transcript.splitlines()
    assert lines.index(">>> handover_object_to_human('mango-juice_0')") < lines.index(f">>> {CUP}")


def test_the_robot_brings_the_cup_first_then_stores_the_lesson_with_its_condition(memory):
    s = learning_session([REQUEST, LESSON], memory, TRIP, mode="final", all_ok=True,
                         readings=READINGS)
    assert s.robot.objects["coffee-cup_0"].held_by != "human"
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert s.robot.objects["coffee-cup_0"].held_by == "human"           # done first
    assert "I will do it that way now" in " ".join(s.spoken)
    assert entry.output.endswith(f"with what the user asked to come along: {CUP}.")
    [example] = memory.list("final")
    lines = example.transcript.splitlines()
    assert lines.index(f">>> {JUICE}") < lines.index(f">>> {CUP}")
    lesson = reading_from_json(example.reading)
    assert [c.kind for c in lesson.clauses] == ["do", "also"]
    juice_again = Reading("x", (Clause("do", Selection("named", names=("mango-juice_0",))),))
    assert slot_mapping(lesson, Reading("x", (
        Clause("do", Selection("named", names=("mango-juice_0",)), lesson.clauses[0].where),
    ))) == {}
    sponge = Reading("x", (Clause("do", Selection("named", names=("kitchen-sponge_0",)),
                                  lesson.clauses[0].where),))
    assert slot_mapping(lesson, sponge) is None            # asked for another thing: not it
    assert slot_mapping(lesson, juice_again) is None        # another shape (no place)
    assert json.loads(example.reading)


def test_where_the_robot_cannot_do_it_first_nothing_is_stored_and_the_user_hears_why(memory):
    s = learning_session([REQUEST, LESSON], memory, TRIP, mode="final", all_ok=True,
                         readings=READINGS)
    s.learner.act = lambda source: "error: the cup is out of reach"
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.NOTHING_TO_LEARN
    assert "doing it now failed" in entry.output and "out of reach" in entry.output
    assert "could not do it that way now" in " ".join(s.spoken)
    assert memory.list("final") == []


def test_without_the_also_reading_the_lesson_is_the_trip_as_it_was(memory):
    s = learning_session([REQUEST, LESSON], memory, TRIP, mode="final", all_ok=True,
                         readings={REQUEST: READINGS[REQUEST], LESSON: "learn"})
    s.console.execute("learn_from_interaction()")
    assert s.robot.objects["coffee-cup_0"].held_by != "human"
    [example] = memory.list("final")
    assert f">>> {CUP}" not in example.transcript.splitlines()


def test_a_companion_of_a_thing_never_brought_is_not_learned(memory):
    """Measured (teach-once bench, living_room): the glasses were never brought (the grasp
    failed), and that attempt was stored as the lesson to bring the book with them."""
    failed = ["wait_for_trigger()", "move_to(get_location_coordinates('handover_to_human'))",
              "wait_for_trigger()"]
    s = learning_session([REQUEST, LESSON], memory, failed, mode="final", all_ok=True,
                         readings=READINGS)
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.NOTHING_TO_LEARN
    assert "never brought" in entry.output and "mango-juice_0" in entry.output
    assert memory.list("final") == [] and s.robot.objects["coffee-cup_0"].held_by != "human"


def test_what_comes_along_is_read_the_right_way_round_by_what_was_brought(memory):
    """Measured (teach-once bench): "bring the sponge along with the cleaning spray" after the
    spray was brought was read the other way round; what was brought is what it comes with."""
    s = learning_session([REQUEST, LESSON], memory, TRIP, mode="final", all_ok=True,
                         readings={**READINGS, LESSON: "also: mango juice with coffee cup\nlearn"})
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert s.robot.objects["coffee-cup_0"].held_by == "human"
    [example] = memory.list("final")
    also = reading_from_json(example.reading).clauses[-1]
    assert also.objects.names == ("coffee-cup_0",) and also.companion.names == ("mango-juice_0",)


def test_a_rule_to_bring_something_along_is_a_request_to_learn_by_what_it_says(memory):
    """Measured: "from now on, bring the sponge along with the cleaning spray" was read as
    ``also`` without ``learn``; an ``also`` is a lasting rule, so the gate honours it."""
    s = learning_session([REQUEST, LESSON], memory, TRIP, mode="final", all_ok=True,
                         readings={**READINGS, LESSON: "also: coffee cup with mango juice"})
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output


def test_in_mode_auto_the_plan_edit_is_no_first_turn_unchanged(memory):
    """Measured (teach-once bench, mode auto): L_improve's rewrite had the wrong shape, and the
    final lesson was refused as "the first turn the user's lesson is about, unchanged", which
    it is not with the companion added."""
    from llm_interaction_node.core.llm import ScriptedLLM
    s = learning_session([REQUEST, LESSON], memory, ["wait_for_trigger()", *STEPS,
                                                     "wait_for_trigger()"],
                         mode="auto", all_ok=True, readings=READINGS)
    wrong = s.console.transcript.render() + f"\n>>> wait_for_trigger()\n" \
        f"{{'type': 'dialog', 'text': {LESSON!r}}}\n>>> {CUP}\n'success'"
    s.learner.llm = ScriptedLLM(["The cup was not brought.", "Bring the cup too.", wrong, wrong])
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert s.robot.objects["coffee-cup_0"].held_by == "human"

"""Teach once, in the household: "always ask me before you take the juice", said after a turn
that took the juice without a question (issue 44: 0 of 2 such pairs learned, nothing wrote
the question into a lesson). The model read it as ``ask first``; the code writes the question
before the attempt first takes the juice, the lesson is replayed and stored with the condition
that it holds where a request names the juice. Only the LLM is scripted; the console, the
household world, the replay and ChromaDB are real."""
from __future__ import annotations

from learning_support import learning_session
from llm_interaction_node.core.learning.ask_first import with_asks
from llm_interaction_node.core.learning.learner import LearnStatus
from llm_interaction_node.core.memory.meaning import slot_mapping
from llm_interaction_node.core.reading import Clause, Reading, Selection
from llm_interaction_node.core.reading.record import reading_from_json
from llm_interaction_node.core.transcript.transcript import Entry

REQUEST = "could I have the juice please"
LESSON = "always ask me before you take the juice"
JUICE = "bring_object_to('mango-juice_0', 'handover_to_human')"
ASK = "ask('May I take the mango juice?')"
TRIP = ["wait_for_trigger()", JUICE, "say('Here is the juice.')", "wait_for_trigger()"]
READINGS = {REQUEST: "do: mango juice -> me", LESSON: "ask first"}
STEPS = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
         "grasp('mango-juice_0')", "move_to(get_location_coordinates('handover_to_human'))",
         "handover_object_to_human('mango-juice_0')"]


def _ask_first(*named: str) -> Reading:
    objects = Selection("named", names=named) if named else None
    return Reading("(said)", (Clause("ask first"),) +
                   ((Clause("do", objects),) if objects else ()))


def test_the_question_comes_before_the_attempt_first_takes_the_thing():
    steps = [Entry(s) for s in STEPS]
    edited, asked = with_asks(_ask_first(), steps, ["mango-juice_0"])
    assert [e.source for e in edited] == STEPS[:1] + [ASK] + STEPS[1:]
    assert asked == ("mango-juice_0",)
    assert with_asks(_ask_first("coffee-cup_0"), steps, ["mango-juice_0"])[1] == ()   # named
    assert with_asks(Reading("x", (Clause("learn"),)), steps, ["mango-juice_0"]) == (steps, ())
    asked_already = [Entry(ASK)] + steps
    assert with_asks(_ask_first(), asked_already, ["mango-juice_0"]) == (asked_already, ())


def test_the_lesson_asks_first_and_holds_for_the_thing_it_is_about(memory):
    s = learning_session([REQUEST, LESSON], memory, TRIP, mode="final", all_ok=True,
                         readings=READINGS)
    assert s.learner.read(LESSON).asks_to_learn          # a lasting rule by what it says
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    [example] = memory.list("final")
    lines = example.transcript.splitlines()
    assert lines.index(f">>> {ASK}") < lines.index(f">>> {JUICE}"), example.transcript
    lesson = reading_from_json(example.reading)
    assert [c.kind for c in lesson.clauses] == ["do", "ask first"]
    where = lesson.clauses[0].where
    juice = Reading("x", (Clause("do", Selection("named", names=("mango-juice_0",)), where),))
    milk = Reading("x", (Clause("do", Selection("named", names=("milk-carton_0",)), where),))
    assert slot_mapping(lesson, juice) == {}
    assert slot_mapping(lesson, milk) is None              # asked for another thing: not it


def test_by_steps_the_question_comes_before_the_grasp(memory):
    s = learning_session([REQUEST, LESSON], memory, ["wait_for_trigger()", *STEPS,
                                                     "wait_for_trigger()"],
                         mode="final", all_ok=True, readings=READINGS)
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    [example] = memory.list("final")
    lines = example.transcript.splitlines()
    assert lines.index(f">>> {ASK}") < lines.index(">>> grasp('mango-juice_0')")

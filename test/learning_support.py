"""What the learning tests share: a console with its learner, as ``build_session`` attaches
them (the same hooks, the replay check's start and end), on a real world; the household
statements of the juice-and-cup lessons; a lesson taught in one process and used in the next."""
from __future__ import annotations

from typing import NamedTuple

from drivers.scripted_session import run_session
from llm_interaction_node.core.learning.improve import stored_example
from llm_interaction_node.core.learning.route import without_speeds
from llm_interaction_node.core.llm import ScriptedLLM, TokenLedger
from llm_interaction_node.core.reading import ReadingVocabulary
from llm_interaction_node.core.transcript.transcript import Transcript
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.replay import interaction_start, live_end
from llm_interaction_node.session import learning_console, make_world
from llm_interaction_node.settings import LearningSettings
from reading_support import reads, scripted_reader

COUNTER = "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))"
HUMAN = "move_to(get_location_coordinates('handover_to_human'))"
LOCATIONS = "list_object_locations(affordance='grasp')"
# a juice-only trip to the user (the console transcript of its statements)
JUICE_TRIP = f""">>> {COUNTER}
'success'
>>> grasp('mango-juice_0')
'success'
>>> {HUMAN}
'success'
>>> handover_object_to_human('mango-juice_0')
'success'"""


# "tidy up the juice": handed over, then the user's place for it, which the robot then did
TIDY = "could you tidy up the juice?"
THERE = "from now on, put the juice on the dining table"
HANDED_THEN_PUT = ["wait_for_trigger()", LOCATIONS, COUNTER, "grasp('mango-juice_0')", HUMAN,
                   "handover_object_to_human('mango-juice_0')", "wait_for_trigger()",
                   "bring_object_to('mango-juice_0', 'on_dining-table_0')"]


def both_hands_trip(at_handover: str = "") -> str:
    """One trip on the drinks_and_cup world as the console shows it: the juice in the left
    hand, the cup in the right, both handed over; ``at_handover``: the lines shown right after
    the robot arrived at the handover place."""
    return f""">>> {COUNTER}
'success'
>>> grasp('mango-juice_0', 'left')
'success'
>>> grasp('coffee-cup_0', 'right')
'success'
>>> {HUMAN}
'success'{at_handover}
>>> handover_object_to_human('mango-juice_0')
'success'
>>> handover_object_to_human('coffee-cup_0')
'success'"""


class LearningSession(NamedTuple):
    console: object
    learner: object
    spoken: list[str]
    robot: object


def learning_session(utterances, memory, statements, mode=None, world="drinks_and_cup",
                     live=True, api="humanoid", robot=None, *, responses=(), replay=True,
                     all_ok=False, readings=None) -> LearningSession:
    """Run ``statements`` (a str runs; a ``('note', text)`` is annotated) on a console over
    ``robot`` (default: the ``world`` of ``api``) whose learner stores into ``memory``
    (``mode`` None: the settings' default) and asks a ScriptedLLM answering ``responses``.
    ``live``: the replay must also end like the live world (as build_session attaches it);
    without, as the ROS node's (no live world). ``replay`` False: no world start either, the
    learner checks syntax and names only. ``all_ok``: every statement must run without an
    error (asserted). ``readings``: how the model reads the utterances (utterance -> its
    clauses, :mod:`reading_support`; one it does not give has no reading); None: nothing is
    read (the reference method)."""
    spoken: list[str] = []
    robot = robot if robot is not None else make_world(api, world)
    learning = LearningSettings() if mode is None else LearningSettings(mode=mode)
    console, learner = learning_console(api, robot, EventQueue(utterances, close=True),
                                        ScriptedLLM(list(responses)), memory, learning,
                                        TokenLedger(), speak=spoken.append,
                                        start=interaction_start(robot) if replay else None,
                                        live=live_end(robot) if replay and live else None,
                                        reader=scripted_reader(readings, default=None)
                                        if readings else None)
    for statement in statements:
        if isinstance(statement, tuple):
            console.annotate(statement[1])
        else:
            result = console.execute(statement)
            assert result.ok or not all_ok, result.entry
    return LearningSession(console, learner, spoken, robot)


def examples_of(prompt: str) -> list[str]:
    """The example transcripts of a console prompt, in prompt order."""
    block = prompt[: prompt.index("# Current interaction:")]
    return [part.split("\n", 1)[1].strip() for part in block.split("# Example ")[1:]]


def teach_then_use(tmp_path, world, session1, lesson, improved, session2, memory=None):
    """Session 1 ends with the user's lesson, learn_from_interaction() right after it and the
    three L_improve answers (``lesson``: the problem and the improvement; ``improved``: the
    rewrite); session 2 (a new process) gets a similar request. Each session is its own
    process (test/drivers/scripted_session.py) on ``memory`` (the driver's memory settings;
    default: an embedded store in ``tmp_path``)."""
    memory = memory or {"path": str(tmp_path / "memory")}
    problem, improvement = lesson
    # the model reads the lesson as a request to learn (the reading stand-in)
    readings = session1.get("readings", {session1["utterances"][-1]: "learn"})
    first = run_session(tmp_path, "teach", {
        "memory": memory, "world": world, "utterances": session1["utterances"],
        "readings": readings,
        "responses": session1["responses"] + ["learn_from_interaction()", problem, improvement,
                                              f"```\n{improved}\n```", "wait_for_trigger()"]})
    assert len(first["stored"]) == 1, first["transcript"][-1500:]
    assert first["remaining"] == 0
    assert f"learn_from_interaction()\nLearned from this interaction: {improvement}" \
        in first["transcript"]
    second = run_session(tmp_path, "use", {
        "memory": memory, "world": world, "utterances": [session2["utterance"]],
        "responses": session2["responses"]})
    shown = examples_of(second["prompts"][0])
    read = reads(readings, ReadingVocabulary.of([]))
    stored = stored_example(Transcript.parse(improved), read).render()   # with the approval
    # shown without the speeds of its drives: the robot drives a taught route at its speed
    assert shown[-1] == without_speeds(stored), "the lesson is the nearest example"
    assert second["remaining"] == 0
    return first, second

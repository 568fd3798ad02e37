"""Issue 61 items 1, 2, 5: the Instruct action and its Python client on real processes.

The household simulator and the interaction node run as processes (DDS on loopback, a real
ChromaDB memory); this test is the other node that instructs the robot through
:class:`~llm_interaction_node.ros.instructor.Instructor`, and the person on
``speech/asr_text`` where the test says so. Only the LLM is a stand-in (scripted statements).
"""
import subprocess
import sys
import time

import pytest
from action_msgs.msg import GoalStatus
from llm_interaction_interfaces.srv import Answer, ManageMemory
from std_srvs.srv import Trigger

from llm_interaction_node.core.console.session import NEW_TASK_MARKER
from llm_interaction_node.ros import names
from llm_interaction_node.ros.instruct_server import CANCEL_REASON
from llm_interaction_node.ros.instruction import CANCELLED_QUEUED, EMPTY
from ros_support import ROOT
from test_learning_e2e import CORRECTION, IMPROVED, IMPROVEMENT, PROBLEM, REQUEST, TWO_TRIPS
from test_ros_e2e import call, instructed_robot

pytestmark = pytest.mark.slow

JUICE = [
    "list_object_locations(affordance='grasp')",
    "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
    "grasp('mango-juice_0')",
    "move_to(get_location_coordinates('handover_to_human'))",
    "handover_object_to_human('mango-juice_0')",
    "say('Here is the mango juice.')",
    "wait_for_trigger()",
]
SLOW_MOVE = "move_to(get_location_coordinates('handover_to_human'), 0.1)"    # ~18 s
AFTER = "say('the next statement')"


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    """The simulator (a grasp 2 s, the counter 3.6 s away) and the interaction node with a
    memory; yields (observer, llm, procs, instructor)."""
    with instructed_robot(tmp_path_factory.mktemp("instruct")) as graph:
        yield graph


def statements(robot):
    """The statements the feedback reported as run (with their output)."""
    return [(f.statement, f.output) for f in robot.feedbacks if f.ran]


def started(robot, source):
    return any(f.statement == source and not f.ran for f in robot.feedbacks)


def fresh_start(user):
    """The simulator's world and the node's interaction reset."""
    assert call(user.probe, Trigger, names.WORLD_RESET, Trigger.Request()).success
    markers = len([e for e in user.entries if e.text == NEW_TASK_MARKER])
    assert call(user.probe, Trigger, names.RESET, Trigger.Request()).success
    user.probe.wait_until(lambda: len([e for e in user.entries if e.text == NEW_TASK_MARKER])
                          > markers, 30, "a new-task marker")
    user.probe.wait_until(lambda: user.states[-1].data == "idle", 30, "idle")


def slow_first(user, llm, robot, rest: list[str], move: str = SLOW_MOVE,
               words: str = "go to the handover point very slowly") -> None:
    """A goal whose slow drive ``move`` has started (from the robot's start, far from the
    user), the model's statements after it ``rest``."""
    fresh_start(user)
    llm.texts = [move, *rest]
    robot.instruct(words)
    user.probe.wait_until(lambda: started(robot, move), 60, "the move to start")


def queued_after_a_slow_drive(user, llm, robot, then: str) -> None:
    """A first goal whose slower drive (~9 s) has started, ``then`` the next goal's
    statement."""
    slow_first(user, llm, robot, ["wait_for_trigger()", then, "wait_for_trigger()"],
               SLOW_MOVE.replace("0.1", "0.5"), "go to the handover point slowly")


def test_a_goal_brings_the_juice_with_feedback_per_statement_and_learns(graph):
    user, llm, procs, robot = graph
    llm.texts = list(JUICE)
    assert robot.instruct("bring me the juice", speaker_id="mission_planner")
    result = robot.result(timeout_s=120)
    assert result is not None, robot.feedbacks
    assert result.outcome == "done", result.reason
    assert robot.status() == GoalStatus.STATUS_SUCCEEDED
    assert result.speaker_id == "mission_planner" and not result.queued
    # feedback: reading first, then each statement as it runs and again with its output
    states = [f.state for f in robot.feedbacks]
    assert states[0] == "reading" and "acting" in states
    ran = statements(robot)
    assert [s for s, _ in ran] == JUICE[:-1], ran
    assert dict(ran)["grasp('mango-juice_0')"] == "'success'"
    assert all(started(robot, s) for s in JUICE[:-1])
    # the result: what the robot said, the interaction's transcript, no lesson yet
    assert result.said == ["Here is the mango juice."]
    assert result.transcript.startswith(">>> wait_for_trigger()\n{'type': 'dialog', "
                                        "'text': 'bring me the juice'}")
    assert ">>> grasp('mango-juice_0')\n'success'" in result.transcript
    assert result.lessons_used == [] and result.lesson_stored == ""
    assert user.world()["objects"]["mango-juice_0"]["held_by"] == "human"

    # a fresh world and interaction; a request, a correction that asks to learn: the result
    # names the lesson stored ...
    fresh_start(user)
    llm.readings[CORRECTION] = "learn"
    llm.texts = TWO_TRIPS[:-1] + ["wait_for_trigger()"]
    robot.instruct(REQUEST)
    assert robot.result(timeout_s=120).outcome == "done"
    llm.texts = ["learn_from_interaction()", PROBLEM, IMPROVEMENT, f"```\n{IMPROVED}\n```",
                 "wait_for_trigger()"]
    robot.instruct(CORRECTION)
    learned = robot.result(timeout_s=180)
    assert learned.outcome == "done", learned.reason
    assert "learning" in [f.state for f in robot.feedbacks]
    assert learned.lesson_stored, learned.transcript
    stored = call(user.probe, ManageMemory, names.MEMORY,
                  ManageMemory.Request(command="list", argument="learned"))
    assert learned.lesson_stored in stored.result_json
    # ... and a later request in other words names it among the lessons in its prompt
    llm.texts = ["say('Coming.')", "wait_for_trigger()"]
    robot.instruct("I would like the mango juice and a cup, please")
    later = robot.result(timeout_s=120)
    assert later.outcome == "done"
    assert later.lessons_used and later.lessons_used[-1] == learned.lesson_stored
    assert procs["node"].alive()


def test_the_five_lines_of_the_readme_drive_the_robot(graph):
    """README's ROS section: the Instructor script, run as it is written, in a process."""
    user, llm, _procs, _robot = graph
    fresh_start(user)
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Instructing the robot from another node"):]
    start = section.index("```python\n") + len("```python\n")
    script = section[start:section.index("\n```", start)]
    assert len(script.splitlines()) == 5, script
    llm.texts = list(JUICE)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[-1] == "done", run.stdout
    assert any("grasp('mango-juice_0')" in line for line in lines[:-1]), run.stdout
    assert user.world()["objects"]["mango-juice_0"]["held_by"] == "human"


def test_cancel_mid_skill_stops_the_skill_and_nothing_runs_after_it(graph):
    user, llm, procs, robot = graph
    slow_first(user, llm, robot, [AFTER, "wait_for_trigger()"])
    time.sleep(0.5)
    assert robot.cancel()

    def canceled():
        last = user.world().get("last_skill") or {}
        return last.get("skill") == "move_to" and last.get("reason") == "canceled"
    user.probe.wait_until(canceled, 10, "the move to be canceled")
    result = robot.result(timeout_s=30)
    assert result.outcome == "stopped" and CANCEL_REASON in result.reason, result.reason
    assert robot.status() == GoalStatus.STATUS_CANCELED
    assert "Okay, I stopped." in result.said
    time.sleep(1.0)
    assert "the next statement" not in [m.data for m in user.said]
    assert AFTER not in result.transcript
    assert user.states[-1].data == "idle" and procs["node"].alive()
    assert not robot.cancel()                       # nothing left to cancel


def test_a_question_is_answered_through_the_answer_service(graph):
    user, llm, _procs, robot = graph
    fresh_start(user)                   # the robot at its start, far from the user
    llm.texts = ["drink = ask('Which drink would you like?')",
                 "say('I will bring the ' + drink)", "wait_for_trigger()"]
    robot.instruct("bring me a drink")
    user.probe.wait_until(lambda: robot.question() is not None, 60, "the robot to ask")
    assert robot.question() == "Which drink would you like?"
    # a wrong goal id is refused; the robot keeps waiting for its answer
    wrong = call(user.probe, Answer, names.ANSWER, Answer.Request(text="water"))
    assert not wrong.success and "no such goal" in wrong.message
    assert robot.answer("mango juice")
    result = robot.result(timeout_s=60)
    assert result.outcome == "done", result.reason
    assert result.said == ["Which drink would you like?", "I will bring the mango juice"]
    assert not robot.answer("again")                 # the goal ended


def test_a_second_goal_while_one_runs_waits_in_the_queue(graph):
    from llm_interaction_node.ros.instructor import Instructor
    user, llm, _procs, robot = graph
    queued_after_a_slow_drive(user, llm, robot, "say('second request')")
    with Instructor(node_name="second_instructor") as other:
        other.instruct("and then say something")
        time.sleep(0.5)
        assert not other.is_done() and other.feedback() is None    # waits its turn
        first = robot.result(timeout_s=60)
        second = other.result(timeout_s=60)
    assert first.outcome == "done" and not first.queued
    assert second.outcome == "done" and second.queued, second.reason
    assert "waited in the queue" in second.reason
    assert second.said == ["second request"]


def test_a_queued_goal_cancelled_before_it_starts_never_runs(graph):
    from llm_interaction_node.ros.instructor import Instructor
    user, llm, _procs, robot = graph
    queued_after_a_slow_drive(user, llm, robot, "say('after the first')")
    with Instructor(node_name="queued_instructor") as other:
        other.instruct("say something when you are there")
        assert other.cancel()
        cancelled = other.result(timeout_s=10)
        assert cancelled.outcome == "stopped" and cancelled.reason == CANCELLED_QUEUED
        assert other.status() == GoalStatus.STATUS_CANCELED
    assert robot.result(timeout_s=60).outcome == "done"
    user.probe.wait_until(lambda: user.states[-1].data == "idle", 10, "idle")
    assert llm.texts == ["say('after the first')", "wait_for_trigger()"]    # never asked
    llm.texts = []


def test_a_spoken_stop_cancels_the_goal(graph):
    user, llm, procs, robot = graph
    slow_first(user, llm, robot, [AFTER, "wait_for_trigger()"])
    time.sleep(0.5)
    user.say("Stop!")
    result = robot.result(timeout_s=30)
    assert result.outcome == "stopped" and "the user said 'Stop!'" in result.reason
    assert robot.status() == GoalStatus.STATUS_ABORTED       # stopped, not cancelled by us
    last = user.world().get("last_skill") or {}
    assert last.get("skill") == "move_to" and last.get("reason") == "canceled"
    assert AFTER not in result.transcript and procs["node"].alive()


@pytest.mark.parametrize("text, why", [("", EMPTY), ("  \x07 ?!? ... \x1b[31m ", "no words")])
def test_bad_input_is_refused_in_words_and_the_node_keeps_running(graph, text, why):
    user, llm, procs, robot = graph
    robot.instruct(text)
    result = robot.result(timeout_s=10)
    assert result.outcome == "refused" and why in result.reason
    assert robot.status() == GoalStatus.STATUS_ABORTED
    assert result.transcript == "" and result.said == []
    fresh_start(user)                   # (the same say() again would be a noted repeat)
    llm.texts = ["say('still here')", "wait_for_trigger()"]
    robot.instruct("are you still there?")
    assert robot.result(timeout_s=60).said == ["still here"]
    assert procs["node"].alive()

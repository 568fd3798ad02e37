"""Issue 61 item 1: ``instruct.when_busy: reject`` on real processes: a goal that comes while
the robot acts on another is refused at once, in words; once the robot is idle the same goal
is acted on. (Its own graph: the queueing graph of test_ros_instruct.py serves the same
action name in this ROS domain while its module runs.)"""
import pytest

from fake_llm_server import FakeLLMServer
from llm_interaction_node.ros.instruction import BUSY
from test_ros_e2e import running_robot
from test_ros_instruct import SLOW_MOVE, started

pytestmark = pytest.mark.slow


def test_with_when_busy_reject_a_second_goal_is_refused(tmp_path):
    from llm_interaction_node.ros.instructor import Instructor
    llm = FakeLLMServer()
    llm.text = "wait_for_trigger()"
    move = SLOW_MOVE.replace("0.1", "0.5")
    try:
        with running_robot(tmp_path, llm.url, tmp_path / "memory", time_scale=0.5,
                           **{"memory.enabled": "false", "instruct.when_busy": "reject"}) \
                as (user, _procs), Instructor(server_wait_s=60) as robot, \
                Instructor(node_name="second_instructor") as other:
            llm.texts = [move, "wait_for_trigger()"]
            robot.instruct("go to the handover point slowly")
            user.probe.wait_until(lambda: started(robot, move), 60, "the move to start")
            other.instruct("and then say something")
            refused = other.result(timeout_s=10)
            assert refused.outcome == "refused" and refused.reason == BUSY
            assert robot.result(timeout_s=60).outcome == "done"
            llm.texts = ["say('now I can')", "wait_for_trigger()"]
            other.instruct("and then say something")
            assert other.result(timeout_s=60).said == ["now I can"]
    finally:
        llm.close()

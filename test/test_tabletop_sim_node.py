"""The tabletop simulator node: pick-and-place through the generic skill action, the scene topic."""
import json

import numpy as np
import pytest

from ros_support import NodeProcess, ProbeNode

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    log = tmp_path_factory.mktemp("tabletop") / "sim.log"
    proc = NodeProcess(
        "llm_interaction_node.ros.nodes.tabletop_sim",
        log,
        ros_args=["-r", "__ns:=/tt", "-p", "objects:=red block,blue bowl,green block"],
    )
    proc.wait_for_log("tabletop_sim ready", 60)
    yield proc
    proc.stop()


def run_skill(name, arguments):
    from llm_interaction_interfaces.action import RunSkill
    from llm_interaction_interfaces.msg import Scene
    from rclpy.action import ActionClient
    probe = ProbeNode("tabletop_probe")
    try:
        import rclpy
        node = rclpy.create_node("tabletop_client", namespace="/tt", context=probe.context)
        scenes = []
        node.create_subscription(Scene, "perception/scene", scenes.append, 10)
        client = ActionClient(node, RunSkill, "skills/run_skill")
        probe.executor.add_node(node)
        assert client.wait_for_server(timeout_sec=60)
        probe.wait_until(lambda: scenes, 30, "a scene")
        before = {o.name: o for o in scenes[-1].objects}
        n = len(scenes)
        goal = RunSkill.Goal(name=name, arguments_json=arguments if isinstance(arguments, str)
                             else json.dumps(arguments(before)))
        future = client.send_goal_async(goal)
        probe.wait_until(future.done, 30, "goal response")
        result = future.result().get_result_async()
        probe.wait_until(result.done, 30, "result")
        probe.wait_until(lambda: len(scenes) > n, 30, "a scene after the skill")
        return result.result().result, before, {o.name: o for o in scenes[-1].objects}
    finally:
        probe.close()


def xyz(obj):
    return np.array([obj.pose.position.x, obj.pose.position.y, obj.pose.position.z])


def test_pick_and_place_puts_the_block_in_the_bowl(sim):
    result, before, after = run_skill("pick_and_place", lambda objs: {
        "pick": xyz(objs["red block"]).tolist(), "place": xyz(objs["blue bowl"]).tolist()})
    assert result.status == "success", result.message
    block, bowl = xyz(after["red block"]), xyz(after["blue bowl"])
    assert np.hypot(*(block[:2] - bowl[:2])) < 0.06 and block[2] > bowl[2]
    assert (
        "grasp" in after["green block"].affordances
        and "grasp" not in after["blue bowl"].affordances
    )


def test_bad_goals_fail_with_a_reason_and_the_node_keeps_serving(sim):
    result, _, _ = run_skill("pick_and_place", "{not json")
    assert result.status == "failure" and "bad goal" in result.message
    result, _, _ = run_skill("open_door", "{}")
    assert result.status == "failure" and "unknown skill" in result.message
    result, _, _ = run_skill("pick_and_place", lambda objs: {"pick": [0.0, -0.5, 0.02],
                                                             "place": [0.1, -0.5, 0.02]})
    assert result.status == "failure"               # nothing at the pick point
    assert sim.alive()

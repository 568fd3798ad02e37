"""Markers and camera frames read from running simulator nodes, compared with the world state.

Real processes: the household simulator and the PyBullet tabletop node, driven over their
skill actions from the test process; the markers (and the camera images) are what RViz or
Foxglove would get.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import rclpy
from llm_interaction_interfaces.action import Grasp, MoveTo, RunSkill
from rclpy.action import ActionClient
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Image
from std_msgs.msg import String
from visualization_msgs.msg import Marker, MarkerArray

from llm_interaction_node.ros import markers
from llm_interaction_node.ros.conversions import base_pose_to_msg
from llm_interaction_node.sims.tabletop_bullet import TabletopWorldBullet
from llm_interaction_node.sims.worlds import load_household_world
from ros_support import ROOT, NodeProcess, probe_node

pytestmark = pytest.mark.slow
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
OBJECTS = "red block,blue bowl,green block"
CAMERA = (160, 120)


def run_goal(probe, client, goal):
    assert client.wait_for_server(timeout_sec=60)
    sent = client.send_goal_async(goal)
    probe.wait_until(sent.done, 30, "goal response")
    result = sent.result().get_result_async()
    probe.wait_until(result.done, 60, "result")
    return result.result().result


def xyz(marker):
    return np.array([marker.pose.position.x, marker.pose.position.y, marker.pose.position.z])


def object_markers(array, ns):
    return {m.id: m for m in array.markers if m.ns == ns and m.action == Marker.ADD}


def test_household_markers_follow_the_world_when_a_skill_moves_the_robot_and_an_object(tmp_path):
    sim = NodeProcess(
        "llm_interaction_node.ros.nodes.household_sim",
        tmp_path / "sim.log",
        ros_args=[
            "--params-file",
            str(ROOT / "config/household_sim.yaml"),
            "-r",
            "__ns:=/viz",
            "-p",
            "time_scale:=0.0",
            "-p",
            "frame_id:=world",
        ],
    )
    try:
        sim.wait_for_log("household_sim ready", 60)
        with probe_node("markers_probe") as probe:
            node = rclpy.create_node("markers_client", namespace="/viz", context=probe.context)
            arrays, states = [], []
            node.create_subscription(MarkerArray, "household_sim/markers", arrays.append, LATCHED)
            node.create_subscription(String, "household_sim/world_state",
                                     lambda m: states.append(json.loads(m.data)), LATCHED)
            move, grasp = (
                ActionClient(node, MoveTo, "skills/move_to"),
                ActionClient(node, Grasp, "skills/grasp"),
            )
            probe.executor.add_node(node)
            probe.wait_until(lambda: arrays and states, 30, "latched markers and world state")
            first = arrays[-1]
            assert {m.header.frame_id for m in first.markers} == {"world"}
            juice = markers.marker_id("mango-juice_0")
            start = states[-1]["objects"]["mango-juice_0"]["pose"]
            assert xyz(object_markers(first, markers.NS_OBJECTS)[juice]) == pytest.approx(start[:3])

            counter = load_household_world("drinks_and_cup").named_locations()[
                "inFrontOf_kitchen-counter_0"
            ]
            assert run_goal(probe, move, MoveTo.Goal(target=base_pose_to_msg(counter),
                                                     speed_factor=1.0)).status == "success"
            assert run_goal(probe, grasp, Grasp.Goal(object_name="mango-juice_0",
                                                     hand="right")).status == "success"
            probe.wait_until(lambda: states[-1]["hands"]["right"] == "mango-juice_0", 30, "state")
            state = states[-1]

            def shows_the_grasp():
                objs = object_markers(arrays[-1], markers.NS_OBJECTS)
                return juice in objs and np.allclose(
                    xyz(objs[juice]), state["objects"]["mango-juice_0"]["pose"][:3], atol=1e-6)
            probe.wait_until(shows_the_grasp, 30, "markers with the juice in the hand")
            last = arrays[-1]
            robot = object_markers(last, markers.NS_ROBOT)[markers.marker_id("base")]
            assert xyz(robot)[:2] == pytest.approx(state["base_pose"][:2], abs=1e-6)
            assert markers.yaw_of(robot) == pytest.approx(state["base_pose"][2], abs=1e-6)
            texts = [m.text for m in last.markers if m.ns == markers.NS_LABELS]
            assert "robot\nleft: -\nright: mango-juice_0" in texts
            assert not np.allclose(xyz(object_markers(last, markers.NS_OBJECTS)[juice]), start[:3])
    finally:
        sim.stop()


def test_tabletop_camera_frames_and_markers_match_the_world_after_a_pick_and_place(tmp_path):
    sim = NodeProcess(
        "llm_interaction_node.ros.nodes.tabletop_sim",
        tmp_path / "tabletop.log",
        ros_args=[
            "-r",
            "__ns:=/cam",
            "-p",
            f"objects:={OBJECTS}",
            "-p",
            "camera_rate_hz:=4.0",
            "-p",
            f"camera_width:={CAMERA[0]}",
            "-p",
            f"camera_height:={CAMERA[1]}",
        ],
    )
    twin = TabletopWorldBullet.from_names(OBJECTS.split(","), seed=0)   # the same world here
    try:
        sim.wait_for_log("tabletop_sim ready", 90)
        with probe_node("camera_probe") as probe:
            node = rclpy.create_node("camera_client", namespace="/cam", context=probe.context)
            frames, arrays = [], []
            node.create_subscription(Image, "camera/image_raw", frames.append, 5)
            node.create_subscription(MarkerArray, "tabletop_sim/markers", arrays.append, LATCHED)
            skill = ActionClient(node, RunSkill, "skills/run_skill")
            probe.executor.add_node(node)
            probe.wait_until(lambda: frames and arrays, 60, "a camera frame and markers")

            def image(msg):
                assert (msg.encoding, msg.width, msg.height, msg.step) == (
                    "rgb8",
                    *CAMERA,
                    CAMERA[0] * 3,
                )
                return np.frombuffer(bytes(msg.data), dtype=np.uint8).reshape(
                    msg.height, msg.width, 3
                )

            before = image(frames[-1])
            assert np.array_equal(before, twin.render(size=CAMERA))
            block = object_markers(arrays[-1], markers.NS_BLOCKS)[markers.marker_id("red block")]
            assert xyz(block) == pytest.approx(twin.object_position("red block"), abs=1e-4)

            pick, place = twin.object_position("red block"), twin.object_position("blue bowl")
            args = {"pick": pick.tolist(), "place": place.tolist()}
            assert (
                run_goal(
                    probe,
                    skill,
                    RunSkill.Goal(name="pick_and_place", arguments_json=json.dumps(args)),
                ).status
                == "success"
            )
            assert twin.pick_and_place(pick, place) == "success"
            expected = twin.object_position("red block")

            def block_in_bowl():
                b = object_markers(arrays[-1], markers.NS_BLOCKS)[markers.marker_id("red block")]
                return np.allclose(xyz(b), expected, atol=1e-3)
            probe.wait_until(block_in_bowl, 30, "markers with the block in the bowl")
            n = len(frames)
            probe.wait_until(lambda: len(frames) > n + 1, 30, "frames after the skill")
            after = image(frames[-1])
            assert np.array_equal(after, twin.render(size=CAMERA))
            assert not np.array_equal(after, before)
            gripper = object_markers(arrays[-1], markers.NS_GRIPPER)[markers.marker_id("cup")]
            assert xyz(gripper)[:2] == pytest.approx(twin.gripper_position()[:2], abs=1e-4)
    finally:
        twin.close()
        sim.stop()

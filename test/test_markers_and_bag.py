"""RViz markers built from the worlds, and the crash-safe rosbag2 writer (in-process, fast).

The running-graph checks (markers and camera frames from the simulator nodes, a bag from a
real `llm-interaction run --record`, also after a SIGKILL) are in test_visual_graph.py and
test_record_run.py.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import yaml
from visualization_msgs.msg import Marker

from llm_interaction_node.ros import markers
from llm_interaction_node.ros.bag import (
    CrashSafeBagWriter,
    TopicSpec,
    read_bag,
    summary,
    topic_counts,
    typestore,
)
from llm_interaction_node.sims.tabletop2d import COLORS, TabletopWorld2D
from llm_interaction_node.sims.worlds import load_household_world


def by_ns(array, ns):
    return {m.id: m for m in array.markers if m.ns == ns and m.action == Marker.ADD}


def labels(array):
    return [m.text for m in array.markers if m.ns == markers.NS_LABELS]


def household(world, frame="map"):
    return markers.household_markers(world.scene(), world.named_locations(),
                                      furniture=world.furniture, robot_pose=world.base_pose,
                                      hands=world.hands, human_xy=world.human_xy, frame_id=frame)


def test_household_markers_show_every_object_furniture_location_and_the_robot():
    world = load_household_world("drinks_and_cup")
    array = household(world, frame="world")
    assert array.markers[0].action == Marker.DELETEALL        # gone objects disappear
    assert {m.header.frame_id for m in array.markers} == {"world"}
    objects = by_ns(array, markers.NS_OBJECTS)
    for obj in world.scene():
        if obj.name in world.furniture:
            box = by_ns(array, markers.NS_FURNITURE)[markers.marker_id(obj.name)]
            assert box.type == Marker.CUBE and box.scale.z == pytest.approx(obj.pose[2])
        else:
            m = objects[markers.marker_id(obj.name)]
            assert [m.pose.position.x, m.pose.position.y, m.pose.position.z] == \
                pytest.approx(list(obj.pose[:3]))
    assert len(objects) == len(world.objects)
    arrows = by_ns(array, markers.NS_LOCATIONS)
    for name, (x, y, yaw) in world.named_locations().items():
        arrow = arrows[markers.marker_id(name)]
        assert (arrow.pose.position.x, arrow.pose.position.y) == pytest.approx((x, y))
        assert markers.yaw_of(arrow) == pytest.approx(yaw, abs=1e-6)
        assert name in labels(array)
    assert "robot\nleft: -\nright: -" in labels(array)
    assert "human" in labels(array)


def test_a_grasp_moves_the_object_marker_into_the_hand_and_the_robot_label_says_so():
    world = load_household_world("drinks_and_cup")
    before = household(world)
    cup = markers.marker_id("coffee-cup_0")
    assert world.move_to(world.named_locations()["inFrontOf_kitchen-counter_0"], 1.0) == "success"
    assert world.grasp("coffee-cup_0", "left") == "success"
    after = household(world)
    moved = by_ns(after, markers.NS_OBJECTS)[cup]
    held = world.snapshot()["objects"]["coffee-cup_0"]
    assert [moved.pose.position.x, moved.pose.position.y, moved.pose.position.z] == \
        pytest.approx(held["pose"][:3], abs=1e-6)
    assert moved.pose.position.z != by_ns(before, markers.NS_OBJECTS)[cup].pose.position.z
    assert "robot\nleft: coffee-cup_0\nright: -" in labels(after)
    assert "coffee-cup_0\nheld by left" in labels(after)
    base = by_ns(after, markers.NS_ROBOT)[markers.marker_id("base")]
    assert (base.pose.position.x, base.pose.position.y) == pytest.approx((1.8, 1.0))


def test_without_a_robot_pose_no_robot_is_drawn():
    world = load_household_world("drinks_and_cup")
    array = markers.household_markers(world.scene(), {}, furniture=world.furniture)
    assert not by_ns(array, markers.NS_ROBOT) and not by_ns(array, markers.NS_LOCATIONS)


def test_tabletop_markers_have_the_objects_colours_and_positions_and_the_gripper():
    world = TabletopWorld2D.from_names(["red block", "blue bowl"], seed=3)
    array = markers.tabletop_markers([(n, world.object_position(n)) for n in world.object_names()],
                                     gripper_xyz=(0.0, -0.5, 0.2))
    block = by_ns(array, markers.NS_BLOCKS)[markers.marker_id("red block")]
    bowl = by_ns(array, markers.NS_BOWLS)[markers.marker_id("blue bowl")]
    assert block.type == Marker.CUBE and bowl.type == Marker.CYLINDER
    assert (block.color.r, block.color.g, block.color.b) == pytest.approx(
        tuple(c / 255 for c in COLORS["red"]))
    assert [block.pose.position.x, block.pose.position.y, block.pose.position.z] == \
        pytest.approx(list(world.object_position("red block")))
    assert by_ns(array, markers.NS_GRIPPER)[markers.marker_id("cup")].pose.position.z > 0.2
    with pytest.raises(ValueError, match="colour"):
        markers.tabletop_markers([("plaid block", (0, 0, 0))])


# --- the bag writer -----------------------------------------------------------------------------

STRING = "std_msgs/msg/String"
ENTRY = "llm_interaction_interfaces/msg/ConsoleEntry"


@pytest.fixture(scope="module")
def store():
    return typestore()


def string(store, text):
    from rosbags.typesys.stores.ros2_kilted import std_msgs__msg__String as String
    return store.serialize_cdr(String(data=text), STRING)


def entry(store, kind, text):
    cls = store.types[ENTRY]
    time_cls = store.types["builtin_interfaces/msg/Time"]
    return store.serialize_cdr(cls(stamp=time_cls(sec=1, nanosec=0), task_id=7, kind=kind,
                                   text=text), ENTRY)


def test_the_bag_holds_custom_messages_in_order_and_the_summary_replays_the_dialogue(
    tmp_path, store
):
    bag = tmp_path / "bag"
    writer = CrashSafeBagWriter(bag, [TopicSpec("/speech/asr_text", STRING),
                                      TopicSpec("/interaction/transcript", ENTRY, latched=True),
                                      TopicSpec("/speech/tts_text", STRING)], store=store)
    t0 = 1_700_000_000_000_000_000
    writer.write("/speech/asr_text", t0, string(store, "bring me the juice"))
    writer.write("/interaction/transcript", t0 + 1, entry(store, "input", "say('On my way.')"))
    writer.write("/speech/tts_text", t0 + 2, string(store, "On my way."))
    writer.close()
    got = [
        (topic, getattr(msg, "data", getattr(msg, "text", None)))
        for topic, _, _, msg in read_bag(bag)
    ]
    assert got == [("/speech/asr_text", "bring me the juice"),
                   ("/interaction/transcript", "say('On my way.')"),
                   ("/speech/tts_text", "On my way.")]
    counts, start, _ = topic_counts(bag)
    assert counts["/interaction/transcript"] == (ENTRY, 1) and start == t0
    text = summary(bag)
    order = [text.index(s) for s in ("user: bring me the juice", ">>> say('On my way.')",
                                     "robot says: On my way.")]
    assert order == sorted(order), text
    meta = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    assert meta["storage_identifier"] == "mcap" and meta["message_count"] == 3
    latched = next(t for t in meta["topics_with_message_count"]
                   if t["topic_metadata"]["name"] == "/interaction/transcript")
    assert latched["topic_metadata"]["offered_qos_profiles"][0]["durability"] == "transient_local"


def test_segments_become_files_of_one_bag_and_each_flush_leaves_a_complete_bag(tmp_path, store):
    bag = tmp_path / "bag"
    writer = CrashSafeBagWriter(bag, [TopicSpec("/t", STRING)], store=store, segment_s=0.0)
    for i in range(3):
        writer.write("/t", 1000 + i, string(store, f"m{i}"))
        assert writer.flush()
        assert [m.data for *_, m in read_bag(bag)] == [f"m{k}" for k in range(i + 1)]
    assert not writer.flush()                          # nothing new: nothing written
    assert sorted(p.name for p in bag.iterdir()) == ["bag_0.mcap", "bag_1.mcap", "bag_2.mcap",
                                                     "metadata.yaml"]
    # with a long segment, a flush rewrites the one file
    bag2 = tmp_path / "bag2"
    writer = CrashSafeBagWriter(bag2, [TopicSpec("/t", STRING)], store=store)
    for i in range(3):
        writer.write("/t", 1000 + i, string(store, f"m{i}"))
        writer.flush()
    assert sorted(p.name for p in bag2.iterdir()) == ["bag2_0.mcap", "metadata.yaml"]
    assert len(list(read_bag(bag2))) == 3


def test_the_writer_refuses_what_it_cannot_record(tmp_path, store):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("keep me")
    with pytest.raises(FileExistsError, match="not an empty directory"):
        CrashSafeBagWriter(tmp_path / "full", [TopicSpec("/t", STRING)], store=store)
    assert (tmp_path / "full" / "x").read_text() == "keep me"
    with pytest.raises(ValueError, match="unknown message type"):
        CrashSafeBagWriter(tmp_path / "a", [TopicSpec("/t", "nope_msgs/msg/Nope")], store=store)
    writer = CrashSafeBagWriter(tmp_path / "b", [TopicSpec("/t", STRING)], store=store)
    with pytest.raises(KeyError, match="not recorded"):
        writer.write("/other", 1, b"")
    for bad in ("/t", "/t std_msgs/String", "/t std_msgs/msg/String sometimes"):
        with pytest.raises(ValueError, match="expected"):
            TopicSpec.parse(bad)
    assert TopicSpec.parse("a/b std_msgs/msg/Bool latched") == TopicSpec(
        "a/b", "std_msgs/msg/Bool", True
    )


def test_a_sigkilled_writer_leaves_a_bag_with_everything_up_to_the_last_flush(tmp_path):
    """A writer process that flushed and then is killed in the middle of its next messages."""
    bag = tmp_path / "bag"
    script = textwrap.dedent(f"""
        import sys, time
        from llm_interaction_node.ros.bag import CrashSafeBagWriter, TopicSpec, typestore
        from rosbags.typesys.stores.ros2_kilted import std_msgs__msg__String as S
        store = typestore()
        w = CrashSafeBagWriter({str(bag)!r}, [TopicSpec("/t", "std_msgs/msg/String")], store=store)
        for i in range(50):
            w.write("/t", 1000 + i, store.serialize_cdr(S(data=f"m{{i}}"), "std_msgs/msg/String"))
        w.flush()
        print("flushed", flush=True)
        i = 50
        while True:                    # writing and flushing until killed
            w.write("/t", 1000 + i, store.serialize_cdr(S(data=f"m{{i}}"), "std_msgs/msg/String"))
            i += 1
            if i % 7 == 0:
                w.flush()
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert proc.stdout.readline().strip() == "flushed"
        time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    data = [m.data for *_, m in read_bag(bag)]
    assert len(data) >= 50 and data == [f"m{i}" for i in range(len(data))]


def test_skill_goals_become_plain_json_data():
    import json

    from llm_interaction_interfaces.action import MoveTo, RunSkill

    from llm_interaction_node.ros.conversions import base_pose_to_msg
    from llm_interaction_node.ros.robot.skill_events import message_to_data
    goal = MoveTo.Goal(target=base_pose_to_msg([1.8, 1.0, 0.0], "map"), speed_factor=0.5)
    data = json.loads(json.dumps(message_to_data(goal)))
    assert data["speed_factor"] == 0.5 and data["target"]["header"]["frame_id"] == "map"
    assert data["target"]["pose"]["position"] == {"x": 1.8, "y": 1.0, "z": 0.0}
    assert message_to_data(RunSkill.Goal(name="bring_ladder", arguments_json="{}")) == \
        {"name": "bring_ladder", "arguments_json": "{}"}

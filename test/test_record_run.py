"""`llm-interaction run --record DIR`: a real run (only the LLM is a scripted stand-in) leaves a
rosbag2 (MCAP) that rosbags reads back with the dialogue in order, the skills as they were
seen and the node's markers; also when the recorder is SIGKILLed and then the run."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from contextlib import contextmanager

import pytest

from fake_llm_server import FakeLLMServer
from llm_interaction_node.ros import markers
from llm_interaction_node.ros.bag import read_bag
from test_run_command import CLI, quit_console, read_until, running, type_line

pytestmark = pytest.mark.slow
SCRIPT = ["say('I will get the juice.')",
          "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
          "grasp('mango-juice_0')",
          "say('I have the juice.')",
          "wait_for_trigger()"]


@contextmanager
def recorded_run(tmp_path):
    """A run with --record that has brought the juice (see :func:`test_run_command.running`)."""
    llm = FakeLLMServer()
    llm.texts = list(SCRIPT)
    llm.text = "wait_for_trigger()"
    lines: list[str] = []
    with running(tmp_path, "--record", str(tmp_path / "bag"), llm=llm) as proc:
        assert read_until(proc, lines, "speech console", 90), "".join(lines)
        type_line(proc, "bring me the juice")
        assert read_until(proc, lines, "robot: I have the juice.", 180), \
            "".join(lines) + "".join(p.read_text() for p in (tmp_path / "logs").glob("*.log"))
        yield proc, lines


def dialogue(bag):
    """(kind, text) of the dialogue messages in the bag, in time order."""
    out = []
    for topic, _, _, msg in read_bag(bag):
        if topic == "/speech/asr_text":
            out.append(("user", msg.data))
        elif topic == "/speech/tts_text":
            out.append(("says", msg.data))
        elif topic == "/interaction/transcript" and msg.kind == "input":
            out.append(("input", msg.text))
        elif topic == "/interaction/skills":
            event = json.loads(msg.data)
            out.append((event["event"], event["skill"] if event["event"] == "goal"
                        else f"{event['skill']} {event['status']}"))
    return out


def check_dialogue(bag):
    got = dialogue(bag)
    want = [("user", "bring me the juice"), ("input", SCRIPT[0]), ("says", "I will get the juice."),
            ("input", SCRIPT[1]), ("goal", "move_to"), ("result", "move_to success"),
            ("input", SCRIPT[2]), ("goal", "grasp"), ("result", "grasp success"),
            ("input", SCRIPT[3]), ("says", "I have the juice.")]
    positions = [got.index(item) for item in want]    # ValueError: something is missing
    assert positions == sorted(positions), got


def last(bag, topic):
    return [msg for t, _, _, msg in read_bag(bag) if t == topic][-1]


def juice_marker(bag, topic):
    """The juice's marker in the last array of ``topic`` (None if none yet)."""
    arrays = [msg for t, _, _, msg in read_bag(bag) if t == topic]
    return next((m for m in arrays[-1].markers if m.ns == markers.NS_OBJECTS
                 and m.id == markers.marker_id("mango-juice_0")), None) if arrays else None


def test_a_recorded_run_holds_the_dialogue_in_order_the_skills_and_the_markers(tmp_path):
    with recorded_run(tmp_path) as (proc, _):
        # the bag is readable while the run goes on: wait until the node's markers (checked
        # every 0.2 s, flushed every 1 s) show the juice off the counter, then stop
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            m = juice_marker(tmp_path / "bag", "/interaction/markers")
            if m is not None and m.pose.position.x < 2.4:  # held (x 2.15), not on the counter (2.5)
                break
            time.sleep(0.3)
        quit_console(proc)
    bag = tmp_path / "bag"
    check_dialogue(bag)
    assert "recorder.log" in {p.name for p in (tmp_path / "logs").iterdir()}
    # the interaction node's markers (from what it perceives) and the simulator's agree
    # with the world state: the juice is in the right hand, the robot at the counter
    state = json.loads(last(bag, "/household_sim/world_state").data)
    juice = state["objects"]["mango-juice_0"]
    assert juice["held_by"] == "right"
    for topic in ("/interaction/markers", "/household_sim/markers"):
        array = last(bag, topic)
        objects = {m.id: m for m in array.markers if m.ns == markers.NS_OBJECTS}
        m = objects[markers.marker_id("mango-juice_0")]
        assert [m.pose.position.x, m.pose.position.y, m.pose.position.z] == \
            pytest.approx(juice["pose"][:3], abs=1e-4), topic
        robot = next(m for m in array.markers if m.ns == markers.NS_ROBOT
                     and m.id == markers.marker_id("base"))
        assert [robot.pose.position.x, robot.pose.position.y] == \
            pytest.approx(state["base_pose"][:2], abs=1e-4), topic
        assert "robot\nleft: -\nright: mango-juice_0" in [m.text for m in array.markers]
    # the command prints what the bag holds and replays the dialogue as text
    out = subprocess.run([str(CLI), "bag", "summary", str(bag)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert re.search(
        r"/interaction/transcript\s+\d+\s+llm_interaction_interfaces/msg/ConsoleEntry", text
    )
    steps = ["user: bring me the juice", ">>> say('I will get the juice.')",
             "robot says: I will get the juice.", "[skill grasp", "robot says: I have the juice."]
    assert [text.index(s) for s in steps] == sorted(text.index(s) for s in steps), text
    bad = subprocess.run([str(CLI), "bag", "summary", str(tmp_path / "nothing")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "not a readable rosbag2 bag" in bad.stderr


def test_a_sigkilled_run_leaves_a_readable_bag_up_to_the_last_flush(tmp_path):
    with recorded_run(tmp_path) as (proc, lines):
        pid = int(re.search(r"started recorder \(pid (\d+)\)", "".join(lines)).group(1))
        time.sleep(2.5)                        # flush_s is 1 s: everything said is on disk
        os.kill(pid, signal.SIGKILL)           # the recorder dies first, then the whole run
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    check_dialogue(tmp_path / "bag")
    assert not (tmp_path / "bag" / "metadata.yaml.tmp").exists()


def test_record_refuses_a_directory_that_holds_files(tmp_path):
    (tmp_path / "bag").mkdir()
    (tmp_path / "bag" / "notes.txt").write_text("mine")
    out = subprocess.run([str(CLI), "run", "--record", str(tmp_path / "bag"), "--no-console",
                          "--log-dir", str(tmp_path / "logs")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "not an empty directory" in out.stderr
    assert (tmp_path / "bag" / "notes.txt").read_text() == "mine"
    assert not (tmp_path / "logs").exists()             # no node was started

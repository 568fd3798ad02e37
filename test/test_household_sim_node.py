"""The household simulator node in its own process, driven over ROS 2 from the test process.

Two simulator processes serve most of the module (started together, in their own namespaces):
``/sim_fast`` (drinks_and_cup, time_scale 0: skills finish at once) and ``/sim_slow``
(drinks_and_cup, time_scale 0.1, the first grasp fails by ``failures_json``); each test resets
the world it uses first. The Ctrl-C test starts a third, the bad-world test a fourth that exits
at once. ``HouseholdWorld.interrupt()`` is tested in-process at the end.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import rclpy
from action_msgs.msg import GoalStatus
from llm_interaction_interfaces.action import Grasp, Handover, MoveTo, Place, Receive, RunSkill
from llm_interaction_interfaces.msg import Scene
from rclpy.action import ActionClient
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from std_srvs.srv import Trigger

from llm_interaction_node.ros.conversions import base_pose_to_msg
from llm_interaction_node.sims import HouseholdWorld, load_household_world
from ros_support import ROOT, NodeProcess, probe_node

MODULE = "llm_interaction_node.ros.nodes.household_sim"
WORLD = "drinks_and_cup"
COUNTER = "inFrontOf_kitchen-counter_0"          # [1.8, 1.0, 0.0]; room_center is [0, 0, 0]


def sim_process(tmp_path, namespace: str, *params: str) -> NodeProcess:
    ros_args = [
        "--params-file",
        str(ROOT / "config/household_sim.yaml"),
        "-r",
        f"__ns:={namespace}",
        "-p",
        f"world:={WORLD}",
        "-p",
        "scene_rate_hz:=2.0",
    ]
    for p in params:
        ros_args += ["-p", p]
    return NodeProcess(MODULE, tmp_path / f"{namespace.strip('/')}.log", ros_args=ros_args)


class SimClient:
    """Action, topic and service clients for one simulator namespace, on a node of their own.

    The node joins the probe's (spinning) executor only when all its clients exist: rclpy's
    ActionClient registers itself with the node before it is fully built, and an executor that
    looks at it then dies (AttributeError: 'ActionClient' object has no attribute '_lock')."""

    def __init__(self, probe, namespace: str):
        self.probe = probe
        node = self.node = rclpy.create_node(
            f"client{namespace.replace('/', '_')}", context=probe.context
        )
        self.actions = {
            name: ActionClient(node, action, f"{namespace}/skills/{name}")
            for name, action in [
                ("move_to", MoveTo),
                ("grasp", Grasp),
                ("place", Place),
                ("handover", Handover),
                ("receive", Receive),
                ("run_skill", RunSkill),
            ]
        }
        self.types = {name: client._action_type for name, client in self.actions.items()}
        latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.states, self.scenes = [], []
        node.create_subscription(
            String, f"{namespace}/household_sim/world_state", self.states.append, latched
        )
        node.create_subscription(Scene, f"{namespace}/perception/scene", self.scenes.append, 10)
        self.reset_client = node.create_client(Trigger, f"{namespace}/household_sim/reset")
        probe.executor.add_node(node)
        for name, client in self.actions.items():
            assert client.wait_for_server(timeout_sec=30), f"no action server {name}"
            # wait_for_server sees the services only: feedback published before the feedback
            # topic is matched is lost, so also wait until the feedback publisher is discovered
            topic = f"{namespace}/skills/{name}/_action/feedback"
            probe.wait_until(lambda topic=topic: node.count_publishers(topic) > 0, 30, topic)
        assert self.reset_client.wait_for_service(timeout_sec=30)
        self.locations = load_household_world(WORLD).named_locations()
        self._warm_up()

    HARMLESS = {"move_to": {"speed_factor": 0.0}, "grasp": {"object_name": "-"},
                "place": {"object_name": "-"}, "handover": {"object_name": "-"},
                "receive": {"object_name": "-", "hand": "left"},
                "run_skill": {"name": "-", "arguments_json": "{"}}

    def _warm_up(self) -> None:
        """One harmless, failing goal per action, repeated until its answers arrive.

        wait_for_server() only shows that this side has discovered the server. The server may not
        have matched this client's response readers yet; rmw_fastrtps then waits 100 ms and drops
        the response ("failed to send response (timeout)"), and the goal response never comes."""
        for action, fields in self.HARMLESS.items():
            for _ in range(10):
                try:
                    result, _status = self.run(action, timeout=2.0, **fields)
                    break
                except TimeoutError:
                    continue
            else:
                raise TimeoutError(f"no answer from the {action} server")
            assert result.status == "failure", (action, result.message)

    # -- helpers
    @staticmethod
    def wait(future, timeout: float = 30.0, what: str = "a future"):
        done = threading.Event()
        future.add_done_callback(lambda _: done.set())
        if not done.wait(timeout):
            raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
        return future.result()

    def send(self, action: str, feedback: list | None = None, timeout: float = 30.0, **fields):
        """Send a goal; returns the accepted client goal handle."""
        goal = self.types[action].Goal(**fields)
        callback = (lambda msg: feedback.append(msg.feedback)) if feedback is not None else None
        handle = self.wait(self.actions[action].send_goal_async(goal, feedback_callback=callback),
                           timeout, what=f"{action} goal response")
        assert handle.accepted
        return handle

    def run(self, action: str, feedback: list | None = None, timeout: float = 30.0, **fields):
        """Send a goal and wait for its result -> (result message, goal status)."""
        handle = self.send(action, feedback, timeout, **fields)
        response = self.wait(handle.get_result_async(), timeout, what=f"{action} result")
        return response.result, response.status

    def move_to(self, location: str, feedback: list | None = None, speed_factor: float = 1.0):
        return self.run("move_to", feedback, target=base_pose_to_msg(self.locations[location]),
                        speed_factor=speed_factor)

    def state(self, predicate=lambda s: True, what: str = "world state") -> dict:
        """The latest world state once it satisfies predicate."""
        latest = lambda: json.loads(self.states[-1].data) if self.states else None  # noqa: E731
        self.probe.wait_until(lambda: latest() is not None and predicate(latest()), 30, what)
        return latest()

    def reset(self) -> None:
        """Reset the world (repeated if the answer is lost, see _warm_up)."""
        for attempt in range(10):
            try:
                answer = self.wait(
                    self.reset_client.call_async(Trigger.Request()), 2.0, what="reset"
                )
                break
            except TimeoutError:
                if attempt == 9:
                    raise
        assert answer.success, answer.message
        self.state(lambda s: s["skill_calls"] == 0 and s["last_skill"] is None, "the reset state")


@pytest.fixture(scope="module")
def probe():
    with probe_node("household_sim_test") as p:
        yield p


@pytest.fixture(scope="module")
def sims(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("household_sim")
    procs = {"fast": sim_process(tmp, "/sim_fast", "time_scale:=0.0"),
             "slow": sim_process(tmp, "/sim_slow", "time_scale:=0.1",
                                 "failures_json:='{\"grasp\": {\"*\": 1}}'")}
    try:
        for proc in procs.values():
            proc.wait_for_log("household_sim ready", timeout=60)
        yield procs
    finally:
        codes = {name: proc.stop() for name, proc in procs.items()}
    for name, proc in procs.items():
        log = proc.log_path.read_text()
        assert codes[name] == 0 and "Traceback" not in log, log[-3000:]


@pytest.fixture(scope="module")
def fast(sims, probe):
    return SimClient(probe, "/sim_fast")


@pytest.fixture(scope="module")
def slow(sims, probe):
    return SimClient(probe, "/sim_slow")



def test_a_result_asked_for_late_still_arrives(fast):
    """Issue 45, the cause of the warm-up's empty status under load: a quick goal ends at
    once; a loaded client asks for its result a second or more later. With the results kept
    1 s the server had dropped it and answered STATUS_UNKNOWN with an empty result (status
    ''); they are kept 10 s now."""
    fast.reset()
    handle = fast.send("grasp", object_name="-")
    time.sleep(2.5)                                  # a client slowed by a CPU hog
    response = fast.wait(handle.get_result_async(), 30, "the late result")
    assert response.status == GoalStatus.STATUS_ABORTED
    assert response.result.status == "failure" and response.result.message

def test_ready_line_names_world_objects_and_time_scale(sims):
    assert (
        "household_sim ready: world drinks_and_cup, 6 objects, time_scale 0" in sims["fast"].log()
    )
    assert (
        "household_sim ready: world drinks_and_cup, 6 objects, time_scale 0.1" in sims["slow"].log()
    )


def test_move_to_named_location_with_feedback(slow):
    slow.reset()
    feedback = []
    result, status = slow.move_to(COUNTER, feedback)            # 4.1 simulated s: 0.41 s
    assert (result.status, result.message) == ("success", "")
    assert status == GoalStatus.STATUS_SUCCEEDED
    pose = result.final_pose.pose.position
    assert (pose.x, pose.y) == pytest.approx(
        (1.8, 1.0)
    ) and result.final_pose.header.frame_id == "map"
    # start (0.0) and one message per tenth; the last ones may be dropped by the client when they
    # come with the result (rclpy forgets a goal's feedback callback once the result is in)
    progress = [f.progress for f in feedback]
    assert len(progress) >= 6 and progress == sorted(progress) and progress[0] == 0.0
    assert feedback[0].distance_remaining == pytest.approx(math.hypot(1.8, 1.0), abs=1e-6)
    remaining = [f.distance_remaining for f in feedback]
    assert remaining == sorted(remaining, reverse=True)
    mid = feedback[5]
    assert mid.current_pose.pose.position.x == pytest.approx(1.8 * mid.progress, abs=1e-6)
    assert mid.current_pose.header.frame_id == "map"
    state = slow.state(lambda s: s["skill_calls"] == 1, "the move in the world state")
    assert state["base_pose"] == pytest.approx([1.8, 1.0, 0.0])
    assert (
        state["last_skill"]["skill"] == "move_to"
        and state["last_skill"]["args"]["location"] == COUNTER
    )
    assert state["clock"] == pytest.approx(math.hypot(1.8, 1.0) / 0.5, abs=1e-5)


def test_grasp_from_the_right_place_shows_in_the_scene(fast):
    fast.reset()
    assert fast.move_to(COUNTER)[0].status == "success"
    result, status = fast.run("grasp", object_name="coffee-cup_0", hand="")
    assert (result.status, result.message, result.hand) == ("success", "", "right")   # a free hand

    def cup_in_hand():
        return any(o.name == "coffee-cup_0" and o.held_by == "right" and o.location == ""
                   for o in fast.scenes[-1].objects) if fast.scenes else False
    fast.probe.wait_until(cup_in_hand, 30, "the cup held by the right hand in the scene")
    assert fast.scenes[-1].header.frame_id == "map"
    assert fast.state(lambda s: s["skill_calls"] == 2)["hands"] == {
        "left": None,
        "right": "coffee-cup_0",
    }


def test_grasp_from_the_wrong_place_fails_with_a_reason(fast):
    fast.reset()                                                # at room_center
    result, status = fast.run("grasp", object_name="mango-juice_0", hand="left")
    assert result.status == "failure" and result.hand == ""
    assert result.message == "object out of reach: move to its location first"
    assert status == GoalStatus.STATUS_ABORTED
    state = fast.state(lambda s: s["skill_calls"] == 1)
    assert (
        state["last_skill"]["result"] == "failure"
        and state["objects"]["mango-juice_0"]["held_by"] is None
    )


def test_run_skill_with_invalid_json_fails_with_a_message(fast):
    fast.reset()
    result, _ = fast.run("run_skill", name="bring_ladder", arguments_json="{'object_name': 'x'")
    assert result.status == "failure" and result.message.startswith(
        "arguments_json is not valid JSON"
    )
    result, _ = fast.run("run_skill", name="bring_ladder", arguments_json="[1, 2]")
    assert (result.status, result.message) == ("failure", "arguments_json must be a JSON object")
    result, _ = fast.run("run_skill", name="dance", arguments_json="{}")   # reaches the world
    assert (result.status, result.message) == ("failure", "unknown skill 'dance'")
    result, _ = fast.run(
        "run_skill", name="bring_ladder", arguments_json='{"object_name": "tumbler_0"}'
    )
    assert (result.status, result.message) == ("failure", "no such ladder")
    assert fast.state(lambda s: s["skill_calls"] == 2)["last_skill"]["skill"] == "bring_ladder"


def test_handover_and_receive(fast):
    fast.reset()
    assert fast.move_to("handover_to_human")[0].status == "success"
    result, _ = fast.run("receive", object_name="empty-mug_0", hand="")
    assert result.status == "success"
    assert fast.state(lambda s: s["skill_calls"] == 2)["hands"]["right"] == "empty-mug_0"
    result, _ = fast.run("handover", object_name="empty-mug_0")
    assert result.status == "success"
    result, _ = fast.run("place", object_name="empty-mug_0", destination="dining-table_0")
    assert (result.status, result.message) == ("failure", "object not in a hand")


def test_reset_restores_the_initial_state(fast):
    fast.reset()
    fast.move_to(COUNTER)
    fast.run("grasp", object_name="tumbler_0", hand="left")
    assert fast.state(lambda s: s["skill_calls"] == 2)["hands"]["left"] == "tumbler_0"
    fast.reset()
    expected = {**load_household_world(WORLD).snapshot(), "last_skill": None}
    assert fast.state() == expected
    fast.probe.wait_until(
        lambda: fast.scenes and all(o.held_by in ("", "human") for o in fast.scenes[-1].objects),
        10,
        "scene reset",
    )


def test_cancel_stops_a_long_move_and_a_waiting_goal(slow):
    slow.reset()
    feedback = []
    # 2.06 m at 0.5 m/s * 0.05 = 82 simulated s = 8.2 wall s at time_scale 0.1
    move = slow.send(
        "move_to", feedback, target=base_pose_to_msg(slow.locations[COUNTER]), speed_factor=0.05
    )
    waiting = slow.send("grasp", object_name="coffee-cup_0", hand="")  # waits for the move
    slow.probe.wait_until(
        lambda: any(f.progress >= 0.1 for f in feedback), 20, "the move under way"
    )

    start = time.monotonic()
    slow.wait(waiting.cancel_goal_async(), what="cancel of the waiting goal")
    waited = slow.wait(waiting.get_result_async(), what="the waiting goal's result")
    # behaviour, not speed: well under the ~7 s the move has left (a loaded machine took 0.33 s
    # for what takes ~0.05 s idle; the benchmarks report latencies)
    assert time.monotonic() - start < 3.0                       # did not wait for the move
    assert waited.status == GoalStatus.STATUS_CANCELED
    assert (waited.result.status, waited.result.message) == ("failure", "canceled")

    start = time.monotonic()
    answer = slow.wait(move.cancel_goal_async(), what="cancel response")
    response = slow.wait(move.get_result_async(), what="the canceled move's result")
    latency = time.monotonic() - start
    assert len(answer.goals_canceling) == 1
    assert response.status == GoalStatus.STATUS_CANCELED
    assert (response.result.status, response.result.message) == ("failure", "canceled")
    assert latency < 3.0, f"cancel took {latency:.3f} s"          # of ~7 s left: not waited out
    final = response.result.final_pose.pose.position
    assert 0.15 < final.x < 1.8 and 0.08 < final.y < 1.0       # between room_center and the counter
    assert final.y == pytest.approx(final.x * 1.0 / 1.8, abs=1e-6)  # on the straight line
    state = slow.state(
        lambda s: s["last_skill"] is not None and s["last_skill"]["reason"] == "canceled"
    )
    assert state["base_pose"][:2] == pytest.approx([final.x, final.y], abs=1e-5)
    assert (
        state["skill_calls"] == 1 and state["last_skill"]["result"] == "failure"
    )  # the grasp never ran
    assert state["hands"] == {"left": None, "right": None}


def test_failures_json_injects_a_grasp_failure(slow):
    slow.reset()
    assert slow.move_to(COUNTER)[0].status == "success"       # 0.4 s
    feedback = []
    result, _ = slow.run("grasp", feedback, object_name="coffee-cup_0", hand="left")   # 0.4 s
    assert (result.status, result.message) == ("failure", "injected failure")
    assert (feedback[0].progress, feedback[0].stage) == (0.0, "start")
    result, _ = slow.run("grasp", object_name="coffee-cup_0", hand="left")
    assert (result.status, result.hand) == ("success", "left")
    assert slow.state(lambda s: s["skill_calls"] == 3)["hands"]["left"] == "coffee-cup_0"


def test_the_ros_robot_says_why_a_skill_failed_in_the_same_words_as_the_world(fast, probe):
    """Issue 31 through RosHumanoidRobot (action goals, the perceived scene, the base pose from
    the move's result): the API's failure texts equal those over the in-process world."""
    from llm_interaction_node.core.apis.humanoid import HumanoidApi
    from llm_interaction_node.core.apis.knowledge import StaticKnowledge
    from llm_interaction_node.core.user.interrupt import StopSignal
    from llm_interaction_node.paths import world_path
    from llm_interaction_node.ros.robot.humanoid import RosHumanoidRobot
    from llm_interaction_node.ros.robot.scene_memory import SceneMemory
    from llm_interaction_node.ros.robot.skill_client import SkillClient
    from llm_interaction_node.ros.skills import SKILL_TYPES

    fast.reset()
    node = rclpy.create_node("ros_robot_words", context=probe.context)
    scene = SceneMemory(StaticKnowledge.from_yaml(world_path(WORLD)))
    node.create_subscription(Scene, "/sim_fast/perception/scene", scene.update, 10)
    skills = {skill: SkillClient(node, action, f"/sim_fast/skills/{skill}", StopSignal())
              for skill, action in SKILL_TYPES.items()}
    probe.executor.add_node(node)
    try:
        assert scene.wait_for_first(30)
        robot = RosHumanoidRobot(skills, scene, now_ns=lambda: node.get_clock().now().nanoseconds)

        def session(api):
            return [api.move_to(api.get_location_coordinates(COUNTER)), api.grasp("milk-carton_0"),
                    api.grasp("coffee-cup_0"),
                    api.place_object("coffee-cup_0", "on_dining-table_0"),
                    api.handover_object_to_human("coffee-cup_0")]
        over_ros = session(HumanoidApi(robot))
        in_process = session(HumanoidApi(load_household_world(WORLD)))
    finally:
        probe.executor.remove_node(node)
        node.destroy_node()
    assert over_ros[1] == ("failure: milk-carton_0 is on the dining table; "
                           "the robot is in front of the kitchen counter")
    assert over_ros == in_process
    assert over_ros[3] == ("failure: the robot is in front of the kitchen counter, "
                           "not in front of the dining table")


def test_a_result_the_server_no_longer_has_is_said_so_by_the_skill_client(
        tmp_path, probe, monkeypatch):
    """The client's side of the warm-up's empty status: a server that kept results 1 s (the
    old default) and a client slowed by load that asks 2.5 s after a quick goal ended. The
    SkillClient says the result was gone instead of an empty failure ('no reason given')."""
    from rclpy.action.client import ClientGoalHandle

    from llm_interaction_node.core.user.interrupt import StopSignal
    from llm_interaction_node.ros.robot.skill_client import SkillClient
    proc = sim_process(tmp_path, "/sim_expiring", "time_scale:=0.0", "result_timeout_s:=1.0")
    node = None
    try:
        proc.wait_for_log("household_sim ready")
        node = rclpy.create_node("expiring_client", context=probe.context)
        # accepted late on a loaded machine is not what this test is about
        client = SkillClient(node, Grasp, "/sim_expiring/skills/grasp", StopSignal(),
                             accept_s=30.0)
        probe.executor.add_node(node)
        asked = ClientGoalHandle.get_result_async

        def late(handle):              # the delay a loaded machine put between the two
            time.sleep(2.5)
            return asked(handle)
        monkeypatch.setattr(ClientGoalHandle, "get_result_async", late)
        outcome = client.run(Grasp.Goal(object_name="-"), timeout_s=30)
    finally:
        if node is not None:
            probe.executor.remove_node(node)
            node.destroy_node()
        proc.stop()
    assert outcome.status == "failure" and outcome.infrastructure
    assert outcome.message.startswith("the skill server no longer had the goal's result"), \
        outcome.message


def test_sigint_during_a_move_exits_cleanly(tmp_path, probe):
    proc = sim_process(tmp_path, "/sim_sigint", "time_scale:=1.0")
    try:
        proc.wait_for_log("household_sim ready")
        client = SimClient(probe, "/sim_sigint")
        feedback = []
        move = client.send(
            "move_to", feedback, target=base_pose_to_msg(client.locations[COUNTER])
        )  # 4 s
        result = move.get_result_async()
        probe.wait_until(lambda: feedback, 20, "the move under way")
    finally:
        start = time.monotonic()
        code = proc.stop()
        took = time.monotonic() - start
    log = proc.log_path.read_text()
    assert code == 0 and "Traceback" not in log, log
    # not hung (3.3 s beside a model bench); that the move did not run out is the ABORTED below
    assert took < 10.0
    assert result.done()                                        # the goal ended before the node
    assert result.result().status == GoalStatus.STATUS_ABORTED
    assert (result.result().result.status, result.result().result.message) == (
        "failure",
        "canceled",
    )


def test_unknown_world_is_one_error_line_and_exit_code_2():
    done = subprocess.run(
        [sys.executable, "-m", MODULE, "--ros-args", "-p", "world:=no_such_world"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "household_sim: no world 'no_such_world'; known worlds: "
        "['drinks_and_cup', 'ladder_and_shelf', 'living_room', 'sponge_workbench']"]


# ---------------------------------------------------------------- world.interrupt(), no ROS
SMALL = {
    "room": {"x": [-5, 5], "y": [-5, 5]},
    "robot": {"start": [0.0, 0.0, 0.0], "base_speed": 1.0, "durations": {"grasp": 2.0}},
    "furniture": {"desk_0": {"position": [4.5, 0.0], "approach": [4.0, 0.0, 0.0]}},
    "locations": {"handover_to_human": [0.0, -1.0, -1.5708]},
    "objects": {"pen_0": {"location": "on_desk_0"}},
}


def _in_thread(fn, *args):
    out = []
    thread = threading.Thread(target=lambda: out.append(fn(*args)))
    thread.start()
    return thread, out


def test_world_interrupt_stops_a_move_where_it_is_and_fast():
    w = HouseholdWorld.from_dict(SMALL, time_scale=1.0)         # 4 m at 1 m/s: 4 s
    thread, out = _in_thread(w.move_to, np.array([4.0, 0.0, 0.0]), 1.0)
    time.sleep(0.25)                                            # inside the first 0.4 s step
    start = time.monotonic()
    w.interrupt()
    thread.join(1.0)
    assert time.monotonic() - start < 0.05 and out == ["failure"]
    entry = w.log[-1]
    assert (entry.skill, entry.result, entry.reason) == ("move_to", "failure", "canceled")
    assert 0.1 < w.base_pose[0] < 0.6                           # where it got to (~0.25 m)
    assert entry.duration == pytest.approx(w.base_pose[0], abs=1e-6) and w.clock == entry.duration
    w.time_scale = 0.0
    assert w.move_to(np.array([4.0, 0.0, 0.0]), 1.0) == "success"   # the next skill is not affected


def test_world_interrupt_of_a_grasp_changes_nothing():
    w = HouseholdWorld.from_dict(SMALL)
    w.move_to(np.array([4.0, 0.0, 0.0]), 1.0)
    before = w.snapshot()
    w.time_scale = 1.0                                          # the grasp takes 2 s
    thread, out = _in_thread(w.grasp, "pen_0", "left")
    time.sleep(0.1)
    start = time.monotonic()
    w.interrupt()
    thread.join(1.0)
    assert time.monotonic() - start < 0.05 and out == ["failure"]
    assert (w.log[-1].reason, w.log[-1].duration) == ("canceled", pytest.approx(0.1, abs=0.05))
    after = w.snapshot()
    assert {k: v for k, v in after.items() if k not in ("clock", "skill_calls")} == \
        {k: v for k, v in before.items() if k not in ("clock", "skill_calls")}
    w.time_scale = 0.0
    assert w.grasp("pen_0", "left") == "success"


def test_world_interrupt_while_idle_is_pending_until_consumed_or_cleared():
    w = HouseholdWorld.from_dict(SMALL)
    w.interrupt()
    assert w.move_to(np.array([1.0, 0.0, 0.0]), 1.0) == "failure"   # stops as it starts
    assert w.log[-1].reason == "canceled" and w.base_pose.tolist() == [0.0, 0.0, 0.0]
    assert w.move_to(np.array([1.0, 0.0, 0.0]), 1.0) == "success"   # consumed by that call
    w.interrupt()
    w.clear_interrupt()
    assert w.move_to(np.array([2.0, 0.0, 0.0]), 1.0) == "success"
    w.interrupt()
    w.reset()
    assert w.move_to(np.array([2.0, 0.0, 0.0]), 1.0) == "success"


def test_world_interrupt_of_bring_ladder_leaves_the_ladder():
    w = load_household_world("ladder_and_shelf", time_scale=0.01)    # ~60 simulated s: 0.6 s
    ladder = w.snapshot()["objects"]["step-ladder_0"]
    thread, out = _in_thread(
        w.run_skill,
        "bring_ladder",
        {"object_name": "step-ladder_0", "location_name": "inFrontOf_fridge_0"},
    )
    time.sleep(0.1)
    w.interrupt()
    thread.join(1.0)
    assert out == ["failure"] and w.log[-1].reason == "canceled"
    assert w.snapshot()["objects"]["step-ladder_0"] == ladder
    assert 0.0 < w.base_pose[0] < 2.0 and 0.0 < w.base_pose[1] < 2.3      # on the way to the fridge

"""Issue 61 item 4 over ROS: two robots (each a household simulator and an interaction node,
in the namespaces /robot_a and /robot_b) share their lessons on one Chroma server.

Robot A is taught a lesson in drinks_and_cup (the request, a correction, the lesson: as in
test_person_session.py). Robot B, another process in a copy of that world, is asked in other
words: the lesson, stored by A, is the last example of B's prompt, B's stand-in follows it and
B's world ends as the lesson says. The lesson records robot A (its id by default: host name /
namespace) and its world. Then robot B's simulator and node are restarted in the living room,
which has no mango juice and no tumbler: the lesson is not in its prompt, and the node says
why in its log. Real processes: rclpy over FastDDS, `chroma run`, embeddings, simulators;
only the LLMs are stand-ins (one per robot)."""
from __future__ import annotations

import json
import socket

import pytest
from llm_interaction_interfaces.srv import ManageMemory

from conftest import CHROMA, ChromaServer
from fake_llm_server import FakeLLMServer
from learning_support import examples_of
from llm_interaction_node.ros import names
from llm_interaction_node.ros.graph import (
    HOUSEHOLD_SIM,
    INTERACTION_NODE,
    argument_environment,
    command_line,
)
from ros_support import NodeProcess, probe_node
from test_person_session import (
    AGAIN,
    FORGOT,
    GLASS,
    GLASS_TOO,
    IMPROVED,
    IMPROVEMENT,
    JUICE,
    LESSON,
    PROBLEM,
    READINGS,
    REQUEST,
    WAIT,
    copy_the_nearest_example,
    inputs,
)
from test_ros_e2e import Observer, call

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not CHROMA.exists(), reason="no chroma script in the venv")]


class NamespacedProbe:
    """The probe's executor and context, with a node in a robot's namespace (the Observer's
    relative topic names resolve there)."""

    def __init__(self, probe, namespace: str):
        import rclpy
        self.probe = probe
        self.node = rclpy.create_node(f"fleet_probe_{namespace.strip('/')}",
                                      namespace=namespace, context=probe.context)
        probe.executor.add_node(self.node)

    def collect(self, msg_type, topic: str, qos=10) -> list:
        received: list = []
        self.node.create_subscription(msg_type, topic, received.append, qos)
        return received

    def wait_until(self, predicate, timeout: float = 30.0, what: str = "") -> None:
        self.probe.wait_until(predicate, timeout, what)


class Robot:
    """A household simulator and an interaction node in one namespace, sharing the Chroma
    server; the interaction node's LLM is its own stand-in."""

    def __init__(self, tmp_path, probe, namespace: str, world: str, chroma_port: int,
                 robot_id: str | None = None, tag: str = "", **more):
        self.llm = FakeLLMServer()
        self.llm.readings.update(READINGS)
        self.llm.text = WAIT
        self.namespace = namespace
        remap = ["-r", f"__ns:={namespace}"]
        sim = command_line(HOUSEHOLD_SIM, {"world": world, "time_scale": 0.0})
        self.sim = NodeProcess(HOUSEHOLD_SIM.module, tmp_path / f"sim{namespace[1:]}{tag}.log",
                               ros_args=sim[4:] + remap)
        params = {"knowledge": world, "llm.base_url": self.llm.url, "llm.model": "scripted",
                  "memory.path": str(tmp_path / f"local{namespace[1:]}"),
                  "memory.host": "127.0.0.1", "memory.port": chroma_port, "memory.k": 8,
                  "timeouts.first_scene_s": 30.0}
        if robot_id:
            params["memory.robot_id"] = robot_id
        params.update(more)
        node = command_line(INTERACTION_NODE, params)
        env = argument_environment({"llm_base_url": self.llm.url, "llm_model": "scripted"})
        self.node = NodeProcess(INTERACTION_NODE.module,
                                tmp_path / f"node{namespace[1:]}{tag}.log",
                                ros_args=node[4:] + remap, env=env["interaction_node"])
        self.probe = NamespacedProbe(probe, namespace)
        self.user = Observer(self.probe, self.node)

    def ready(self) -> None:
        self.node.wait_for_log("interaction_node ready", 240)
        self.user.wait_connected()

    def wait_handed_back(self, n: int, what: str, since: int = 0, timeout: float = 120) -> None:
        user = self.user
        self.probe.wait_until(lambda: inputs(user, since).count(WAIT) >= n
                              and user.states[-1].data == "idle", timeout,
                              f"{what}\n{user.transcript()}")

    def memory(self, command: str, argument: str = ""):
        answer = call(self.probe.probe, ManageMemory, f"{self.namespace}/{names.MEMORY}",
                      ManageMemory.Request(command=command, argument=argument))
        assert answer.success, answer.message
        return json.loads(answer.result_json)

    def stop(self) -> None:
        codes = (self.node.stop(timeout=30), self.sim.stop(timeout=30))
        self.llm.close()
        return codes


def test_a_lesson_taught_to_robot_a_is_used_by_robot_b_and_not_where_its_things_are_missing(
        tmp_path):
    server = ChromaServer(tmp_path / "chroma", tmp_path / "chroma.log")
    server.start()
    robots: list[Robot] = []
    try:
        with probe_node() as probe:
            a = Robot(tmp_path, probe, "/robot_a", "drinks_and_cup", server.port)
            b = Robot(tmp_path, probe, "/robot_b", "drinks_and_cup", server.port,
                      robot_id="kitchen_b")
            robots += [a, b]
            a.ready()
            b.ready()
            assert f"robot '{socket.gethostname()}/robot_a'" in a.node.log()   # the default id

            # -- robot A: the request, the correction, the lesson ----------------------------
            a.llm.texts = [JUICE, "say('Here is the juice.')", WAIT]
            a.user.say(REQUEST)
            a.wait_handed_back(2, "the juice brought")
            a.llm.texts = [GLASS, "say('Here is the glass.')", WAIT]
            a.user.say(FORGOT)
            a.wait_handed_back(3, "the glass brought")
            a.llm.texts = ["learn_from_interaction()", PROBLEM, IMPROVEMENT,
                           f"```\n{IMPROVED}\n```", WAIT]
            a.user.say(LESSON)
            a.wait_handed_back(4, "the lesson learned")
            outputs = "\n".join(e.text for e in a.user.entries if e.kind == "output")
            assert "Learned from this interaction" in outputs, a.user.transcript()

            # -- robot B (another process, a copy of the world) sees it and follows it -------
            lessons = b.memory("list", "learned")
            assert len(lessons) == 1, lessons
            assert lessons[0]["robot"] == f"{socket.gethostname()}/robot_a"
            assert lessons[0]["world"] == "drinks_and_cup"
            shown = b.memory("show", lessons[0]["id"])
            assert {"mango-juice_0", "tumbler_0", "handover_to_human"} <= set(shown["needs"])
            b.llm.answer = copy_the_nearest_example
            asked = len(b.llm.requests)
            b.user.say(AGAIN)
            b.wait_handed_back(2, "robot B followed the lesson")
            prompt = b.llm.requests[asked]["json"]["prompt"]
            assert examples_of(prompt)[-1] == IMPROVED.replace(REQUEST, AGAIN)
            assert inputs(b.user) == [WAIT, JUICE, GLASS_TOO,
                                      "say('Here are the juice and a glass.')", WAIT]
            world = b.user.world()["objects"]
            assert world["mango-juice_0"]["held_by"] == "human"
            assert world["tumbler_0"]["held_by"] == "human"        # A's lesson, in B's world
            assert a.user.world()["objects"]["mango-juice_0"]["held_by"] == "human"
            assert "Traceback" not in a.node.log() + b.node.log()

            # -- robot B again, now in the living room: no mango juice, no tumbler -----------
            assert b.stop() == (0, 0)
            robots.remove(b)
            c = Robot(tmp_path, probe, "/robot_b", "living_room", server.port,
                      robot_id="kitchen_b", tag="2")
            robots.append(c)
            c.ready()
            asked = len(c.llm.requests)
            c.user.say(REQUEST)
            c.wait_handed_back(2, "robot B in the living room answered")
            prompt = c.llm.requests[asked]["json"]["prompt"]
            assert "the glass comes with the juice" not in prompt      # the lesson's line
            assert not any("tumbler_0" in e for e in examples_of(prompt)[-2:])
            assert "is not shown: this world has no mango-juice_0, tumbler_0" in c.node.log()
            assert "Traceback" not in c.node.log()
    finally:
        for robot in robots:
            robot.stop()
        server.stop()


def test_a_robot_started_while_the_server_is_down_keeps_running_and_uses_it_once_it_answers(
        tmp_path):
    """`memory_host` given and no server there: the node logs one error that says where and
    how to start one (`chroma run --path DIR --port N`), starts, answers a request with its
    seed examples and the outage sentence; the server started, the next request is answered
    from it (seeded now) and a lesson is stored there with the robot's id."""
    from llm_interaction_node.core.memory.source import MEMORY_OUTAGE
    server = ChromaServer(tmp_path / "chroma", tmp_path / "chroma.log")      # not started
    robot = None
    try:
        with probe_node() as probe:
            robot = Robot(tmp_path, probe, "/robot_c", "drinks_and_cup", server.port,
                          robot_id="late_c", **{"learning.mode": "raw"})
            robot.ready()
            log = robot.node.log()
            assert f"cannot reach the Chroma server at 127.0.0.1:{server.port}" in log
            assert f"chroma run --path DIR --port {server.port}" in log
            assert "does not answer (the seed examples until it does)" in log
            robot.llm.texts = ["say('Hello.')", WAIT]
            asked = len(robot.llm.requests)
            robot.user.say("say hello")
            robot.wait_handed_back(2, "answered without the memory")
            said = [m.data for m in robot.user.said]
            assert said[:2] == [MEMORY_OUTAGE, "Hello."], said
            assert examples_of(robot.llm.requests[asked]["json"]["prompt"])  # the seed files
            server.start()
            robot.llm.texts = [JUICE, "say('Here is the juice.')", WAIT,
                               "learn_from_interaction()", WAIT]
            robot.user.say(REQUEST)
            robot.wait_handed_back(3, "answered with the memory back")
            robot.user.say(LESSON)
            robot.wait_handed_back(4, "the lesson learned")
            assert len(robot.memory("list", "seed")) == 14          # seeded once it answered
            lessons = robot.memory("list", "raw")                   # learning.mode raw
            assert [(x["robot"], x["world"]) for x in lessons] == [("late_c", "drinks_and_cup")]
            assert robot.node.alive() and "Traceback" not in robot.node.log()
    finally:
        if robot is not None:
            robot.stop()
        server.stop()

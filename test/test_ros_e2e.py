"""Issue 4 end to end on real DDS: speech in, skills in the simulator, speech out, learning.

Separate processes: the household simulator node, the interaction node, and this test as
the user (ASR topic) and observer (TTS, transcript, world state). Only the LLM is a stand-in
(an OpenAI-compatible HTTP server answering scripted statements); ChromaDB is real.
"""
import json
import re
from contextlib import contextmanager

import pytest
from llm_interaction_interfaces.srv import Learn, ManageMemory
from std_srvs.srv import Trigger

from fake_llm_server import FakeLLMServer
from llm_interaction_node.core.console.session import NEW_TASK_MARKER
from llm_interaction_node.ros import names
from ros_support import NodeProcess, probe_node
from test_learning_e2e import CORRECTION, IMPROVED, IMPROVEMENT, PROBLEM, REQUEST, TWO_TRIPS

pytestmark = pytest.mark.slow

SIM = "llm_interaction_node.ros.nodes.household_sim"
NODE = "llm_interaction_node.ros.nodes.interaction_node"


def call(probe, srv_type, name, request, timeout=60):
    client = probe.node.create_client(srv_type, name)
    assert client.wait_for_service(timeout_sec=timeout), name
    future = client.call_async(request)
    probe.wait_until(future.done, timeout, f"an answer from {name}")
    return future.result()


def node_args(llm_url, memory_path, **extra):
    args = ["--params-file", "config/interaction_node.yaml",
            "-p", f"llm.base_url:={llm_url}", "-p", "llm.model:=scripted",
            "-p", f"memory.path:={memory_path}", "-p", "memory.k:=8",
            "-p", "timeouts.first_scene_s:=30.0"]
    for key, value in extra.items():
        args += ["-p", f"{key}:={value}"]
    return args


@contextmanager
def running_robot(log_dir, llm_url, memory, time_scale=0.0, tag="", **node_params):
    """The simulator and the interaction node as processes, the test as user/observer;
    yields (observer, {'sim': ..., 'node': ...}); every process in the dict is stopped after
    (a test may replace one, e.g. a restarted simulator)."""
    procs = {"sim": NodeProcess(SIM, log_dir / f"sim{tag}.log",
                                ros_args=["-p", f"time_scale:={time_scale}"])}
    procs["node"] = NodeProcess(NODE, log_dir / f"node{tag}.log",
                                ros_args=node_args(llm_url, memory, **node_params))
    try:
        with probe_node() as probe:
            user = Observer(probe, procs["node"])
            procs["node"].wait_for_log("interaction_node ready", 120)
            user.wait_connected()
            yield user, procs
    finally:
        for proc in procs.values():
            proc.stop()


@contextmanager
def instructed_robot(tmp, **node_params):
    """:func:`running_robot` (time scale 0.5, a short server wait) with a scripted LLM and
    the Instruct action's client (issue 61); yields (observer, llm, procs, instructor)."""
    from fake_llm_server import FakeLLMServer
    from llm_interaction_node.ros.instructor import Instructor
    llm = FakeLLMServer()
    llm.text = "wait_for_trigger()"
    try:
        with running_robot(tmp, llm.url, tmp / "memory", time_scale=0.5,
                           **{"timeouts.server_wait_s": 2.0, **node_params}) as (user, procs):
            with Instructor(server_wait_s=60) as robot:
                yield user, llm, procs, robot
    finally:
        llm.close()


class Observer:
    """The test's view of the robot: speech, transcript, state, the simulator's world."""

    def __init__(self, probe, node=None):
        from llm_interaction_interfaces.msg import ConsoleEntry
        from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import String
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)
        self.probe = probe
        self.node = node          # the interaction node's NodeProcess (see say)
        self._heard_by = set()
        self.said = probe.collect(String, names.TTS_TEXT)
        history = QoSProfile(depth=200, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)
        self.entries = probe.collect(ConsoleEntry, names.TRANSCRIPT, history)
        self.states = probe.collect(String, names.STATE, latched)
        self.worlds = probe.collect(String, names.WORLD_STATE, latched)
        self.asr = probe.node.create_publisher(String, names.ASR_TEXT, 10)
        self.String = String
        self.names = names

    def say(self, text, tries=6, wait_s=10.0):
        """Publish what the person says. The first message to a node can be lost for good: the
        probe's publisher may match the node's subscription before the node matched the
        publisher, and a volatile reader skips what came before its match (seen in CI: the
        request never arrived, the test waited 120 s). So, with the node's process known, the
        first utterance to it is sent again until its log says it heard it; once one arrived,
        the two are matched and every later one is sent once."""
        from llm_interaction_node.ros.nodes.interaction_node import clean_utterance
        node, logged = self.node, clean_utterance(text, 10**9)[:200]    # as the node logs it
        if node is None or node in self._heard_by or not logged:
            self.asr.publish(self.String(data=text))
            return
        heard = re.compile(r"heard:? " + re.escape(repr(logged)))
        before = len(heard.findall(node.log()))
        for _ in range(tries):
            self.asr.publish(self.String(data=text))
            try:
                self.probe.wait_until(lambda: len(heard.findall(node.log())) > before,
                                      wait_s, f"the node to hear {text!r}")
                self._heard_by.add(node)
                return
            except TimeoutError:
                continue
        raise TimeoutError(f"the node never heard {text!r} in {tries} tries:\n"
                           f"{node.log()[-2000:]}")

    def world(self):
        return json.loads(self.worlds[-1].data) if self.worlds else {}

    def transcript(self):
        return "\n".join((">>> " if e.kind == "input" else "") + e.text for e in self.entries)

    def wait_connected(self):
        self.probe.wait_until(
            lambda: self.asr.get_subscription_count() > 0, 60, "the node's ASR subscription"
        )
        self.probe.wait_until(
            lambda: self.states and self.states[-1].data == "idle", 60, "state idle"
        )
        node = self.probe.node            # the node's speech and transcript publishers are known
        self.probe.wait_until(
            lambda: (
                node.count_publishers(self.names.TTS_TEXT) > 0
                and node.count_publishers(self.names.TRANSCRIPT) > 0
            ),
            60,
            "publishers",
        )

    def wait_idle_after(self, n_inputs, timeout=60):
        """Until the robot handed back: a wait_for_trigger() input beyond the first n."""
        def handed_back():
            waits = [
                e for e in self.entries if e.kind == "input" and e.text == "wait_for_trigger()"
            ]
            return len(waits) > n_inputs and self.states[-1].data == "idle"
        self.probe.wait_until(handed_back, timeout, "the robot to hand back\n" + self.transcript())


def test_fetch_learn_and_recall_through_ros(tmp_path):
    llm = FakeLLMServer()
    llm.readings[CORRECTION] = "learn"          # the model's reading of the correction
    memory = tmp_path / "memory"
    try:
        with running_robot(tmp_path, llm.url, memory) as (user, _procs):
            # 1. the request: carried out by the simulator's skill servers
            llm.texts = TWO_TRIPS[:-1] + ["say('Here are the mango juice and the cup.')",
                                          "wait_for_trigger()"]
            user.say(REQUEST)
            user.wait_idle_after(1)
            world = user.world()
            assert world["objects"]["mango-juice_0"]["held_by"] == "human"
            assert world["objects"]["coffee-cup_0"]["held_by"] == "human"
            assert "Here are the mango juice and the cup." in [m.data for m in user.said]
            log = user.transcript()
            assert ">>> grasp('coffee-cup_0')\n'success'" in log
            assert llm.requests[0]["json"]["prompt"].endswith(">>>")

            # 2. the correction: L_improve (three answers) stores an improved example
            llm.texts = ["learn_from_interaction()", PROBLEM, IMPROVEMENT,
                         f"```\n{IMPROVED}\n```", "wait_for_trigger()"]
            user.say(CORRECTION)
            user.wait_idle_after(2)
            assert any("hands" in m.data for m in user.said), [m.data for m in user.said]
            assert llm.texts == []

        # 3. a restarted node (new process, same memory) retrieves it for a similar request
        with running_robot(tmp_path, llm.url, memory, tag="2") as (user, procs):
            probe = user.probe
            n_before = len(llm.requests)
            llm.texts = ["wait_for_trigger()"]
            user.say("I would like the mango juice and a cup, please")
            user.wait_idle_after(1)
            prompt = llm.requests[n_before]["json"]["prompt"]
            examples = prompt[: prompt.index("# Current interaction:")]
            assert examples.rstrip().endswith(IMPROVED)      # most similar last

            # 4. the services: memory, learn (forced, no utterance gate), reset
            memory = call(probe, ManageMemory, names.MEMORY,
                          ManageMemory.Request(command="list", argument="learned"))
            learned = json.loads(memory.result_json)
            assert memory.success and len(learned) == 1 and REQUEST in learned[0]["utterances"]
            search = call(probe, ManageMemory, names.MEMORY,
                          ManageMemory.Request(command="search", argument=REQUEST))
            assert learned[0]["id"] in [e["id"] for e in json.loads(search.result_json)]
            bad = call(probe, ManageMemory, names.MEMORY, ManageMemory.Request(command="drop"))
            assert not bad.success and "unknown command" in bad.message
            llm.texts = [PROBLEM, IMPROVEMENT, f"```\n{IMPROVED}\n```"]
            learn = call(probe, Learn, names.LEARN, Learn.Request())
            assert learn.success and "Learned" in learn.message, learn.message
            count = call(probe, ManageMemory, names.MEMORY, ManageMemory.Request(command="list",
                                                                                argument="learned"))
            assert len(json.loads(count.result_json)) == 2
            reset = call(probe, Trigger, names.RESET, Trigger.Request())
            assert reset.success
            probe.wait_until(lambda: any(e.text == NEW_TASK_MARKER for e in user.entries
                                         if e.kind == "note"), 30,
                             "a new-task marker on the transcript\n" + user.transcript())
            assert procs["node"].alive() and procs["sim"].alive()
    finally:
        llm.close()

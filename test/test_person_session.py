"""Issue 44 item 5: a person's session, end to end through ROS.

The graph starts as ``llm-interaction run --world drinks_and_cup --record BAG --memory-path M``
starts it: the same node specs, params files and option overrides (ros/graph.py), each node its
own process (recorder first, household simulator, tts, interaction node). This test is the
person: it says things as text on ``speech/asr_text`` and watches the speech, transcript and
world topics. Session 1: a request ("bring me the juice"), the robot brings the juice; a
correction ("you forgot the glass"), the robot brings the glass; a learn request, the robot
learns (L_improve's rewrite, replayed in the node, stored in ChromaDB). Then the interaction
node is restarted (a new process on the same memory directory; the person puts the things back:
the simulator's reset), and the request comes in another wording. The lesson must be in that
request's prompt (the nearest example, right before the interaction), and the world must end
as the lesson says (the juice AND the glass handed over): the stand-in for the model writes
the statements of the example right before the interaction, one per call, as a model that copies
its nearest example would; without the lesson that example is a seed and the glass stays on
the counter. The recorder runs through both sessions: the bag holds all of it, in order.

Only the LLM is a stand-in (an OpenAI-compatible server: scripted statements in session 1, the
copying stand-in in session 2, the readings of every utterance given); ROS (FastDDS, separate
processes), ChromaDB, the embeddings, the simulator and the replay check are real.
"""
import json
import re

import pytest
from llm_interaction_interfaces.srv import ManageMemory
from std_srvs.srv import Trigger

from fake_llm_server import FakeLLMServer
from learning_support import examples_of
from llm_interaction_node.core.console.prompt import CURRENT_HEADING
from llm_interaction_node.core.transcript.transcript import Transcript
from llm_interaction_node.ros import names
from llm_interaction_node.ros.bag import read_bag
from llm_interaction_node.ros.graph import (
    argument_environment,
    argument_overrides,
    command_line,
    graph_nodes,
)
from ros_support import NodeProcess, probe_node
from test_ros_e2e import Observer, call

pytestmark = pytest.mark.slow

REQUEST = "bring me the juice, please"
FORGOT = "you forgot the glass"
LESSON = "thanks. whenever you bring me the juice, bring me the glass too. remember that"
AGAIN = "could I have the mango juice?"              # the request in another wording
READINGS = {REQUEST: "do: mango juice -> me", FORGOT: "do: tumbler -> none",
            LESSON: "learn", AGAIN: "do: mango juice -> me"}
JUICE = "bring_object_to('mango-juice_0', 'handover_to_human')"
GLASS = "bring_object_to('tumbler_0', 'handover_to_human')"
GLASS_TOO = GLASS + "  # the glass comes with the juice"
WAIT = "wait_for_trigger()"
PROBLEM = "The robot brought the juice without the glass, and the user had to ask for it."
IMPROVEMENT = "Whenever the user asks for the juice, bring the glass with it."
IMPROVED = f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': '{REQUEST}'}}
>>> {JUICE}
'success'
>>> {GLASS_TOO}
'success'
>>> say('Here are the juice and a glass.')
>>> wait_for_trigger()"""
VALUES = {"world": "drinks_and_cup", "llm_model": "scripted"}


def copy_the_nearest_example(body: dict) -> str | None:
    """The stand-in of session 2: the next statement of the example right before the
    interaction (None for what is no console prompt: the fake server's script answers)."""
    prompt = body.get("prompt")
    if not isinstance(prompt, str) or CURRENT_HEADING not in prompt:
        return None
    example = Transcript.parse(examples_of(prompt)[-1])
    current = Transcript.parse(prompt.split(CURRENT_HEADING, 1)[1].rsplit(">>>", 1)[0])

    def after_request(transcript):
        entries = [e for e in transcript.entries if not e.is_comment]
        start = next(i for i, e in enumerate(entries) if e.calls("wait_for_trigger"))
        return [e.source for e in entries[start + 1:]]
    plan, done = after_request(example), after_request(current)
    return plan[len(done)] if len(done) < len(plan) else WAIT


class Graph:
    """The sim graph with the recorder, started node by node as `run --record` starts it;
    the interaction node can be restarted alone."""

    def __init__(self, tmp_path, llm_url):
        self.tmp = tmp_path
        values = {**VALUES, "llm_base_url": llm_url, "memory_path": str(tmp_path / "memory")}
        self.specs = {s.name: s for s in graph_nodes("sim", record=True)}
        self.overrides = argument_overrides(list(self.specs.values()), values)
        self.overrides.setdefault("recorder", {})["path"] = str(tmp_path / "bag")
        self.overrides.setdefault("tts", {})["wav_dir"] = str(tmp_path / "wav")
        self.overrides.setdefault("household_sim", {})["time_scale"] = 0.0
        self.env = argument_environment(values)
        self.procs: dict[str, NodeProcess] = {}
        assert list(self.specs)[0] == "recorder"          # started first, stopped last

    def start(self, name, tag=""):
        cmd = command_line(self.specs[name], self.overrides.get(name))
        assert cmd[3] == "--ros-args"
        self.procs[name] = NodeProcess(self.specs[name].module, self.tmp / f"{name}{tag}.log",
                                       ros_args=cmd[4:], env=self.env.get(name))
        return self.procs[name]

    def stop(self, name):
        return self.procs.pop(name).stop(timeout=30)

    def stop_all(self):
        for name in [n for n in self.procs if n != "recorder"] + ["recorder"]:
            if name in self.procs:
                self.stop(name)


def listening(probe, node_name="interaction_node"):
    """The interaction node subscribes to what the person says."""
    topic = "/" + names.ASR_TEXT
    return any(i.node_name == node_name for i in probe.node.get_subscriptions_info_by_topic(topic))


def inputs(user, since=0):
    return [e.text for e in user.entries[since:] if e.kind == "input"]


def wait_handed_back(user, since, n, what, timeout=120):
    """Until the robot handed back ``n`` times after entry ``since`` and is idle."""
    user.probe.wait_until(lambda: inputs(user, since).count(WAIT) >= n
                          and user.states[-1].data == "idle", timeout,
                          f"{what}\n{user.transcript()}")


def test_a_persons_session_the_lesson_is_used_by_a_restarted_node(tmp_path):
    llm = FakeLLMServer()
    llm.readings.update(READINGS)
    llm.text = WAIT
    graph = Graph(tmp_path, llm.url)
    try:
        graph.start("recorder").wait_for_log("recorder ready", 60)
        graph.start("household_sim")
        graph.start("tts")
        node = graph.start("interaction_node")
        with probe_node() as probe:
            user = Observer(probe, node)
            node.wait_for_log("interaction_node ready", 180)
            user.wait_connected()

            # -- session 1: the request, the correction, the lesson ---------------------------
            llm.texts = [JUICE, "say('Here is the juice.')", WAIT]
            user.say(REQUEST)
            wait_handed_back(user, 0, 2, "the juice brought")
            assert user.world()["objects"]["mango-juice_0"]["held_by"] == "human"
            assert user.world()["objects"]["tumbler_0"]["held_by"] is None

            llm.texts = [GLASS, "say('Here is the glass.')", WAIT]
            user.say(FORGOT)
            wait_handed_back(user, 0, 3, "the glass brought")
            assert user.world()["objects"]["tumbler_0"]["held_by"] == "human"

            llm.texts = ["learn_from_interaction()", PROBLEM, IMPROVEMENT,
                         f"```\n{IMPROVED}\n```", WAIT]
            user.say(LESSON)
            wait_handed_back(user, 0, 4, "the lesson learned")
            assert llm.texts == []
            outputs = "\n".join(e.text for e in user.entries if e.kind == "output")
            assert "Learned from this interaction" in outputs, user.transcript()
            said_1 = [m.data for m in user.said]
            assert any("glass" in s for s in said_1[2:]), said_1     # what was learned, said
            # every utterance was read by the model (the stand-in), each once (the reading
            # prompts; the questions asked about a reading after it are not readings)
            read = [r["json"]["prompt"].rsplit("\nsaid: ", 1)[-1].split("\n", 1)[0]
                    for r in llm.reading_requests
                    if r["json"]["prompt"].endswith("\nreading:\n-")]
            assert [REQUEST, FORGOT, LESSON] == [u for u in read if u in READINGS], read

            # -- a new process on the same memory; the person puts the things back ------------
            assert graph.stop("interaction_node") == 0
            probe.wait_until(lambda: not listening(probe), 30, "the old node gone")
            reset = call(probe, Trigger, names.WORLD_RESET, Trigger.Request())
            assert reset.success, reset.message
            probe.wait_until(lambda: user.world()["objects"]["mango-juice_0"]["held_by"] is None,
                             30, "the world reset")
            entries_before, states_before = len(user.entries), len(user.states)
            node = user.node = graph.start("interaction_node", tag="2")
            node.wait_for_log("interaction_node ready", 180)
            probe.wait_until(lambda: listening(probe) and len(user.states) > states_before
                             and user.states[-1].data == "idle", 60, "the new node listening")
            learned = call(probe, ManageMemory, names.MEMORY,
                           ManageMemory.Request(command="list", argument="learned"))
            lessons = json.loads(learned.result_json)
            assert learned.success and len(lessons) == 1, lessons
            assert REQUEST in lessons[0]["utterances"]

            # -- session 2: the request in another wording ------------------------------------
            llm.answer = copy_the_nearest_example
            asked = len(llm.requests)
            user.say(AGAIN)
            wait_handed_back(user, entries_before, 2, "the request again")
            prompt = llm.requests[asked]["json"]["prompt"]
            # most similar last, read in the request at hand's words (the two readings have
            # one shape: core/memory/meaning.py)
            shown = IMPROVED.replace(REQUEST, AGAIN)
            assert examples_of(prompt)[-1] == shown, examples_of(prompt)[-1]
            assert inputs(user, entries_before) == [WAIT, JUICE, GLASS_TOO,
                                                    "say('Here are the juice and a glass.')",
                                                    WAIT]
            world = user.world()["objects"]
            assert world["mango-juice_0"]["held_by"] == "human"
            assert world["tumbler_0"]["held_by"] == "human"      # the lesson, in the world
            transcript = user.transcript()
        assert graph.stop("interaction_node") == 0
        graph.stop_all()
    finally:
        graph.stop_all()
        llm.close()

    # -- the bag holds all of it, in order ------------------------------------------------------
    bag = tmp_path / "bag"
    dialogue = []
    for topic, _, _, msg in read_bag(bag):
        if topic == "/speech/asr_text":
            dialogue.append(("user", msg.data))
        elif topic == "/speech/tts_text":
            dialogue.append(("says", msg.data))
        elif topic == "/interaction/transcript" and msg.kind in ("input", "output"):
            dialogue.append((msg.kind, msg.text))
        elif topic == "/interaction/skills":
            event = json.loads(msg.data)
            if event["event"] == "goal":
                dialogue.append(("goal", event["skill"]))
    want = [("user", REQUEST), ("input", JUICE), ("goal", "handover"),
            ("says", "Here is the juice."),
            ("user", FORGOT), ("input", GLASS), ("goal", "handover"),
            ("says", "Here is the glass."),
            ("user", LESSON), ("input", "learn_from_interaction()"),
            ("user", AGAIN), ("input", JUICE), ("goal", "handover"), ("input", GLASS_TOO),
            ("goal", "handover"), ("says", "Here are the juice and a glass.")]
    at, positions = 0, []
    for item in want:                      # each in order after the one before it
        at = next((i for i in range(at, len(dialogue)) if dialogue[i] == item), None)
        assert at is not None, (item, dialogue)
        positions.append(at)
        at += 1
    learned_at = next(i for i, (kind, text) in enumerate(dialogue)
                      if kind == "output" and text.startswith("Learned from this interaction"))
    assert positions[9] < learned_at < positions[10]    # stored before the second session
    states = [msg.data for t, _, _, msg in read_bag(bag) if t == "/interaction/state"]
    assert states.count("learning") == 0 and "busy" in states and states[-1] == "idle"
    worlds = [json.loads(msg.data) for t, _, _, msg in read_bag(bag)
              if t == "/household_sim/world_state"]
    assert worlds[-1]["objects"]["tumbler_0"]["held_by"] == "human"
    assert re.search(r">>> " + re.escape(GLASS), transcript)

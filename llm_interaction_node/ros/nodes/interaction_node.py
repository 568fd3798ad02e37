"""The interaction node: the LLM agent driving a robot through ROS 2 skills and speech.

Wiring only: the session (console, LLM, memory, learner, agent) comes from
:func:`~llm_interaction_node.session.build_session`; this node gives it the ROS robot, the
utterance queue and the publishers. Threads (see docs/architecture.md): the agent runs in
its own worker thread and blocks there (on the LLM, on skill results, on the user); a
single-threaded executor runs the short callbacks (speech, perception, stop, reset, action
client futures) and never waits for the worker; the slow learn/memory services run on a
second node (``<name>_services``) with its own executor thread. (rclpy's multi-threaded
executor tripled the skill round trip here.) Utterances are queued (nothing is lost while
the robot is busy); a stop cancels the running skill goal and abandons the running LLM call
at once.

    python -m llm_interaction_node.ros.nodes.interaction_node --ros-args \\
        --params-file config/interaction_node.yaml -p llm.base_url:=http://localhost:8000/v1
"""
from __future__ import annotations

import logging
import re
import sys
import threading
import time
import traceback
from pathlib import Path

import rclpy
from llm_interaction_interfaces.msg import AsrResult, ConsoleEntry, Scene
from llm_interaction_interfaces.srv import Learn, ManageMemory
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from std_msgs.msg import Bool, Empty, String
from std_srvs.srv import Trigger

from ...core.apis.knowledge import StaticKnowledge
from ...core.llm import NoLLM, make_client
from ...core.llm.progress import ProgressReporter
from ...core.llm.warmup import Warmup, route_progress
from ...core.memory.connection import MemoryStoreError
from ...core.memory.fleet import default_robot_id
from ...core.settings.world_file import read_world_file
from ...core.transcript.errors import EndOfInteraction
from ...core.transcript.transcript import Entry
from ...core.user.channel import EventQueue
from ...core.user.interrupt import StopSignal
from ...core.user.speech_pause import SpeechPause
from ...paths import world_path
from ...replay import household_start_from_scene
from ...session import build_session
from .. import interaction_parameters as parameters
from ..instruct_server import InstructServer
from ..interaction_state import IDLE, InteractionState, StateChannel
from ..markers import SceneMarkerPublisher
from ..memory_service import MemoryService, error_text, export_directory
from ..node_main import run_node
from ..qos import LATCHED, latched
from ..robot.humanoid import RosHumanoidRobot
from ..robot.scene_memory import SceneMemory
from ..robot.skill_client import SkillClient
from ..robot.skill_events import BasePoseTracker, SkillEventClient
from ..skills import SKILL_TYPES
from ..speech.asr_engine import is_stop_command

MATCH_WAIT_S = 1.0      # how long a publish waits for a discovered subscriber to be matched
# the transcript keeps its last entries for late joiners (a console started after the node)
HISTORY = latched(200)
# what the robot said and the skill events also keep their last messages: a recorder whose
# subscription this node discovers only after the first ``say`` (measured under load in CI: the
# run's first sentence was missing from the bag) still gets them; volatile subscribers (the tts
# node, the speech console) match as before and get only what comes after they joined
RECENT = latched(100)
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x1f\x7f-\x9f]")   # ANSI CSI, controls
QUEUED_NOTICE = ("I heard you. I am still busy, so I queued what you said: {n} requests are "
                 "waiting, and I will answer them in order.")
AGENT_FAILED = ("Something went wrong inside me, so I started over and forgot what we were "
                "doing. Please say your request again.")
RESTART_PAUSE_S = 1.0       # between two restarts of a failing agent loop


def clean_utterance(text: str, max_chars: int) -> str:
    """Recognised speech as the LLM gets it: control characters removed, whitespace
    collapsed, cut to ``max_chars`` with a note."""
    text = " ".join(_CONTROL.sub(" ", text).split())
    if len(text) > max_chars:
        text = text[:max_chars].rstrip() + f" [... cut: {len(text)} characters in all]"
    return text


class InteractionNode(Node):
    """The agent over ROS. The state (``idle``/``busy``/``learning``, latched on the state
    topic) is :mod:`..interaction_state`'s; the memory service is :mod:`..memory_service`'s."""

    def __init__(self) -> None:
        super().__init__("interaction_node")
        self._first_sent: set[int] = set()      # publishers whose first message went out
        self.config = config = parameters.read(parameters.declare(self))
        own, ifaces = config.node, config.names
        self.stop_signal = StopSignal()
        self.queue = EventQueue(stop=self.stop_signal)
        # while the user speaks, no statement and no skill goal starts (issue 27)
        speech = own.asr
        self.speech_pause = SpeechPause(self.stop_signal, after_s=speech.pause_after_speech_s,
                                        max_s=speech.pause_max_s) \
            if speech.pause_after_speech_s > 0 else None
        self._running: str | None = None      # the statement published as running
        group = ReentrantCallbackGroup()
        log = self.get_logger()
        self._log_bridge = RosLogHandler(log)        # the core's logging in the ROS format
        logging.getLogger("llm_interaction_node").addHandler(self._log_bridge)
        logging.getLogger("llm_interaction_node").setLevel(logging.INFO)
        self._queued_notice = False                  # said for the current flood

        # perception + static knowledge -> the ROS robot
        knowledge = StaticKnowledge.from_yaml(world_path(own.knowledge))
        self.scene_memory = SceneMemory(knowledge, warn=log.warning,
                                        empty_after_s=own.scene.empty_after_s,
                                        empty_messages=own.scene.empty_messages)
        self.create_subscription(Scene, ifaces["topics.scene"], self.scene_memory.update, 10,
                                 callback_group=group)
        skills = {
            skill: SkillClient(self, action_type, ifaces[f"actions.{skill}"], self.stop_signal,
                               callback_group=group, server_wait_s=own.timeouts.server_wait_s,
                               accept_s=own.timeouts.accept_s, before_goal=self._hold_for_speech)
            for skill, action_type in SKILL_TYPES.items()}
        # for viewers and the recorder: skill goals/results on a topic, the scene as markers
        skill_events = self.create_publisher(String, ifaces["topics.skill_events"], RECENT)
        self.base_pose = BasePoseTracker()
        skills = {skill: SkillEventClient(skill, client, lambda text: self._send(
                      skill_events, String(data=text)), self.base_pose.on_outcome)
                  for skill, client in skills.items()}
        self.markers = SceneMarkerPublisher(self, self.scene_memory, ifaces["topics.markers"],
                                            ifaces["markers.frame_id"], lambda: self.base_pose.pose,
                                            callback_group=group)
        self.robot = RosHumanoidRobot(skills, self.scene_memory,
                                      now_ns=lambda: self.get_clock().now().nanoseconds,
                                      timeouts=own.timeouts, on_failure=self._skill_unavailable)

        # speech, transcript, state
        self.tts = self.create_publisher(String, ifaces["topics.tts_text"], RECENT)
        self.transcript = self.create_publisher(ConsoleEntry, ifaces["topics.transcript"], HISTORY)
        self.state = self.create_publisher(String, ifaces["topics.state"], LATCHED)
        self.interaction_state = InteractionState(
            lambda state: self._send(self.state, String(data=state)), log.debug)
        self.llm_progress = self.create_publisher(String, ifaces["topics.llm_progress"], 10)
        self.create_subscription(String, ifaces["topics.asr_text"], self._on_utterance, 100,
                                 callback_group=group)
        self.create_subscription(
            Empty,
            ifaces["topics.stop"],
            lambda _m: self.request_stop("stop topic"),
            10,
            callback_group=group,
        )
        self.create_service(Trigger, ifaces["services.stop"], self._on_stop_service,
                            callback_group=group)
        if self.speech_pause is not None:
            pause = self.speech_pause
            self.create_subscription(Bool, ifaces["topics.voice_activity"],
                                     lambda msg: pause.speaking(bool(msg.data)), LATCHED,
                                     callback_group=group)
            self.create_subscription(AsrResult, ifaces["topics.asr_result"],
                                     lambda _msg: pause.handled(), 50, callback_group=group)
        self.create_service(Trigger, ifaces["services.reset"], self._on_reset, callback_group=group)
        # the core: console, LLM, memory, learner, agent
        llm = make_client(config.settings.llm, required=False)
        if hasattr(llm, "progress"):    # a long prompt: a line every few seconds, log + topic
            llm.progress = ProgressReporter(self._report_llm_progress)
        if isinstance(llm, NoLLM):
            log.error(f"{llm.describe()}: requests are answered with an error until "
                      "llm.base_url is set")
        if config.settings.memory.enabled:
            log.info("opening the example memory (first start: exports the embedding model) ...")
        # learned examples are replayed in a household world built from the knowledge file
        # and what the robot perceives when the interaction starts (session.py)
        knowledge_file = world_path(own.knowledge)
        channel = StateChannel(self.queue, self.interaction_state, self._flood_answered)
        # other nodes instruct the robot through an action (its own node and executor):
        # its goals go into the same queue as speech (ros/instruct_server.py)
        self.instruct = InstructServer(
            self, self.queue, self.interaction_state, self.stop_signal, self.request_stop,
            lambda text: clean_utterance(text, own.asr.max_chars), own.instruct,
            ifaces["servers.instruct"], ifaces["services.answer"])
        channel.requests = self.instruct
        # each lesson records this robot and its world (a fleet on one memory.host, issue 61)
        memory = config.settings.memory
        memory.robot_id = memory.robot_id or default_robot_id(self.get_namespace())
        world = str(read_world_file(knowledge_file).get("name") or Path(knowledge_file).stem)
        self.session = build_session(own.api, self.robot, channel, config.settings,
                                     llm=llm, speak=self.say, stop=self.stop_signal,
                                     api_options=own.robot.api_options(),
                                     replay_start=lambda: household_start_from_scene(
                                         knowledge_file, self.scene_memory.objects()),
                                     input_listeners=[self._hold_for_speech,
                                                      self.instruct.before_statement,
                                                      self._scene_statement,
                                                      self._publish_input],
                                     listeners=[self._publish_entry, self._scene_boundary,
                                                self.instruct.entry],
                                     world=world)
        self.console, self.agent = self.session.console, self.session.agent
        self.instruct.bind(self.agent, self.session.learner)
        # a stateful model (the embedded one) evaluates the start of its prompts when the node
        # starts, in the background: the robot listens at once (state `warming`), a request
        # waits for it (core/llm/warmup.py); progress lines with the percentage in the log and on
        # the progress topic
        steps = self.agent.warm_up_steps()
        self.warmup = Warmup(steps, write=self._report_warm_up,
                             on_done=lambda: self.interaction_state.warming(False)) \
            if steps else None
        if self.warmup is not None:
            route_progress(llm, self.warmup)
            self.agent.warmup = self.warmup

        # learning and memory requests take seconds (LLM, embeddings): they are served by a
        # second node with its own executor thread, so they never delay a skill's result. Its
        # own name: a global `-r __node:=NAME` (graph, launch) would rename it too.
        services_name = f"{self.get_name()}_services"
        self.services_node = Node(services_name, namespace=self.get_namespace(),
                                  context=self.context,
                                  cli_args=["--ros-args", "-r", f"__node:={services_name}"])
        self.services_node.create_service(Learn, ifaces["services.learn"], self._on_learn)
        # exports only as plain file names into export_dir (default <memory.path>/exports)
        memory = MemoryService(self.session.memory,
                               export_directory(own.export_dir, config.settings.memory.path))
        self.services_node.create_service(ManageMemory, ifaces["services.memory"], memory)
        self._worker = threading.Thread(target=self._work, name="agent", daemon=True)

    # -- life cycle ---------------------------------------------------------------------
    def start(self) -> None:
        if not self.scene_memory.wait_for_first(self.config.node.timeouts.first_scene_s):
            self.get_logger().warning(
                f"no scene on {self.config.names['topics.scene']!r} yet: the robot knows only "
                "the configured furniture until perception publishes")
        if self.warmup is not None:
            self.interaction_state.warming(True)
            self.warmup.start()
        self._worker.start()
        self.get_logger().info(f"interaction_node ready: {self.session.llm.describe()}; "
                               f"memory: {self.session.memory_note}; robot "
                               f"{self.config.settings.memory.robot_id!r}"
                               + ("; warming up the model in the background"
                                  if self.warmup is not None else ""))

    def _work(self) -> None:
        """The agent's thread: run; on an unexpected error, log it, tell the user, start a
        new task. Nothing but the shutdown ends it (a failing recovery is logged and tried
        again), so the node always answers the next request."""
        while True:
            try:
                self.agent.run()
                return                                  # the queue was closed: shutdown
            except EndOfInteraction:
                return
            except Exception:  # noqa: BLE001 - the node must keep serving
                if self.queue.closed:
                    return
                self.get_logger().error("the agent failed; starting a new interaction:\n"
                                        + traceback.format_exc())
                self._recover()

    def _recover(self) -> None:
        """After the agent failed: a new task (its own failure logged), the user told."""
        try:
            self.console.new_task(marker=True)
        except Exception:  # noqa: BLE001 - the next run() starts one again
            self.get_logger().error("starting a new interaction failed:\n"
                                    + traceback.format_exc())
            time.sleep(RESTART_PAUSE_S)
        self.say(AGENT_FAILED)

    @property
    def extra_nodes(self) -> tuple[Node, ...]:
        """Spun by an executor of their own (run_node): a learn call never blocks the topics,
        an Instruct goal's execution never blocks them either."""
        return (self.services_node, self.instruct.node)

    def close(self) -> None:
        """Stop the agent's worker (run_node calls it before ROS shuts down)."""
        self.queue.close()
        self.stop_signal.request("shutdown", idle=True)
        self._worker.join(timeout=5)
        self.instruct.close()                    # goals not ended end as failed
        self.console.close()                     # the sandbox worker process
        logging.getLogger("llm_interaction_node").removeHandler(self._log_bridge)

    # -- speech / transcript --------------------------------------------------------------
    def _report_warm_up(self, line: str) -> None:
        self.get_logger().info(line)
        self._send(self.llm_progress, String(data=line))

    def _report_llm_progress(self, line: str) -> None:
        self.get_logger().info(line)
        self._send(self.llm_progress, String(data=line))

    def _send(self, publisher, msg) -> None:
        """Publish from any thread; after shutdown began, drop instead of failing. Before a
        publisher's first message, a subscriber discovered but not yet matched (a recorder or
        tts node that just started) is waited for up to :data:`MATCH_WAIT_S`, once: measured,
        under load the first ``say`` and skill goal of a run were lost to the bag and the tts
        node (volatile topics drop what is sent before the match); a subscriber that never
        matches (another QoS) must not stall every message."""
        try:
            if id(publisher) not in self._first_sent:
                self._first_sent.add(id(publisher))
                deadline = time.monotonic() + MATCH_WAIT_S
                while publisher.get_subscription_count() < len(
                        self.get_subscriptions_info_by_topic(publisher.topic_name)) \
                        and time.monotonic() < deadline:
                    time.sleep(0.01)
            publisher.publish(msg)
        except Exception as exc:  # noqa: BLE001 - rclpy raises RCLError once the context is gone
            if rclpy.ok(context=self.context):
                self.get_logger().error(f"publishing on {publisher.topic_name} failed: {exc}")

    def say(self, text: str) -> None:
        self.instruct.said(str(text))
        self._send(self.tts, String(data=str(text)))

    def _publish(self, kind: str, text: str) -> None:
        self._send(self.transcript, ConsoleEntry(stamp=self.get_clock().now().to_msg(),
                                                 task_id=_task_number(self.console.task_id),
                                                 kind=kind, text=text))

    def _hold_for_speech(self, _source: str | None = None) -> None:
        """Before a statement or a skill goal starts: wait while the user speaks; a stop
        said meanwhile raises InteractionAborted (the turn ends as stopped)."""
        if self.speech_pause is not None and not self.interaction_state.idle:
            self.speech_pause.hold()

    def _scene_statement(self, _source: str) -> None:
        """Before a statement runs (after the speech pause, which may abort it): the scene
        view keeps its objects until the statement ends (an empty scene waits for the end)."""
        self.scene_memory.statement_started()

    def _scene_boundary(self, _entry: Entry) -> None:
        """After an entry is recorded (the statement's, an annotation, a new task's marker):
        a statement boundary, where an empty scene may empty the view."""
        self.scene_memory.statement_ended()

    def _publish_input(self, source: str) -> None:
        """Before a statement runs: publish it, so listeners see what the robot is doing."""
        self._running = source
        self._publish(
            ConsoleEntry.KIND_NOTE if Entry(source).is_comment else ConsoleEntry.KIND_INPUT, source
        )

    def _publish_entry(self, entry: Entry) -> None:
        """After an entry is recorded: its output; annotations (never run) as notes."""
        announced, self._running = entry.source == self._running, None
        if not announced:
            self._publish(ConsoleEntry.KIND_NOTE, entry.source)
        if entry.output:
            kind = ConsoleEntry.KIND_ERROR if entry.error else ConsoleEntry.KIND_OUTPUT
            self._publish(kind, entry.output)

    def _on_utterance(self, msg: String) -> None:
        text = clean_utterance(msg.data, self.config.node.asr.max_chars)
        if not text:
            return
        busy = not self.interaction_state.idle
        if busy and is_stop_command(text):
            # "stop" typed or sent as text while the robot acts is a stop, as the asr node's
            # barge-in (safety first: a word match, never a model); it is no request
            self.get_logger().info(f"heard {text[:200]!r} while busy: a stop")
            self.request_stop(f"the user said {text[:60]!r}")
            return
        self.queue.put(text)
        self.get_logger().info(f"heard: {text[:200]!r}" + (" (queued, robot busy)" if busy else ""))
        waiting = self.queue.pending()
        notice_at = self.config.node.asr.queued_notice
        if busy and notice_at > 0 and waiting >= notice_at and not self._queued_notice:
            self._queued_notice = True               # once per flood (reset when drained)
            self.say(QUEUED_NOTICE.format(n=waiting))

    def _flood_answered(self) -> None:
        """The robot waits for a request and none is queued: the next flood is told again."""
        self._queued_notice = False

    def _skill_unavailable(self, skill: str, outcome) -> None:
        self.say(f"My {skill.replace('_', ' ')} skill is not working: {outcome.message}.")

    # -- stop / reset / learn / memory --------------------------------------------------
    def request_stop(self, reason: str) -> bool:
        """Stop what runs; False (and nothing happens) while the robot is idle."""
        if self.interaction_state.idle:
            return False                   # nothing runs; do not abort the next request
        self.get_logger().info(f"stop requested ({reason})")
        self.stop_signal.request(reason)
        return True

    def _on_stop_service(self, _request, response):
        running = self.request_stop("stop service")
        response.success = True
        response.message = "stopping" if running else "nothing was running"
        return response

    def _on_reset(self, _request, response):
        if not self._worker.is_alive():
            response.success = False
            response.message = "the agent is not running (see the node's log); nothing was reset"
            return response
        self.agent.request_reset("reset service")
        response.success, response.message = True, "the interaction was reset"
        return response

    def _on_learn(self, request, response):
        if request.utterance.strip():
            self.queue.put(clean_utterance(request.utterance, self.config.node.asr.max_chars))
            response.success = True
            response.message = "queued as a user utterance; the robot acts on it and learns"
            return response
        learner = self.session.learner
        if learner is None:
            response.success, response.message = False, "learning is off (memory or learning.mode)"
            return response
        if not self.interaction_state.begin_learning():
            response.success = False
            response.message = "the robot is busy; call again when the state topic says idle"
            return response
        try:
            outcome = self.session.learn(force=True)
            response.success, response.message = outcome.stored, outcome.message
        except Exception as exc:  # noqa: BLE001 - report, keep running
            self.get_logger().error(f"learning failed: {error_text(exc)}")
            response.success, response.message = False, f"learning failed: {error_text(exc)}"
        finally:
            self.interaction_state.set(IDLE)
        return response


class RosLogHandler(logging.Handler):
    """Python logging (the core: agent, learner, memory) to a ROS logger, so those lines
    are in the ROS log format ("[ERROR] [stamp] [interaction_node]: LLM failed: ...")."""

    def __init__(self, ros_logger):
        super().__init__(logging.INFO)
        self.ros_logger = ros_logger

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
            if record.levelno >= logging.ERROR:
                self.ros_logger.error(text)
            elif record.levelno >= logging.WARNING:
                self.ros_logger.warning(text)
            else:
                self.ros_logger.info(text)
        except Exception:  # noqa: BLE001 - logging must never break the node
            self.handleError(record)


def _task_number(task_id: str) -> int:
    return int(task_id[:8], 16) if task_id else 0


def main(args=None) -> int:
    return run_node(InteractionNode, "interaction_node", args,
                    expected=(ValueError, OSError, KeyError, MemoryStoreError))


if __name__ == "__main__":
    sys.exit(main())

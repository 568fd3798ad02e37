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

import json
import logging
import re
import sys
import threading
import traceback
from pathlib import Path

import rclpy
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import Bool, Empty, String
from std_srvs.srv import Trigger

from llm_interaction_interfaces.msg import AsrResult, ConsoleEntry, Scene
from llm_interaction_interfaces.srv import Learn, ManageMemory

from ...core.apis.knowledge import StaticKnowledge
from ...core.errors import EndOfInteraction
from ...core.interrupt import StopSignal
from ...core.llm import NoLLM, make_client
from ...core.llm.progress import ProgressReporter
from ...core.memory import commands
from ...core.memory.store import MemoryStoreError
from ...core.speech_pause import SpeechPause
from ...core.transcript import Entry
from ...core.user import EventQueue
from ...paths import world_path
from ..node_main import run_node
from ...replay import household_start_from_scene
from ...session import build_session
from .. import interaction_parameters as parameters
from ..robot.humanoid import SKILL_TYPES, RosHumanoidRobot
from ..markers import SceneMarkerPublisher
from ..robot.scene_memory import SceneMemory
from ..robot.skill_events import BasePoseTracker, SkillEventClient
from ..robot.skill_client import SkillClient

LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
# the transcript keeps its last entries for late joiners (a console started after the node)
HISTORY = QoSProfile(depth=200, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x1f\x7f-\x9f]")   # ANSI CSI, controls
IDLE, BUSY, LEARNING = "idle", "busy", "learning"
QUEUED_NOTICE = ("I heard you. I am still busy, so I queued what you said: {n} requests are "
                 "waiting, and I will answer them in order.")


def clean_utterance(text: str, max_chars: int) -> str:
    """Recognised speech as the LLM gets it: control characters removed, whitespace
    collapsed, cut to ``max_chars`` with a note."""
    text = " ".join(_CONTROL.sub(" ", text).split())
    if len(text) > max_chars:
        text = text[:max_chars].rstrip() + f" [... cut: {len(text)} characters in all]"
    return text


class InteractionNode(Node):
    """The agent over ROS. The state (``idle``/``busy``/``learning``, latched on the state
    topic) is changed under one condition lock by the agent's worker, the executor and the
    services thread, and published inside it, so it goes out in the order it changed."""

    def __init__(self) -> None:
        super().__init__("interaction_node")
        self.config = config = parameters.read(parameters.declare(self))
        own, ifaces = config.node, config.names
        self.stop_signal = StopSignal()
        self.queue = EventQueue(stop=self.stop_signal)
        # while the user speaks, no statement and no skill goal starts (issue 27)
        speech = own.asr
        self.speech_pause = SpeechPause(self.stop_signal, after_s=speech.pause_after_speech_s,
                                        max_s=speech.pause_max_s) \
            if speech.pause_after_speech_s > 0 else None
        self._state = ""                         # guarded by _state_changed
        self._state_seq = 0
        self._state_changed = threading.Condition()
        self._running: str | None = None      # the statement published as running
        group = ReentrantCallbackGroup()
        log = self.get_logger()
        self._log_bridge = RosLogHandler(log)        # the core's logging in the ROS format
        logging.getLogger("llm_interaction_node").addHandler(self._log_bridge)
        logging.getLogger("llm_interaction_node").setLevel(logging.INFO)
        self._queued_notice = False                  # said for the current flood

        # perception + static knowledge -> the ROS robot
        knowledge = StaticKnowledge.from_yaml(world_path(own.knowledge))
        self.scene_memory = SceneMemory(knowledge, warn=log.warning)
        self.create_subscription(Scene, ifaces["topics.scene"], self.scene_memory.update, 10,
                                 callback_group=group)
        skills = {
            skill: SkillClient(self, action_type, ifaces[f"actions.{skill}"], self.stop_signal,
                               callback_group=group, server_wait_s=own.timeouts.server_wait_s,
                               accept_s=own.timeouts.accept_s, before_goal=self._hold_for_speech)
            for skill, action_type in SKILL_TYPES.items()}
        # for viewers and the recorder: skill goals/results on a topic, the scene as markers
        skill_events = self.create_publisher(String, ifaces["topics.skill_events"], 100)
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
        self.tts = self.create_publisher(String, ifaces["topics.tts_text"], 10)
        self.transcript = self.create_publisher(ConsoleEntry, ifaces["topics.transcript"], HISTORY)
        self.state = self.create_publisher(String, ifaces["topics.state"], LATCHED)
        self.llm_progress = self.create_publisher(String, ifaces["topics.llm_progress"], 10)
        self.create_subscription(String, ifaces["topics.asr_text"], self._on_utterance, 100,
                                 callback_group=group)
        self.create_subscription(Empty, ifaces["topics.stop"],
                                 lambda _m: self.request_stop("stop topic"), 10, callback_group=group)
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
        # learning and memory requests take seconds (LLM, embeddings): they are served by a
        # second node with its own executor thread, so they never delay a skill's result. Its
        # own name: a global `-r __node:=NAME` (graph, launch) would rename it too.
        services_name = f"{self.get_name()}_services"
        self.services_node = Node(services_name, namespace=self.get_namespace(),
                                  context=self.context,
                                  cli_args=["--ros-args", "-r", f"__node:={services_name}"])
        self.services_node.create_service(Learn, ifaces["services.learn"], self._on_learn)
        self.services_node.create_service(ManageMemory, ifaces["services.memory"], self._on_memory)

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
        self.session = build_session(own.api, self.robot, _StateChannel(self), config.settings,
                                     llm=llm, speak=self.say, stop=self.stop_signal,
                                     api_options=own.robot.api_options(),
                                     replay_start=lambda: household_start_from_scene(
                                         knowledge_file, self.scene_memory.objects()))
        self.console, self.agent = self.session.console, self.session.agent
        self.console.input_listeners.append(self._hold_for_speech)
        self.console.input_listeners.append(self._publish_input)
        self.console.listeners.append(self._publish_entry)
        self._worker = threading.Thread(target=self._work, name="agent", daemon=True)

    # -- life cycle ---------------------------------------------------------------------
    def start(self) -> None:
        if not self.scene_memory.wait_for_first(self.config.node.timeouts.first_scene_s):
            self.get_logger().warning(
                f"no scene on {self.config.names['topics.scene']!r} yet: the robot knows only "
                "the configured furniture until perception publishes")
        self._worker.start()
        self.get_logger().info(f"interaction_node ready: {self.session.llm.describe()}; "
                               f"memory: {self.session.memory_note}")

    def _work(self) -> None:
        """The agent's thread: run; on an unexpected error, log it and start a new task."""
        while True:
            try:
                self.agent.run()
                return                                  # the queue was closed: shutdown
            except EndOfInteraction:
                return
            except Exception:  # noqa: BLE001 - the node must keep serving
                self.get_logger().error("the agent failed; starting a new interaction:\n"
                                        + traceback.format_exc())
                self.console.new_task(marker=True)

    @property
    def extra_nodes(self) -> tuple[Node, ...]:
        """Spun by an executor of their own (run_node): a learn call never blocks the topics."""
        return (self.services_node,)

    def close(self) -> None:
        """Stop the agent's worker (run_node calls it before ROS shuts down)."""
        self.queue.close()
        self.stop_signal.request("shutdown", idle=True)
        self._worker.join(timeout=5)
        self.console.close()                     # the sandbox worker process
        logging.getLogger("llm_interaction_node").removeHandler(self._log_bridge)

    # -- state ----------------------------------------------------------------------------
    @property
    def current_state(self) -> str:
        with self._state_changed:
            return self._state

    def set_state(self, state: str) -> None:
        with self._state_changed:
            self._change_state(state)

    def _change_state(self, state: str) -> None:
        """With the lock held: record and publish a change (numbered in the debug log)."""
        if state != self._state:
            self._state_seq += 1
            self.get_logger().debug(f"state #{self._state_seq}: {self._state or '-'} -> {state}")
            self._state = state
            self._send(self.state, String(data=state))
            self._state_changed.notify_all()

    def _begin_learning(self) -> bool:
        """idle -> learning in one step; False if the robot is not idle."""
        with self._state_changed:
            if self._state != IDLE:
                return False
            self._change_state(LEARNING)
            return True

    def _become_busy(self) -> None:
        """The worker got an utterance (or an abort): busy, once a running learn ended."""
        with self._state_changed:
            while self._state == LEARNING:
                self._state_changed.wait()
            self._change_state(BUSY)

    # -- speech / transcript --------------------------------------------------------------
    def _report_llm_progress(self, line: str) -> None:
        self.get_logger().info(line)
        self._send(self.llm_progress, String(data=line))

    def _send(self, publisher, msg) -> None:
        """Publish from any thread; after shutdown began, drop instead of failing."""
        try:
            publisher.publish(msg)
        except Exception as exc:  # noqa: BLE001 - rclpy raises RCLError once the context is gone
            if rclpy.ok(context=self.context):
                self.get_logger().error(f"publishing on {publisher.topic_name} failed: {exc}")

    def say(self, text: str) -> None:
        self._send(self.tts, String(data=str(text)))

    def _publish(self, kind: str, text: str) -> None:
        self._send(self.transcript, ConsoleEntry(stamp=self.get_clock().now().to_msg(),
                                                 task_id=_task_number(self.console.task_id),
                                                 kind=kind, text=text))

    def _hold_for_speech(self, _source: str | None = None) -> None:
        """Before a statement or a skill goal starts: wait while the user speaks; a stop
        said meanwhile raises InteractionAborted (the turn ends as stopped)."""
        if self.speech_pause is not None and self.current_state != IDLE:
            self.speech_pause.hold()

    def _publish_input(self, source: str) -> None:
        """Before a statement runs: publish it, so listeners see what the robot is doing."""
        self._running = source
        self._publish(ConsoleEntry.KIND_NOTE if Entry(source).is_comment else ConsoleEntry.KIND_INPUT,
                      source)

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
        busy = self.current_state != IDLE
        self.queue.put(text)
        self.get_logger().info(f"heard: {text[:200]!r}" + (" (queued, robot busy)" if busy else ""))
        waiting = self.queue.pending()
        notice_at = self.config.node.asr.queued_notice
        if busy and notice_at > 0 and waiting >= notice_at and not self._queued_notice:
            self._queued_notice = True               # once per flood (reset when drained)
            self.say(QUEUED_NOTICE.format(n=waiting))

    def _skill_unavailable(self, skill: str, outcome) -> None:
        self.say(f"My {skill.replace('_', ' ')} skill is not working: {outcome.message}.")

    # -- stop / reset / learn / memory --------------------------------------------------
    def request_stop(self, reason: str) -> bool:
        """Stop what runs; False (and nothing happens) while the robot is idle."""
        if self.current_state == IDLE:
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
        if not self._begin_learning():
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
            self.set_state(IDLE)
        return response

    def _on_memory(self, request, response):
        try:
            result = memory_command(self.session.memory, request.command, request.argument,
                                    export_dir=self.export_dir)
            response.success, response.message = True, "ok"
            response.result_json = json.dumps(result, default=str)
        except Exception as exc:  # noqa: BLE001 - a bad request gets an answer, not a crash
            response.success, response.message = False, error_text(exc)
            response.result_json = "null"
        return response

    @property
    def export_dir(self) -> Path:
        """Where memory exports go: ``export_dir``, by default ``<memory.path>/exports``."""
        configured = self.config.node.export_dir
        return Path(configured or Path(self.config.settings.memory.path) / "exports").expanduser()


class _StateChannel:
    """The console's user channel: the node's queue, idle while waiting for a request."""

    def __init__(self, node: InteractionNode):
        self.node = node

    def next_utterance(self, purpose, prompt=None) -> str:
        if purpose == "trigger":
            self.node.set_state(IDLE)
            if not self.node.queue.pending():
                self.node._queued_notice = False     # the flood is answered
        try:
            return self.node.queue.next_utterance(purpose, prompt)
        finally:
            self.node._become_busy()


def error_text(exc: BaseException) -> str:
    """An exception as a message: a KeyError's text without the quotes str() adds."""
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        return exc.args[0]
    return str(exc)


def export_path(directory: Path, name: str) -> Path:
    """The file an export named ``name`` goes to: inside ``directory`` only. Any peer on the
    ROS domain can call the memory service, so a name with a path separator or '..' (or one
    resolving elsewhere through a link) is refused."""
    if not name or any(sep in name for sep in ("/", "\\", "\x00")) or ".." in name \
            or name.startswith("~"):
        raise ValueError(f"export name {name!r} refused: give a plain file name (no path "
                         f"separators, no '..'); exports go to {directory}")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    if path.resolve().parent != directory.resolve():
        raise ValueError(f"export name {name!r} refused: it leads out of {directory}")
    return path


def memory_command(memory, command: str, argument: str, export_dir: Path | None = None):
    """The ManageMemory service's commands over an ExampleMemory (exports: a file name in
    ``export_dir``), as results for JSON; the commands are :mod:`...core.memory.commands`
    (the same as ``llm-interaction memory``'s)."""
    if memory is None:
        raise RuntimeError("this node runs without a memory (memory.enabled is false)")
    if command == ManageMemory.Request.COMMAND_COUNT:
        return memory.count()
    if command == ManageMemory.Request.COMMAND_LIST:
        return [_summary(e) for e in commands.list_examples(memory, argument or None)]
    if command == ManageMemory.Request.COMMAND_SHOW:
        return commands.show(memory, argument).to_dict()
    if command == ManageMemory.Request.COMMAND_SEARCH:
        return [{**_summary(e), "score": round(float(s), 4)}
                for e, s in commands.search(memory, [argument])]
    if command == ManageMemory.Request.COMMAND_DELETE:
        return {"deleted": commands.delete(memory, [argument])}
    if command == ManageMemory.Request.COMMAND_FORGET:
        return {"removed": [_summary(e) for e in commands.forget(memory, argument)]}
    if command == ManageMemory.Request.COMMAND_EXPORT:
        if export_dir is None:
            raise ValueError("exports are off: no export directory")
        path = export_path(Path(export_dir), argument)
        return {"exported": commands.export(memory, path), "path": str(path)}
    raise ValueError(f"unknown command {command!r}; use count, list, show, search, delete, "
                     "forget or export")


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


def _summary(example) -> dict:
    return {"id": example.id, "source": example.source, "origin": example.origin,
            "utterances": list(example.utterances)}


def _task_number(task_id: str) -> int:
    return int(task_id[:8], 16) if task_id else 0


def main(args=None) -> int:
    return run_node(InteractionNode, "interaction_node", args,
                    expected=(ValueError, OSError, KeyError, MemoryStoreError))


if __name__ == "__main__":
    sys.exit(main())

"""The interaction node: the LLM agent driving a robot through ROS 2 skills and speech.

Wiring only; the agent, console, memory and learner are the core's. Threads (see
docs/architecture.md): the agent runs in its own worker thread and blocks there (on the
LLM, on skill results, on the user); a single-threaded executor runs the short callbacks
(speech, perception, stop, reset, action client futures) and never waits for the worker;
the slow learn/memory services run on a second node (``interaction_services``) with its
own executor thread. (rclpy's multi-threaded executor tripled the skill round trip here.) Utterances are queued (nothing is lost while the robot is busy); a stop cancels
the running skill goal and abandons the running LLM call at once.

    python -m llm_interaction_node.ros.interaction_node --ros-args \\
        --params-file config/interaction_node.yaml -p llm.base_url:=http://localhost:8000/v1
"""
from __future__ import annotations

import json
import re
import sys
import threading
import traceback

import rclpy
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import Empty, String
from std_srvs.srv import Trigger

from llm_interaction_interfaces.msg import ConsoleEntry, Scene
from llm_interaction_interfaces.srv import Learn, ManageMemory

from ..core.apis.humanoid import HumanoidApi
from ..core.apis.knowledge import StaticKnowledge
from ..core.builtins import InteractionBuiltins
from ..core.console import ConsoleSession
from ..core.errors import EndOfInteraction
from ..core.interrupt import StopSignal
from ..core.llm import LLMError, LLMNotConfigured, TokenLedger, make_client
from ..core.registry import ApiRegistry, public_functions
from ..core.sandbox import Sandbox
from ..core.transcript import Entry
from ..core.user import EventQueue
from ..session import (BUILTINS, AgentSettings, attach_learning, build_agent, load_examples,
                       memory_examples, open_memory)
from ..sims.worlds import world_path
from . import parameters
from .ros_robot import SKILL_TYPES, RosHumanoidRobot, SkillTimeouts
from .scene_memory import SceneMemory
from .skill_client import SkillClient

LATCHED = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
# the transcript keeps its last entries for late joiners (a console started after the node)
HISTORY = QoSProfile(depth=200, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x1f\x7f-\x9f]")   # ANSI CSI, controls
_ERROR_OUTPUT = re.compile(r"^(Traceback \(most recent call last\)|\w*(Error|Violation|Timeout)\b)")


class NoLLM:
    """Stands where no endpoint is configured: every call fails with the fix in the message,
    so the node runs and tells the user instead of crashing."""

    def __init__(self, config, reason: str):
        self.config = config
        self.reason = reason

    def describe(self) -> str:
        return f"no LLM ({self.reason})"

    def _fail(self, *args, **kwargs):
        raise LLMError(f"no LLM endpoint is configured ({self.reason}); set the parameter "
                       "llm.base_url (or LLM_INTERACTION_BASE_URL / OPENAI_API_KEY)")

    complete = chat = _fail


def clean_utterance(text: str, max_chars: int) -> str:
    """Recognised speech as the LLM gets it: control characters removed, whitespace
    collapsed, cut to ``max_chars`` with a note."""
    text = " ".join(_CONTROL.sub(" ", text).split())
    if len(text) > max_chars:
        text = text[:max_chars].rstrip() + f" [... cut: {len(text)} characters in all]"
    return text


class InteractionNode(Node):
    def __init__(self) -> None:
        super().__init__("interaction_node")
        self.values = values = parameters.declare(self)
        if values["api"] != "humanoid":
            raise ValueError(f"api {values['api']!r}: the ROS robot implements 'humanoid' only")
        settings = AgentSettings.from_dict(parameters.agent_settings_dict(values))
        self.stop_signal = StopSignal()
        self.queue = EventQueue(stop=self.stop_signal)
        self._not_learning = threading.Event()
        self._not_learning.set()
        self._state = ""
        self._running: str | None = None      # the statement published as running
        group = ReentrantCallbackGroup()
        log = self.get_logger()

        # perception + static knowledge -> the ROS robot
        knowledge = StaticKnowledge.from_yaml(world_path(values["knowledge"]))
        self.scene_memory = SceneMemory(knowledge, warn=log.warning)
        self.create_subscription(Scene, values["topics.scene"], self.scene_memory.update, 10,
                                 callback_group=group)
        skills = {
            skill: SkillClient(self, action_type, values[f"actions.{skill}"], self.stop_signal,
                               callback_group=group, server_wait_s=values["timeouts.server_wait_s"],
                               accept_s=values["timeouts.accept_s"])
            for skill, action_type in SKILL_TYPES.items()}
        timeouts = SkillTimeouts.from_dict({k[len("timeouts."):-2]: v for k, v in values.items()
                                            if k.startswith("timeouts.") and k.endswith("_s")})
        self.robot = RosHumanoidRobot(skills, self.scene_memory,
                                      now_ns=lambda: self.get_clock().now().nanoseconds,
                                      timeouts=timeouts, on_failure=self._skill_unavailable)

        # speech, transcript, state
        self.tts = self.create_publisher(String, values["topics.tts_text"], 10)
        self.transcript = self.create_publisher(ConsoleEntry, values["topics.transcript"], HISTORY)
        self.state = self.create_publisher(String, values["topics.state"], LATCHED)
        self.create_subscription(String, values["topics.asr_text"], self._on_utterance, 100,
                                 callback_group=group)
        self.create_subscription(Empty, values["topics.stop"], lambda _m: self.request_stop("stop topic"),
                                 10, callback_group=group)
        self.create_service(Trigger, values["services.stop"], self._on_stop_service,
                            callback_group=group)
        self.create_service(Trigger, values["services.reset"], self._on_reset, callback_group=group)
        # learning and memory requests take seconds (LLM, embeddings): they are served by a
        # second node with its own executor thread, so they never delay a skill's result
        self.services_node = Node("interaction_services", namespace=self.get_namespace(),
                                  context=self.context)
        self.services_node.create_service(Learn, values["services.learn"], self._on_learn)
        self.services_node.create_service(ManageMemory, values["services.memory"], self._on_memory)

        # the core: console, LLM, memory, learner, agent
        api = HumanoidApi(self.robot, values["robot.min_speed_factor"], values["robot.max_speed_factor"])
        builtins = InteractionBuiltins(_StateChannel(self), speak=self.say)
        registry = ApiRegistry(public_functions(api))
        registry.extend(getattr(builtins, name) for name in BUILTINS["humanoid"])
        self.console = ConsoleSession(registry, builtins, Sandbox(timeout_s=settings.statement_timeout_s))
        self.console.input_listeners.append(self._publish_input)
        self.console.listeners.append(self._publish_entry)
        try:
            llm = make_client(settings.llm)
        except LLMNotConfigured as exc:
            log.error(f"{exc}: requests will be answered with an error until llm.base_url is set")
            llm = NoLLM(settings.llm, "neither llm.base_url nor an API key is set")
        self.ledger = TokenLedger()
        self.memory = None
        self.learner = None
        if values["memory.enabled"]:
            log.info("opening the example memory (first start: exports the embedding model) ...")
            self.memory = open_memory("humanoid", settings.memory)
            examples = memory_examples(self.memory, retrieval=settings.learning.retrieval)
            if settings.learning.mode != "off":
                self.learner = attach_learning(self.console, llm, self.memory,
                                               settings.learning.mode, self.ledger)
            memory_note = f"{self.memory.count()} examples in {self.memory.location}"
        else:
            examples, memory_note = load_examples("humanoid"), "memory disabled"
        self.agent = build_agent("humanoid", llm, self.console, examples, config=settings.agent,
                                 ledger=self.ledger, stop=self.stop_signal)
        self._worker = threading.Thread(target=self._work, name="agent", daemon=True)
        self._llm_note = llm.describe()
        self._memory_note = memory_note

    # -- life cycle ---------------------------------------------------------------------
    def start(self) -> None:
        if not self.scene_memory.wait_for_first(self.values["timeouts.first_scene_s"]):
            self.get_logger().warning(
                f"no scene on {self.values['topics.scene']!r} yet: the robot knows only the "
                "configured furniture until perception publishes")
        self._worker.start()
        self.get_logger().info(f"interaction_node ready: {self._llm_note}; memory: {self._memory_note}")

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

    def shutdown(self) -> None:
        self.queue.close()
        self.stop_signal.request("shutdown", idle=True)
        self._worker.join(timeout=5)

    # -- speech / state / transcript ----------------------------------------------------
    def _send(self, publisher, msg) -> None:
        """Publish from the worker thread; after shutdown began, drop instead of failing."""
        try:
            publisher.publish(msg)
        except Exception as exc:  # noqa: BLE001 - rclpy raises RCLError once the context is gone
            if rclpy.ok(context=self.context):
                self.get_logger().error(f"publishing on {publisher.topic_name} failed: {exc}")

    def say(self, text: str) -> None:
        self._send(self.tts, String(data=str(text)))

    def set_state(self, state: str) -> None:
        if state != self._state:
            self._state = state
            self._send(self.state, String(data=state))

    def _publish(self, kind: str, text: str) -> None:
        self._send(self.transcript, ConsoleEntry(stamp=self.get_clock().now().to_msg(),
                                                 task_id=_task_number(self.console.task_id),
                                                 kind=kind, text=text))

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
            kind = ConsoleEntry.KIND_ERROR if _ERROR_OUTPUT.match(entry.output) else ConsoleEntry.KIND_OUTPUT
            self._publish(kind, entry.output)

    def _on_utterance(self, msg: String) -> None:
        text = clean_utterance(msg.data, int(self.values["asr.max_chars"]))
        if not text:
            return
        busy = self._state != "idle"
        self.queue.put(text)
        self.get_logger().info(f"heard: {text[:200]!r}" + (f" (queued, robot busy)" if busy else ""))

    def _skill_unavailable(self, skill: str, outcome) -> None:
        self.say(f"My {skill.replace('_', ' ')} skill is not working: {outcome.message}.")

    # -- stop / reset / learn / memory --------------------------------------------------
    def request_stop(self, reason: str) -> None:
        if self._state == "idle":
            return                         # nothing runs; do not abort the next request
        self.get_logger().info(f"stop requested ({reason})")
        self.stop_signal.request(reason)

    def _on_stop_service(self, _request, response):
        running = self._state != "idle"
        self.request_stop("stop service")
        response.success = True
        response.message = "stopping" if running else "nothing was running"
        return response

    def _on_reset(self, _request, response):
        self.agent.request_reset("reset service")
        response.success, response.message = True, "the interaction was reset"
        return response

    def _on_learn(self, request, response):
        if request.utterance.strip():
            self.queue.put(clean_utterance(request.utterance, int(self.values["asr.max_chars"])))
            response.success = True
            response.message = "queued as a user utterance; the robot acts on it and learns"
            return response
        if self.learner is None:
            response.success, response.message = False, "learning is off (memory or learning.mode)"
            return response
        if self._state != "idle":
            response.success = False
            response.message = "the robot is busy; call again when the state topic says idle"
            return response
        self._not_learning.clear()
        self.set_state("learning")
        try:
            message = self.learner(force=True) or ""
        except Exception as exc:  # noqa: BLE001 - report, keep running
            message = f"learning failed: {exc}"
        finally:
            self.set_state("idle")
            self._not_learning.set()
        response.success = message.startswith("Learned") or message.startswith("Stored")
        response.message = message
        return response

    def _on_memory(self, request, response):
        try:
            result = memory_command(self.memory, request.command, request.argument)
            response.success, response.message = True, "ok"
            response.result_json = json.dumps(result, default=str)
        except Exception as exc:  # noqa: BLE001 - a bad request gets an answer, not a crash
            response.success, response.message, response.result_json = False, str(exc), "null"
        return response


class _StateChannel:
    """The console's user channel: the node's queue, publishing idle/busy around waits."""

    def __init__(self, node: InteractionNode):
        self.node = node

    def next_utterance(self, purpose, prompt=None) -> str:
        if purpose == "trigger":
            self.node.set_state("idle")
        try:
            text = self.node.queue.next_utterance(purpose, prompt)
            self.node._not_learning.wait()
            return text
        finally:
            self.node.set_state("busy")


def memory_command(memory, command: str, argument: str):
    """The ManageMemory service's commands over an ExampleMemory."""
    if memory is None:
        raise RuntimeError("this node runs without a memory (memory.enabled is false)")
    if command == ManageMemory.Request.COMMAND_COUNT:
        return memory.count()
    if command == ManageMemory.Request.COMMAND_LIST:
        return [_summary(e) for e in memory.list(argument or None)]
    if command == ManageMemory.Request.COMMAND_SHOW:
        return memory.get(argument).to_dict()
    if command == ManageMemory.Request.COMMAND_SEARCH:
        return [{**_summary(e), "score": round(float(s), 4)} for e, s in memory.retrieve([argument])]
    if command == ManageMemory.Request.COMMAND_DELETE:
        return {"deleted": memory.delete([argument])}
    if command == ManageMemory.Request.COMMAND_FORGET:
        return {"removed": [_summary(e) for e in memory.forget(argument)]}
    if command == ManageMemory.Request.COMMAND_EXPORT:
        return {"exported": memory.export_yaml(argument)}
    raise ValueError(f"unknown command {command!r}; use count, list, show, search, delete, "
                     "forget or export")


def _summary(example) -> dict:
    return {"id": example.id, "source": example.source, "origin": example.origin,
            "utterances": list(example.utterances)}


def _task_number(task_id: str) -> int:
    return int(task_id[:8], 16) if task_id else 0


def main(args=None) -> int:
    rclpy.init(args=args)
    try:
        node = InteractionNode()
    except (ValueError, OSError, KeyError) as exc:
        print(f"interaction_node: {exc}", file=sys.stderr)
        rclpy.try_shutdown()
        return 2
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    services = SingleThreadedExecutor()
    services.add_node(node.services_node)
    spinner = threading.Thread(target=_spin, args=(executor,), name="executor", daemon=True)
    spinner.start()
    threading.Thread(target=_spin, args=(services,), name="services", daemon=True).start()
    try:
        node.start()
        while spinner.is_alive():
            spinner.join(0.5)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.shutdown()
        executor.shutdown(timeout_sec=1.0)
        services.shutdown(timeout_sec=1.0)
        node.services_node.destroy_node()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


def _spin(executor) -> None:
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass


if __name__ == "__main__":
    sys.exit(main())

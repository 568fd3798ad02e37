"""The recorder node: the graph's topics into a rosbag2 (MCAP) bag, readable after a crash.

``llm-interaction run --record DIR`` starts it first in the graph (so it hears everything
from the start). It subscribes to each topic of ``topics`` (``'NAME pkg/msg/Type'``, with
``latched`` for transient-local topics such as the transcript and the state), takes each
message serialized as it arrives (no decoding), stamps it with its send time (the DDS source
timestamp: the order the nodes published in, across topics) and hands it
to :class:`~.bag.CrashSafeBagWriter`, which makes the bag complete on disk every
``flush_s`` seconds: a SIGKILL loses at most the last ``flush_s`` of messages, and
Ctrl-C / SIGTERM flush everything. Skill goals and results are recorded as the interaction
node publishes them (``interaction/skills``, JSON; see :mod:`.skill_events`).

    python -m llm_interaction_node.ros.nodes.recorder --ros-args \\
        --params-file config/recorder.yaml -p path:=/tmp/run1
    llm-interaction bag summary /tmp/run1
"""
from __future__ import annotations

import importlib
import signal
import sys
import threading
import traceback

import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions

from .. import names
from ..bag import FLUSH_S, SEGMENT_S, CrashSafeBagWriter, TopicSpec
from ..node_main import spin_in_thread

VOLATILE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.VOLATILE)
# as deep as the transcript's history, so a recorder that starts late still gets it
LATCHED = QoSProfile(depth=200, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def message_class(msgtype: str):
    """``'std_msgs/msg/String'`` -> the rclpy message class; ValueError if not installed."""
    package, kind, name = msgtype.split("/")
    try:
        return getattr(importlib.import_module(f"{package}.{kind}"), name)
    except (ImportError, AttributeError):
        raise ValueError(f"message type {msgtype!r} is not installed") from None


class RecorderNode(Node):
    def __init__(self) -> None:
        super().__init__(names.RECORDER_NODE)
        for name, default, text in (
                ("path", "", "bag directory to create (must not exist, or be empty)"),
                ("topics", [""], "recorded topics: 'NAME pkg/msg/Type' or "
                                 "'NAME pkg/msg/Type latched' (transient local)"),
                ("flush_s", FLUSH_S, "the bag on disk is complete up to this many seconds ago"),
                ("segment_s", SEGMENT_S, "a new MCAP file begins after this many seconds")):
            self.declare_parameter(name, default, ParameterDescriptor(description=text,
                                                                      read_only=True))
        p = lambda name: self.get_parameter(name).value  # noqa: E731
        if not p("path"):
            raise ValueError("recorder: set the bag directory, -p path:=DIR")
        specs = [TopicSpec.parse(t) for t in p("topics") if t.strip()]
        self.flush_s = float(p("flush_s"))
        if self.flush_s <= 0:
            raise ValueError("flush_s must be > 0")
        classes = {s.name: message_class(s.msgtype) for s in specs}
        self.writer: CrashSafeBagWriter | None = None        # before the executor spins
        recorded = []
        for spec in specs:
            # bags name topics absolutely (as ros2 bag does): the name after remapping
            topic = self.resolve_topic_name(spec.name)
            self.create_subscription(classes[spec.name], spec.name, self._callback(topic),
                                     LATCHED if spec.latched else VOLATILE, raw=True)
            recorded.append(TopicSpec(topic, spec.msgtype, spec.latched))
        self.writer = CrashSafeBagWriter(p("path"), recorded, segment_s=float(p("segment_s")))
        self.get_logger().info(f"recorder ready: {len(specs)} topics into {self.writer.path} "
                               f"(complete on disk every {self.flush_s:g} s)")

    def _callback(self, topic: str):
        def store(data: bytes, info) -> None:
            # the publisher's send time (as ros2 bag's send_timestamp): messages that one node
            # published in order on different topics stay in that order, whatever the delivery
            stamp = info.get("source_timestamp") or self.get_clock().now().nanoseconds
            self.writer.write(topic, stamp, data)
        return store


def _flusher(writer: CrashSafeBagWriter, period: float, stop: threading.Event,
             errors: list) -> None:
    while not stop.wait(period):
        try:
            writer.flush()
        except Exception as exc:  # noqa: BLE001 - a full disk: report, keep trying
            traceback.print_exc()
            errors.append(exc)


def main(args=None) -> int:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    try:
        node = RecorderNode()
    except (ValueError, OSError) as exc:
        print(f"recorder: {exc}", file=sys.stderr)
        rclpy.try_shutdown()
        return 2
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    errors: list = []
    spinner = spin_in_thread(executor, "executor")
    flusher = threading.Thread(target=_flusher, args=(node.writer, node.flush_s, stop, errors),
                               name="flush", daemon=True)
    flusher.start()
    try:
        while not stop.wait(0.5) and spinner.is_alive():
            pass
    finally:
        stop.set()
        flusher.join()
        executor.shutdown(timeout_sec=1.0)
        node.writer.close()
        node.get_logger().info(f"recorder stopped: {node.writer.written} messages in "
                               f"{node.writer.path}")
        node.destroy_node()
        rclpy.try_shutdown()
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

"""The recorder node: the graph's topics into a rosbag2 (MCAP) bag, readable after a crash.

``llm-interaction run --record DIR`` starts it first in the graph (so it hears everything
from the start). It subscribes to each topic of ``topics`` (``'NAME pkg/msg/Type'``, with
``latched`` for transient-local topics such as the transcript and the state), takes each
message serialized as it arrives (no decoding), stamps it with its send time (the DDS source
timestamp: the order the nodes published in, across topics) and hands it
to :class:`~..bag.CrashSafeBagWriter`, which makes the bag complete on disk every
``flush_s`` seconds: a SIGKILL loses at most the last ``flush_s`` of messages, and
Ctrl-C / SIGTERM flush everything. Skill goals and results are recorded as the interaction
node publishes them (``interaction/skills``, JSON; see :mod:`..robot.skill_events`).

    python -m llm_interaction_node.ros.nodes.recorder --ros-args \\
        --params-file config/recorder.yaml -p path:=/tmp/run1
    llm-interaction bag summary /tmp/run1
"""
from __future__ import annotations

import importlib
import sys
import threading
import traceback
from dataclasses import dataclass

from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from ...core.settings.config import setting
from .. import names
from ..bag import FLUSH_S, SEGMENT_S, CrashSafeBagWriter, TopicSpec
from ..node_main import run_node
from ..node_parameters import declare_section
from ..qos import latched

VOLATILE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.VOLATILE)
# as deep as the transcript's history, so a recorder that starts late still gets it
LATCHED = latched(200)


def message_class(msgtype: str):
    """``'std_msgs/msg/String'`` -> the rclpy message class; ValueError if not installed."""
    package, kind, name = msgtype.split("/")
    try:
        return getattr(importlib.import_module(f"{package}.{kind}"), name)
    except (ImportError, AttributeError):
        raise ValueError(f"message type {msgtype!r} is not installed") from None


@dataclass
class RecorderSettings:
    """The recorder's parameters (``config/recorder.yaml``; read-only once the node runs)."""

    path: str = setting("", "bag directory to create (must not exist, or be empty)")
    topics: list[str] = setting([], "recorded topics: 'NAME pkg/msg/Type' or "
                                "'NAME pkg/msg/Type latched' (transient local)")
    flush_s: float = setting(FLUSH_S, "the bag on disk is complete up to this many seconds ago",
                             above=0.0)
    segment_s: float = setting(SEGMENT_S, "a new MCAP file begins after this many seconds",
                               above=0.0)


class RecorderNode(Node):
    def __init__(self) -> None:
        super().__init__(names.RECORDER_NODE)
        config = declare_section(self, RecorderSettings, read_only=True)
        if not config.path:
            raise ValueError("recorder: set the bag directory, -p path:=DIR")
        specs = [TopicSpec.parse(t) for t in config.topics]
        self.flush_s = config.flush_s
        classes = {s.name: message_class(s.msgtype) for s in specs}
        self.writer: CrashSafeBagWriter | None = None        # before the executor spins
        recorded = []
        for spec in specs:
            # bags name topics absolutely (as ros2 bag does): the name after remapping
            topic = self.resolve_topic_name(spec.name)
            self.create_subscription(classes[spec.name], spec.name, self._callback(topic),
                                     LATCHED if spec.latched else VOLATILE, raw=True)
            recorded.append(TopicSpec(topic, spec.msgtype, spec.latched))
        self.writer = CrashSafeBagWriter(config.path, recorded, segment_s=config.segment_s)
        self.failed = False                 # a flush failed (exit code 1)
        self._stopped = threading.Event()
        self._flusher = threading.Thread(target=self._flush_periodically, name="flush",
                                         daemon=True)
        self.get_logger().info(f"recorder ready: {len(specs)} topics into {self.writer.path} "
                               f"(complete on disk every {self.flush_s:g} s)")

    def start(self) -> None:
        """Flush every ``flush_s`` from now on (run_node calls it once the executor spins)."""
        self._flusher.start()

    def _flush_periodically(self) -> None:
        while not self._stopped.wait(self.flush_s):
            try:
                self.writer.flush()
            except Exception:  # noqa: BLE001 - a full disk: report, keep trying
                traceback.print_exc()
                self.failed = True

    def close(self) -> None:
        """The last flush: the bag is complete on disk (run_node calls it before ROS shuts
        down; a SIGKILL loses at most the last ``flush_s``)."""
        self._stopped.set()
        if self._flusher.is_alive():
            self._flusher.join()
        self.writer.close()
        self.get_logger().info(f"recorder stopped: {self.writer.written} messages in "
                               f"{self.writer.path}")

    def _callback(self, topic: str):
        def store(data: bytes, info) -> None:
            # the publisher's send time (as ros2 bag's send_timestamp): messages that one node
            # published in order on different topics stay in that order, whatever the delivery
            stamp = info.get("source_timestamp") or self.get_clock().now().nanoseconds
            self.writer.write(topic, stamp, data)
        return store


def main(args=None) -> int:
    return run_node(RecorderNode, "recorder", args)


if __name__ == "__main__":
    sys.exit(main())

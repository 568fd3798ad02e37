"""rosbag2 (MCAP) files of a run, with ``rosbags`` (pure Python): writing that survives a
SIGKILL, reading, and the summary that ``llm-interaction bag summary`` prints.

Writing (:class:`CrashSafeBagWriter`): rosbags' MCAP writer puts the index, the footer and
``metadata.yaml`` down only when it closes, and a truncated MCAP file cannot be read. So the
bag is written in segments: the messages of the current segment are kept (serialized, as
received) and, at every flush, written out as a complete MCAP file next to the finished
segments (a temporary file, then ``os.replace``), and ``metadata.yaml`` is rewritten the same
way. A segment is finished after ``segment_s`` seconds (or ``segment_bytes``); a new file
then begins. **Guarantee**: whatever happens to the process (SIGKILL, power loss after the
OS wrote the files), the directory is a readable rosbag2 bag holding every message received
up to the last flush (``flush_s``, 1 s by default), in order; a clean stop flushes last.

The bag holds the message definitions (MCAP schemas), so any reader (rosbags' ``AnyReader``,
``ros2 bag``, Foxglove) decodes the custom ``llm_interaction_interfaces`` types; for writing
they are registered from the package's ``.msg`` files (:func:`typestore`).
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

INTERFACES = "llm_interaction_interfaces"
FLUSH_S = 1.0
SEGMENT_S = 60.0
SEGMENT_BYTES = 16 << 20
_TMP_PREFIX = ".writing-"


def interface_dirs() -> list[Path]:
    """Where the custom interfaces' ``msg/`` directory may be: the source tree, the install
    space of the venv (``scripts/build_interfaces.sh``)."""
    return [Path(__file__).resolve().parents[2] / "interfaces" / INTERFACES,
            Path(sys.prefix) / "share" / INTERFACES]


def typestore():
    """rosbags' Kilted type store plus the llm_interaction_interfaces messages (from their
    ``.msg`` files)."""
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    store = get_typestore(Stores.ROS2_KILTED)
    directory = next((d / "msg" for d in interface_dirs() if (d / "msg").is_dir()), None)
    if directory is None:
        raise FileNotFoundError(f"no {INTERFACES} msg/ directory in "
                                f"{', '.join(str(d) for d in interface_dirs())}")
    types: dict = {}
    for path in sorted(directory.glob("*.msg")):
        types.update(get_types_from_msg(path.read_text(encoding="utf-8"),
                                        f"{INTERFACES}/msg/{path.stem}"))
    store.register(types)
    return store


@dataclass(frozen=True)
class TopicSpec:
    """A recorded topic: name, type (``pkg/msg/Type``), latched (transient local)."""

    name: str
    msgtype: str
    latched: bool = False

    @classmethod
    def parse(cls, text: str) -> TopicSpec:
        """``'NAME TYPE'`` or ``'NAME TYPE latched'``."""
        parts = text.split()
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "latched") \
                or parts[1].count("/") != 2:
            raise ValueError(f"topic {text!r}: expected 'NAME pkg/msg/Type' or "
                             "'NAME pkg/msg/Type latched'")
        return cls(parts[0], parts[1], len(parts) == 3)


@dataclass
class _Segment:
    index: int
    started: float
    messages: list[tuple[str, int, bytes]] = field(default_factory=list)
    size: int = 0
    flushed: int = 0                  # messages in the file on disk
    metadata: dict | None = None      # its rosbag2 metadata once written


class CrashSafeBagWriter:
    """A rosbag2 MCAP bag in ``path`` (must not exist or be empty), written as described in
    the module docstring. Thread-safe: ``write`` from callbacks, ``flush`` from a timer."""

    def __init__(self, path: str | Path, topics: Iterable[TopicSpec], *, store=None,
                 segment_s: float = SEGMENT_S, segment_bytes: int = SEGMENT_BYTES):
        self.path = Path(path).expanduser().resolve()
        if self.path.exists() and (not self.path.is_dir() or any(self.path.iterdir())):
            raise FileExistsError(f"{self.path} exists and is not an empty directory; "
                                  "a bag is written into a new directory")
        self.topics = {t.name: t for t in topics}
        if not self.topics:
            raise ValueError("no topics to record")
        self.store = store if store is not None else typestore()
        for t in self.topics.values():
            if t.msgtype not in self.store.fielddefs:
                raise ValueError(f"topic {t.name}: unknown message type {t.msgtype!r}")
        self.segment_s, self.segment_bytes = segment_s, segment_bytes
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()       # the segment's message list
        self._io = threading.Lock()         # one flush at a time
        self._done: list[_Segment] = []
        self._segment = _Segment(0, time.monotonic())
        self.written = 0
        self.closed = False

    def write(self, topic: str, timestamp_ns: int, data: bytes) -> None:
        """One serialized (CDR) message as received at ``timestamp_ns``."""
        if topic not in self.topics:
            raise KeyError(f"topic {topic!r} is not recorded")
        with self._lock:
            if self.closed:
                return
            self._segment.messages.append((topic, int(timestamp_ns), bytes(data)))
            self._segment.size += len(data)
            self.written += 1

    def flush(self) -> bool:
        """Write the current segment out as a complete file (if it has new messages) and the
        bag's metadata; start a new segment when this one is full. True if it wrote."""
        with self._io:
            with self._lock:
                segment = self._segment
                messages = list(segment.messages)
                if len(messages) == segment.flushed:
                    return False
                full = (time.monotonic() - segment.started >= self.segment_s
                        or segment.size >= self.segment_bytes)
                if full:                     # later messages go to a new file
                    self._segment = _Segment(segment.index + 1, time.monotonic())
            segment.metadata = self._write_segment(segment.index, messages)
            segment.flushed = len(messages)
            if full:
                self._done.append(segment)
                segment.messages = []        # on disk for good
            self._write_metadata([s.metadata for s in self._done + ([] if full else [segment])])
            return True

    def close(self) -> None:
        """Flush the last messages; later writes are dropped."""
        self.flush()
        with self._lock:
            self.closed = True

    # -- files ------------------------------------------------------------------------
    def file_name(self, index: int) -> str:
        return f"{self.path.name}_{index}.mcap"

    def _write_segment(self, index: int, messages: list[tuple[str, int, bytes]]) -> dict:
        """A complete MCAP file of these messages, replacing the segment's file at once."""
        from rosbags.rosbag2 import StoragePlugin, Writer
        from rosbags.rosbag2.enums import CompressionFormat, CompressionMode

        tmp = self.path / f"{_TMP_PREFIX}{index}"
        shutil.rmtree(tmp, ignore_errors=True)
        writer = Writer(tmp, version=Writer.VERSION_LATEST, storage_plugin=StoragePlugin.MCAP)
        writer.set_compression(CompressionMode.STORAGE, CompressionFormat.ZSTD)
        with writer:
            connections = {}
            for name in sorted({m[0] for m in messages}, key=list(self.topics).index):
                spec = self.topics[name]
                connections[name] = writer.add_connection(
                    name, spec.msgtype, typestore=self.store,
                    offered_qos_profiles=[_latched_qos()] if spec.latched else [])
            for topic, stamp, data in sorted(messages, key=lambda m: m[1]):
                writer.write(connections[topic], stamp, data)
        metadata = yaml.safe_load((tmp / "metadata.yaml").read_text())[
            "rosbag2_bagfile_information"
        ]
        target = self.path / self.file_name(index)
        written = tmp / f"{tmp.name}.mcap"
        _fsync(written)
        os.replace(written, target)
        shutil.rmtree(tmp, ignore_errors=True)
        metadata["relative_file_paths"] = [target.name]
        for entry in metadata.get("files", []):
            entry["path"] = target.name
        return metadata

    def _write_metadata(self, segments: list[dict]) -> None:
        """One metadata.yaml over all segment files (atomic replace)."""
        if not segments:
            return
        merged = dict(segments[0])
        starts = [s["starting_time"]["nanoseconds_since_epoch"] for s in segments]
        ends = [s["starting_time"]["nanoseconds_since_epoch"] + s["duration"]["nanoseconds"]
                for s in segments]
        topics: dict[tuple, dict] = {}
        for s in segments:
            for entry in s["topics_with_message_count"]:
                meta = entry["topic_metadata"]
                key = (meta["name"], meta["type"])
                if key in topics:
                    topics[key]["message_count"] += entry["message_count"]
                else:
                    topics[key] = {
                        "topic_metadata": dict(meta),
                        "message_count": entry["message_count"],
                    }
        merged.update({
            "relative_file_paths": [p for s in segments for p in s["relative_file_paths"]],
            "files": [f for s in segments for f in s.get("files", [])],
            "starting_time": {"nanoseconds_since_epoch": min(starts)},
            "duration": {"nanoseconds": max(ends) - min(starts)},
            "message_count": sum(s["message_count"] for s in segments),
            "topics_with_message_count": list(topics.values()),
        })
        tmp = self.path / "metadata.yaml.tmp"
        tmp.write_text(yaml.safe_dump({"rosbag2_bagfile_information": merged}, sort_keys=False))
        _fsync(tmp)
        os.replace(tmp, self.path / "metadata.yaml")


def _latched_qos():
    """The offered QoS of a latched topic, so that ``ros2 bag play`` republishes it latched."""
    from rosbags.interfaces import (
        Qos,
        QosDurability,
        QosHistory,
        QosLiveliness,
        QosReliability,
        QosTime,
    )
    return Qos(QosHistory.KEEP_LAST, 1, QosReliability.RELIABLE, QosDurability.TRANSIENT_LOCAL,
               QosTime(0x7FFFFFFF, 0xFFFFFFFF), QosTime(0x7FFFFFFF, 0xFFFFFFFF),
               QosLiveliness.AUTOMATIC, QosTime(0x7FFFFFFF, 0xFFFFFFFF), False)


def _fsync(path: Path) -> None:
    with open(path, "rb+") as f:
        os.fsync(f.fileno())


# ---------------------------------------------------------------------------- reading
def read_bag(path: str | Path) -> Iterator[tuple[str, str, int, Any]]:
    """(topic, msgtype, timestamp_ns, message) of every message in time order; types come
    from the bag itself (its MCAP schemas)."""
    from rosbags.highlevel import AnyReader

    with AnyReader([Path(path)]) as reader:
        for connection, stamp, raw in reader.messages():
            yield (
                connection.topic,
                connection.msgtype,
                stamp,
                reader.deserialize(raw, connection.msgtype),
            )


def topic_counts(path: str | Path) -> tuple[dict[str, tuple[str, int]], int, int]:
    """topic -> (type, message count), start and end (ns) of the bag."""
    from rosbags.highlevel import AnyReader

    with AnyReader([Path(path)]) as reader:
        counts: dict[str, tuple[str, int]] = {}
        for c in reader.connections:
            old = counts.get(c.topic, (c.msgtype, 0))[1]
            counts[c.topic] = (c.msgtype, old + c.msgcount)
        return counts, reader.start_time, reader.end_time


def dialogue_line(topic: str, msgtype: str, msg: Any) -> str | None:
    """One message of the dialogue as a line of text (None: not part of the dialogue)."""
    short = msgtype.rsplit("/", 1)[-1]
    if short == "ConsoleEntry":
        prefix = {"input": "", "output": "    ", "error": "  ! ", "note": ""}.get(msg.kind, "")
        text = msg.text
        if msg.kind == "input":
            text = "\n".join((">>> " if i == 0 else "... ") + ln
                             for i, ln in enumerate(text.splitlines() or [""]))
        return "\n".join(prefix + ln for ln in text.splitlines()) if prefix else text
    if short == "AsrResult":
        return f"[heard: {msg.text!r} ({msg.outcome}, confidence {msg.confidence:.2f})]"
    if short == "String":
        if topic.endswith("asr_text"):
            return f"user: {msg.data}"
        if topic.endswith("tts_text"):
            return f"robot says: {msg.data}"
        if topic.endswith("interaction/state"):
            return f"[state: {msg.data}]"
        if topic.endswith("interaction/skills"):
            try:
                event = json.loads(msg.data)
            except json.JSONDecodeError:
                return f"[skill event: {msg.data}]"
            if event.get("event") == "goal":
                goal = ", ".join(f"{k}={v!r}" for k, v in (event.get("goal") or {}).items()
                                 if not isinstance(v, dict))
                return f"[skill {event.get('skill')} #{event.get('call')}: goal {goal}]"
            message = f" ({event.get('message')})" if event.get("message") else ""
            return (f"[skill {event.get('skill')} #{event.get('call')}: "
                    f"{event.get('status')}{message}]")
    return None


def summary(path: str | Path, dialogue: bool = True) -> str:
    """What ``llm-interaction bag summary`` prints: the topics with their types and counts,
    the time span, then the dialogue replayed as text in time order."""
    counts, start, end = topic_counts(path)
    total = sum(n for _, n in counts.values())
    span = (end - start) / 1e9 if total else 0.0
    lines = [f"bag: {Path(path)}",
             f"{total} messages in {span:.1f} s"
             + (f", from {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(start / 1e9))}"
                if total else ""),
             "topics:"]
    width = max((len(t) for t in counts), default=0)
    for topic, (msgtype, n) in sorted(counts.items()):
        lines.append(f"  {topic:<{width}}  {n:>6}  {msgtype}")
    if dialogue:
        lines.append("dialogue:")
        for topic, msgtype, stamp, msg in read_bag(path):
            line = dialogue_line(topic, msgtype, msg)
            if line is not None:
                offset = (stamp - start) / 1e9
                body = line.splitlines() or [""]
                lines.append(f"  {offset:7.2f}  {body[0]}")
                lines += [f"           {ln}" for ln in body[1:]]
    return "\n".join(lines)

"""ROS 2 node ``wav_source``: plays WAV files onto ``speech/audio`` as a microphone would.

For tests and demos: each file (PCM WAV, any rate and channel count; converted to 16 kHz mono
S16LE) is published in ``chunk_ms`` chunks of llm_interaction_interfaces/AudioData, stamped
with the time of their first sample, at real-time pace (``realtime: false`` publishes at once,
with the same stamps). ``lead_s`` of silence come before the first file and ``gap_s`` after
each one, so a VAD hears where an utterance ends. Playback starts once somebody listens
(up to ``wait_for_listener_s``, then ``settle_s`` more: the listener's side of discovery may
lag). A file that cannot be read is reported and skipped; the node keeps running after the
last file (``exit_when_done: true`` ends it).

Parameters (``config/wav_source.yaml``, :class:`WavSourceSettings`): ``files`` (paths, a
list or comma-separated), ``realtime``,
``chunk_ms``, ``lead_s``, ``gap_s``, ``loop``, ``wait_for_listener_s``, ``settle_s``,
``exit_when_done``, ``frame_id``.

    python -m llm_interaction_node.ros.nodes.wav_source --ros-args \\
        --params-file config/wav_source.yaml -p files:=/tmp/request.wav
"""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from llm_interaction_interfaces.msg import AudioData
from rclpy.node import Node

from ...core.settings.config import setting
from .. import names
from ..node_main import run_node
from ..node_parameters import declare_section
from ..speech.audio import AUDIO_QOS, SAMPLE_RATE, AudioFormatError, decode_wav, to_msg


@dataclass
class Scheduled:
    """One chunk of a stream: its samples, its audio time and when to publish it."""

    samples: np.ndarray
    stamp: float          # time of its first sample
    due: float            # when it has been "heard" (its last sample), on the same clock


def schedule(signals: list[np.ndarray], start: float, chunk: int, lead: int, gap: int,
             sample_rate: int = SAMPLE_RATE) -> Iterator[Scheduled]:
    """The chunks of ``lead`` samples of silence, then each signal followed by ``gap`` samples
    of silence, as a microphone would deliver them from ``start`` on."""
    parts = [np.zeros(lead, np.int16)]
    for signal_ in signals:
        parts += [signal_, np.zeros(gap, np.int16)]
    audio = np.concatenate(parts)
    for offset in range(0, len(audio), chunk):
        piece = audio[offset:offset + chunk]
        yield Scheduled(piece, start + offset / sample_rate,
                        start + (offset + len(piece)) / sample_rate)


def stream(publish: Callable[[AudioData], None], signals: list[np.ndarray], *, chunk_ms: int,
           lead_s: float, gap_s: float, realtime: bool, clock: Callable[[], float],
           frame_id: str = "", stop: threading.Event | None = None) -> float:
    """Publish ``signals`` as a stream of AudioData; returns the start time (stamp clock)."""
    stop = stop or threading.Event()
    start = clock()
    chunk = max(1, int(SAMPLE_RATE * chunk_ms / 1000))
    for item in schedule(signals, start, chunk, int(lead_s * SAMPLE_RATE),
                         int(gap_s * SAMPLE_RATE)):
        if realtime:
            delay = item.due - clock()
            if delay > 0 and stop.wait(delay):
                break
        if stop.is_set():
            break
        publish(to_msg(item.samples, item.stamp, frame_id))
    return start


@dataclass
class WavSourceSettings:
    """The wav_source node's parameters (``config/wav_source.yaml``)."""

    files: list[str] = setting([], "WAV paths to play in order, a list or comma-separated "
                               "(any rate / channels: converted)")
    realtime: bool = setting(True, "publish at the pace of the audio (false: all at once)")
    chunk_ms: int = setting(100, "audio per message (ms)", minimum=10)
    lead_s: float = setting(0.5, "silence before the first file", minimum=0.0)
    gap_s: float = setting(1.0, "silence after each file (lets the VAD end the utterance)",
                           minimum=0.0)
    loop: bool = setting(False, "play the files again and again")
    wait_for_listener_s: float = setting(30.0, "wait this long for a subscriber before playing",
                                         minimum=0.0)
    settle_s: float = setting(1.0, "then this long more (the subscriber's side of discovery)",
                              minimum=0.0)
    exit_when_done: bool = setting(False, "end the node after the last file")
    frame_id: str = setting("wav_source", "frame_id of the audio messages")


class WavSourceNode(Node):
    def __init__(self, **kwargs):
        super().__init__("wav_source", **kwargs)
        self.config = declare_section(self, WavSourceSettings)
        self.pub = self.create_publisher(AudioData, names.AUDIO, AUDIO_QOS)
        self.done = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._play, name="wav-source", daemon=True)
        self._thread.start()

    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds / 1e9

    def _load(self) -> list[tuple[str, np.ndarray]]:
        loaded = []
        for name in self.config.files:
            try:
                loaded.append((name, decode_wav(Path(name).expanduser())))
            except AudioFormatError as exc:
                self.get_logger().error(f"skipped: {exc}")
        return loaded

    def _play(self) -> None:
        log = self.get_logger()
        try:
            if not self.config.files:
                log.error("no files to play: set the parameter files (WAV paths, comma-separated)")
                return
            loaded = self._load()
            if not loaded:
                log.error("none of the files could be read; nothing to play")
                return
            deadline = time.monotonic() + self.config.wait_for_listener_s
            while self.pub.get_subscription_count() == 0 and time.monotonic() < deadline:
                if self._stop.wait(0.05):
                    return
            if self.pub.get_subscription_count() == 0:
                log.warning(f"nobody listens on {self.pub.topic_name} after "
                            f"{self.config.wait_for_listener_s:g} s; playing anyway")
            # the listener may match this publisher a moment after it was seen (discovery)
            elif self._stop.wait(self.config.settle_s):
                return
            while not self._stop.is_set():
                seconds = sum(len(s) for _, s in loaded) / SAMPLE_RATE
                log.info(f"playing {len(loaded)} file(s), {seconds:.1f} s of audio, on "
                         f"{self.pub.topic_name}: {', '.join(n for n, _ in loaded)}")
                config = self.config
                stream(self.pub.publish, [s for _, s in loaded], chunk_ms=config.chunk_ms,
                       lead_s=config.lead_s, gap_s=config.gap_s, realtime=config.realtime,
                       clock=self._now_s, frame_id=config.frame_id, stop=self._stop)
                if not self.config.loop:
                    break
            if not self._stop.is_set():
                log.info("played all files")
        except Exception as exc:  # noqa: BLE001 - report, keep the node (and its logs) alive
            if not self._stop.is_set():
                log.error(f"playback failed: {exc!r}")
        finally:
            self.done.set()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2.0)


def main(args: list[str] | None = None) -> int:
    return run_node(
        WavSourceNode, "wav_source", args,
        keep_running=lambda node: not (node.config.exit_when_done and node.done.is_set()),
        period=0.2,
    )


if __name__ == "__main__":
    sys.exit(main())

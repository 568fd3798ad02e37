"""ROS 2 node ``microphone``: records an audio input device onto ``speech/audio``.

Captures with ``sounddevice`` (PortAudio) and publishes llm_interaction_interfaces/AudioData
chunks of ``chunk_ms``, 16 kHz mono S16LE, stamped with the capture time of their first
sample. A device that cannot record at 16 kHz is recorded at its own rate and resampled.

Without PortAudio (``apt install libportaudio2``) or without an input device the node says so
in ONE error line and keeps running: it tries again every ``retry_s`` seconds without
repeating the error, and logs when a device appears (a USB microphone plugged in later). A
device that fails while recording is handled the same way.

Parameters (``config/microphone.yaml``): ``device`` ('' = the default input; a name part or
an index as listed by ``python -m sounddevice``), ``chunk_ms``, ``retry_s``, ``frame_id``.

    python -m llm_interaction_node.ros.nodes.microphone --ros-args \\
        --params-file config/microphone.yaml -p device:=USB
"""
from __future__ import annotations

import queue
import sys
import time
from dataclasses import dataclass

import numpy as np
from llm_interaction_interfaces.msg import AudioData
from rclpy.node import Node

from ...core.settings.config import setting
from .. import names
from ..node_main import run_node
from ..node_parameters import declare_section
from ..speech.audio import AUDIO_QOS, SAMPLE_RATE, AudioFormatError, StreamResampler, to_msg


class NoAudioInput(RuntimeError):
    """No way to record: PortAudio missing, no such device, the device refuses."""


def load_sounddevice():
    """The sounddevice module; NoAudioInput when PortAudio (libportaudio2) is missing."""
    try:
        import sounddevice
    except OSError as exc:         # sounddevice raises OSError when libportaudio is not found
        raise NoAudioInput(f"PortAudio is not installed ({exc}): apt install libportaudio2") \
            from None
    except ImportError as exc:
        raise NoAudioInput(f"sounddevice is not installed ({exc}): pip install -r "
                           "requirements-speech.txt") from None
    return sounddevice


def resolve_device(sd, device: str):
    """The device argument for sounddevice (None, an index or a name part) and its info;
    NoAudioInput with a clear reason when there is none."""
    spec = None if not device else int(device) if device.strip().isdigit() else device
    try:
        info = sd.query_devices(spec, kind="input")
    except (ValueError, sd.PortAudioError) as exc:
        listed = [d["name"] for d in sd.query_devices() if d.get("max_input_channels", 0) > 0]
        known = f"input devices here: {', '.join(listed)}" if listed else \
            "this machine has no audio input device"
        which = f"no input device {device!r}" if device else "no default input device"
        raise NoAudioInput(f"{which} ({exc}); {known}") from None
    return spec, info


@dataclass
class MicrophoneSettings:
    """The microphone node's parameters (``config/microphone.yaml``)."""

    device: str = setting("", "'' = the default input; a name part or an index "
                          "(python -m sounddevice)")
    chunk_ms: int = setting(100, "audio per message (ms)", minimum=10, maximum=1000)
    retry_s: float = setting(5.0, "without a device: try again this often (quietly)", above=0.0)
    frame_id: str = setting("microphone", "frame_id of the audio messages")


class MicrophoneNode(Node):
    def __init__(self, **kwargs):
        super().__init__("microphone", **kwargs)
        config = declare_section(self, MicrophoneSettings)
        self.device = config.device.strip()
        self.chunk_ms = config.chunk_ms
        self.retry_s = config.retry_s
        self.frame_id = config.frame_id
        self.pub = self.create_publisher(AudioData, names.AUDIO, AUDIO_QOS)
        self._chunks: queue.SimpleQueue = queue.SimpleQueue()
        self._stream = None
        self._resampler: StreamResampler | None = None
        self._rate = SAMPLE_RATE
        self._reported = False            # the error was said once; retries stay quiet
        self._next_try = 0.0
        self._overflows = 0
        self.create_timer(0.02, self._tick)
        self._try_open()

    # -- the device --------------------------------------------------------------------------
    def _try_open(self) -> None:
        self._next_try = time.monotonic() + self.retry_s
        try:
            self._open()
        except NoAudioInput as exc:
            if not self._reported:
                self._reported = True
                self.get_logger().error(f"cannot record: {exc}. The node keeps running and tries "
                                        f"again every {self.retry_s:g} s.")

    def _open(self) -> None:
        sd = load_sounddevice()
        spec, info = resolve_device(sd, self.device)
        rate = SAMPLE_RATE
        try:
            sd.check_input_settings(device=spec, channels=1, dtype="int16", samplerate=rate)
        except (ValueError, sd.PortAudioError):
            rate = int(info["default_samplerate"])       # record at its rate, resample
        try:
            stream = sd.InputStream(device=spec, channels=1, dtype="int16", samplerate=rate,
                                    blocksize=int(rate * self.chunk_ms / 1000),
                                    callback=self._captured)
            stream.start()
        except (ValueError, sd.PortAudioError) as exc:
            raise NoAudioInput(f"{info['name']!r} refuses to record 1 channel at {rate} Hz: "
                               f"{exc}") from None
        self._stream, self._rate = stream, rate
        self._resampler = StreamResampler(rate, SAMPLE_RATE) if rate != SAMPLE_RATE else None
        self._reported = False
        self.get_logger().info(f"recording from {info['name']!r} at {rate} Hz"
                               + (f", resampled to {SAMPLE_RATE} Hz" if self._resampler else "")
                               + f"; publishing on {self.pub.topic_name}")

    def _captured(self, indata, frames, _time, status) -> None:
        """PortAudio's thread: hand the chunk over, nothing else."""
        if status and status.input_overflow:
            self._overflows += 1
        self._chunks.put((time.time() - frames / self._rate, indata[:, 0].copy()))

    def _tick(self) -> None:
        """Executor: publish the captured chunks; notice a dead stream; retry opening."""
        while True:
            try:
                stamp, samples = self._chunks.get_nowait()
            except queue.Empty:
                break
            if self._resampler is not None:
                try:
                    samples = self._resampler.push(samples)
                except AudioFormatError as exc:
                    self.get_logger().error(f"cannot resample: {exc}")
                    continue
            if len(samples):
                self.pub.publish(to_msg(np.asarray(samples, np.int16), stamp, self.frame_id))
        if self._overflows:
            self.get_logger().warning(f"audio input overflow ({self._overflows} chunks): "
                                      "the node was too slow, some audio was lost")
            self._overflows = 0
        if self._stream is not None and not self._stream.active:
            self.get_logger().error("the audio device stopped recording; trying to reopen it "
                                    f"every {self.retry_s:g} s")
            self._close_stream()
            self._reported = True
        if self._stream is None and time.monotonic() >= self._next_try:
            self._try_open()

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.close(ignore_errors=True)
            except Exception:  # noqa: BLE001 - a vanished device
                pass

    @property
    def recording(self) -> bool:
        return self._stream is not None

    def close(self) -> None:
        self._close_stream()


def main(args: list[str] | None = None) -> int:
    return run_node(MicrophoneNode, "microphone", args)


if __name__ == "__main__":
    sys.exit(main())

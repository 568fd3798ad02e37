"""Audio on the speech topics: 16 kHz mono signed 16-bit PCM in ``AudioData`` messages.

Conversions between numpy sample arrays and ``llm_interaction_interfaces/msg/AudioData``, WAV
files (stdlib ``wave``) and resampling (PyAV's libswresample, which faster-whisper brings).
Shared by the microphone, WAV source, tts and asr nodes. Every problem with a message or a file
raises :class:`AudioFormatError` with a message that says what was expected.
"""
from __future__ import annotations

import io
import wave
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from rclpy.qos import QoSProfile, ReliabilityPolicy

SAMPLE_RATE = 16000          # Hz: what the asr node (Whisper) takes
# audio topics: reliable, deep enough for a burst (the tts node publishes an utterance at once)
AUDIO_QOS = QoSProfile(depth=200, reliability=ReliabilityPolicy.RELIABLE)
ENCODING = "S16LE"
_TIME_NS = 1_000_000_000


class AudioFormatError(ValueError):
    """Audio that the speech nodes cannot use (wrong format, unreadable file, empty)."""


def stamp_to_seconds(stamp) -> float:
    """A builtin_interfaces/Time as float seconds."""
    return stamp.sec + stamp.nanosec / _TIME_NS


def seconds_to_stamp(seconds: float):
    from builtin_interfaces.msg import Time
    ns = int(round(seconds * _TIME_NS))
    return Time(sec=ns // _TIME_NS, nanosec=ns % _TIME_NS)


def to_msg(samples: np.ndarray, stamp_s: float, frame_id: str = "",
           sample_rate: int = SAMPLE_RATE):
    """int16 mono samples -> AudioData (stamp: time of the first sample, in seconds)."""
    from llm_interaction_interfaces.msg import AudioData
    msg = AudioData(sample_rate=int(sample_rate), channels=1, encoding=ENCODING)
    msg.header.stamp = seconds_to_stamp(stamp_s)
    msg.header.frame_id = frame_id
    msg.data = np.ascontiguousarray(samples, dtype="<i2").tobytes()
    return msg


def from_msg(msg, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """AudioData -> float32 mono samples in [-1, 1]; AudioFormatError unless it is
    ``sample_rate`` Hz, mono, S16LE and not empty."""
    problems = []
    if msg.encoding.upper() != ENCODING:
        problems.append(f"encoding {msg.encoding!r}")
    if msg.sample_rate != sample_rate:
        problems.append(f"sample rate {msg.sample_rate} Hz")
    if msg.channels != 1:
        problems.append(f"{msg.channels} channels")
    if problems:
        raise AudioFormatError(f"audio with {', '.join(problems)}: expected {sample_rate} Hz "
                               f"mono {ENCODING} (resample at the source)")
    data = msg.data
    if len(data) == 0:
        raise AudioFormatError("an empty audio message (no samples)")
    if len(data) % 2:
        raise AudioFormatError(f"an audio message of {len(data)} bytes: {ENCODING} samples "
                               "take 2 bytes each")
    return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0


def float_to_int16(samples: np.ndarray) -> np.ndarray:
    return (np.clip(samples, -1.0, 1.0) * 32767.0).astype(np.int16)


def resample(samples: np.ndarray, rate: int, to_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Whole int16 mono signal from ``rate`` to ``to_rate`` Hz (PyAV / libswresample)."""
    if rate == to_rate or len(samples) == 0:
        return np.asarray(samples, dtype=np.int16)
    resampler = StreamResampler(rate, to_rate)
    return np.concatenate([resampler.push(samples), resampler.flush()])


class StreamResampler:
    """Resamples int16 mono chunks of a stream (keeps the filter state between chunks)."""

    def __init__(self, rate: int, to_rate: int = SAMPLE_RATE):
        try:
            import av
        except ImportError as exc:      # pragma: no cover - av comes with faster-whisper
            raise AudioFormatError("resampling needs PyAV (pip install -r "
                                   "requirements-speech.txt)") from exc
        self._av = av
        self.rate, self.to_rate = int(rate), int(to_rate)
        self._resampler = av.AudioResampler(format="s16", layout="mono", rate=self.to_rate)

    def _run(self, frame) -> np.ndarray:
        out = [f.to_ndarray().reshape(-1) for f in self._resampler.resample(frame)]
        return np.concatenate(out).astype(np.int16) if out else np.zeros(0, np.int16)

    def push(self, samples: np.ndarray) -> np.ndarray:
        if len(samples) == 0:
            return np.zeros(0, np.int16)
        frame = self._av.AudioFrame.from_ndarray(
            np.ascontiguousarray(samples, dtype=np.int16).reshape(1, -1), format="s16",
            layout="mono")
        frame.sample_rate = self.rate
        return self._run(frame)

    def flush(self) -> np.ndarray:
        return self._run(None)


def decode_wav(source: str | Path | bytes, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """A PCM WAV file (path or bytes) as int16 mono samples at ``sample_rate``: channels are
    averaged, other rates resampled. AudioFormatError for anything unreadable."""
    name = "WAV data" if isinstance(source, (bytes, bytearray)) else str(source)
    try:
        handle = (
            io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else open(source, "rb")
        )
    except OSError as exc:
        raise AudioFormatError(f"cannot open {name}: {exc.strerror or exc}") from None
    try:
        with handle, wave.open(handle, "rb") as wav:
            channels, width, rate = wav.getnchannels(), wav.getsampwidth(), wav.getframerate()
            # espeak-ng --stdout writes a streaming header (frame count 0x7fffffff): read all
            raw = wav.readframes(min(wav.getnframes(), 1 << 31))
    except (wave.Error, EOFError) as exc:
        raise AudioFormatError(f"{name} is not a PCM WAV file ({exc})") from None
    if rate <= 0 or channels <= 0:
        raise AudioFormatError(f"{name}: invalid header ({rate} Hz, {channels} channels)")
    usable = len(raw) - len(raw) % (width * channels)
    raw = raw[:usable]
    if width == 1:
        data = (np.frombuffer(raw, np.uint8).astype(np.int32) - 128) << 8
    elif width == 2:
        data = np.frombuffer(raw, "<i2").astype(np.int32)
    elif width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        data = ((b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)) << 8) >> 16  # sign-extend, top 16 bits
    elif width == 4:
        data = np.frombuffer(raw, "<i4") >> 16
    else:
        raise AudioFormatError(f"{name}: {8 * width}-bit samples are not supported")
    if data.size == 0:
        raise AudioFormatError(f"{name} holds no audio")
    mono = data.reshape(-1, channels).mean(axis=1).astype(np.int16)
    return resample(mono, rate, sample_rate)


def chunks(samples: np.ndarray, size: int) -> Iterator[np.ndarray]:
    for start in range(0, len(samples), size):
        yield samples[start:start + size]

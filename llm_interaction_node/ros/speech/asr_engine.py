"""What the asr node decides, without ROS: where utterances begin and end (faster-whisper's
Silero VAD), which audio is the robot's own voice, which results reach the agent, and which
utterance is a spoken stop (barge-in). Times are seconds on the clock of the audio stamps.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

OUTCOME_SENT = "sent"
OUTCOME_STOP = "stop"
OUTCOME_EMPTY = "empty"
OUTCOME_LOW_CONFIDENCE = "low_confidence"
OUTCOME_OWN_VOICE = "own_voice"

# a stop phrase counts anywhere in a short utterance ("no, stop!", "stop that", "wait")
DEFAULT_STOP_PHRASES = ("stop", "halt", "wait", "hold on", "freeze", "abort")
DEFAULT_STOP_MAX_WORDS = 4
# "don't stop", "do not wait", "never halt": a phrase right after one of these is no stop
_NEGATIONS = ("don't", "dont", "do not", "not", "never", "no need to")


@dataclass
class Utterance:
    """A stretch of speech cut from the stream: float32 samples and their audio times."""

    start: float
    end: float
    audio: np.ndarray

    @property
    def duration(self) -> float:
        return self.end - self.start


class Segmenter:
    """Cuts a stream of float32 mono audio into utterances with faster-whisper's VAD.

    ``push(stamp, samples)`` appends a chunk (``stamp`` = time of its first sample) and, every
    ``step_s`` of new audio, runs ``faster_whisper.vad.get_speech_timestamps`` over the audio
    kept since the last cut: speech followed by ``min_silence_s`` of silence is a finished
    utterance (padded by ``speech_pad_s``, shorter than ``min_speech_s`` dropped, split at
    ``max_utterance_s``). Between utterances only the last ``speech_pad_s`` + 1 s are kept, so
    the buffer stays short. A chunk whose stamp does not continue the stream (a gap or a jump of
    more than ``gap_s``) first finishes what was pending; ``flush()`` does so at the end of a
    stream."""

    def __init__(self, sample_rate: int = 16000, threshold: float = 0.5,
                 min_silence_s: float = 0.7, speech_pad_s: float = 0.5,
                 min_speech_s: float = 0.25, max_utterance_s: float = 20.0,
                 step_s: float = 0.2, gap_s: float = 0.5):
        from faster_whisper.vad import VadOptions, get_speech_timestamps
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"vad threshold {threshold} must lie between 0 and 1")
        if speech_pad_s < 0 or min_silence_s < speech_pad_s + 0.05:
            raise ValueError(f"vad min_silence_s ({min_silence_s}) must exceed speech_pad_s "
                             f"({speech_pad_s}) by at least 0.05 s")
        if not 1.0 <= max_utterance_s <= 28.0:
            raise ValueError(f"max_utterance_s {max_utterance_s} must lie between 1 and 28 s "
                             "(Whisper hears 30 s at most)")
        self.sample_rate = sample_rate
        self._vad = get_speech_timestamps
        self._options = VadOptions(threshold=threshold,
                                   min_speech_duration_ms=int(min_speech_s * 1000),
                                   max_speech_duration_s=max_utterance_s,
                                   min_silence_duration_ms=int(min_silence_s * 1000),
                                   speech_pad_ms=int(speech_pad_s * 1000))
        self._step = max(1, int(step_s * sample_rate))
        # between utterances keep the padding plus a second: the VAD may call speech a few
        # windows after it began, and its padding must still find the audio before that
        self._keep = int((speech_pad_s + 1.0) * sample_rate)
        self.gap_s = gap_s
        self._buf = np.zeros(0, np.float32)
        self._t0 = 0.0
        self._unscanned = 0
        self.in_speech = False          # speech has started and not yet ended
        self.speech_start: float | None = None   # when that speech began (stream time)

    @property
    def pending_s(self) -> float:
        return len(self._buf) / self.sample_rate

    def _expected(self) -> float:
        return self._t0 + len(self._buf) / self.sample_rate

    def push(self, stamp: float, samples: np.ndarray) -> list[Utterance]:
        out: list[Utterance] = []
        if len(self._buf) and abs(stamp - self._expected()) > self.gap_s:
            out += self.flush()
        if not len(self._buf):
            self._t0 = stamp
        self._buf = np.concatenate([self._buf, np.asarray(samples, dtype=np.float32)])
        self._unscanned += len(samples)
        if self._unscanned >= self._step:
            out += self._scan(final=False)
        return out

    def flush(self) -> list[Utterance]:
        """The end of the stream: whatever speech is pending is an utterance."""
        return self._scan(final=True) if len(self._buf) else []

    def _scan(self, final: bool) -> list[Utterance]:
        self._unscanned = 0
        n = len(self._buf)
        speeches = self._vad(self._buf, self._options, sampling_rate=self.sample_rate)
        # a finished speech ends before the buffer does (its padding is shorter than the
        # silence that finished it); the last one may still go on
        done = speeches if final else [s for s in speeches if s["end"] < n]
        out = [Utterance(self._t0 + s["start"] / self.sample_rate,
                         self._t0 + s["end"] / self.sample_rate,
                         self._buf[s["start"]:s["end"]].copy()) for s in done]
        if final:
            drop = n
        elif done:
            drop = done[-1]["end"]
        elif not speeches:
            drop = max(0, n - self._keep)
        else:
            drop = 0
        self.in_speech = bool(speeches) and not final and speeches[-1]["end"] >= n
        self.speech_start = self._t0 + speeches[-1]["start"] / self.sample_rate \
            if self.in_speech else None
        self._buf = self._buf[drop:]
        self._t0 += drop / self.sample_rate
        return out


class SpeakingGate:
    """Time windows in which the robot spoke; audio inside them is its own voice.

    ``update(True/False, now)`` follows the tts node's latched speaking topic. A window reaches
    ``lead_s`` before the start (a speaking message a little late) and ``hangover_s`` past the
    end (echo, buffering); an open window reaches to infinity."""

    def __init__(self, lead_s: float = 0.2, hangover_s: float = 0.5, keep_s: float = 300.0):
        self.lead_s, self.hangover_s, self.keep_s = lead_s, hangover_s, keep_s
        self._windows: list[list[float]] = []

    @property
    def speaking(self) -> bool:
        return bool(self._windows) and math.isinf(self._windows[-1][1])

    def update(self, speaking: bool, now: float) -> None:
        if speaking and not self.speaking:
            self._windows.append([now, math.inf])
        elif not speaking and self.speaking:
            self._windows[-1][1] = now
        self._windows = [w for w in self._windows if w[1] + self.keep_s > now]

    def clip(self, start: float, end: float) -> float | None:
        """Where the part of [start, end] after the robot's voice begins: ``start`` when the
        robot did not speak then, a later time when it spoke at the beginning, None when the
        whole stretch lies within or before its speech."""
        keep_from = start
        for w_start, w_end in self._windows:
            lo, hi = w_start - self.lead_s, w_end + self.hangover_s
            if lo < end and keep_from < hi:
                keep_from = max(keep_from, hi)
        return None if keep_from >= end else keep_from


def judge(text: str, confidence: float, min_confidence: float) -> str:
    """OUTCOME_SENT, or why a recognition is dropped (OUTCOME_EMPTY / OUTCOME_LOW_CONFIDENCE)."""
    if not re.search(r"\w", text):
        return OUTCOME_EMPTY
    if confidence < min_confidence:
        return OUTCOME_LOW_CONFIDENCE
    return OUTCOME_SENT


def normalize_words(text: str) -> str:
    """Lower-case words only, repeats collapsed: 'Stop, stop!' -> 'stop'."""
    words = re.findall(r"[a-z0-9']+", text.lower())
    return " ".join(w for i, w in enumerate(words) if i == 0 or w != words[i - 1])


def is_stop_command(text: str, phrases: Iterable[str] = DEFAULT_STOP_PHRASES,
                    max_words: int = DEFAULT_STOP_MAX_WORDS) -> bool:
    """A short utterance (at most ``max_words`` words, repeats collapsed) that contains one of
    the stop phrases as whole words, not right after a negation: "Stop!", "no, stop!",
    "stop that", "wait", "please halt" are stops; "don't stop" and "stop the car and bring
    me the juice" are not (a longer utterance is a request, even if it says stop)."""
    said = normalize_words(text).split()
    if not said or len(said) > max_words:
        return False
    negations = [n.split() for n in _NEGATIONS]
    for phrase in phrases:
        words = normalize_words(phrase).split()
        for i in range(len(said) - len(words) + 1):
            if said[i:i + len(words)] != words:
                continue
            if not any(said[max(0, i - len(n)):i] == n for n in negations):
                return True
    return False


class StateHistory:
    """The robot's state (``interaction/state``) over time, so an utterance is judged on the
    state while it was spoken, not when its recognition finished.

    ``update(state, t)`` records a state received at ``t`` (the first one is taken to have
    held since ever: the topic is latched); ``during(start, end)`` is the set of states in
    force at some moment of [start, end], empty while no state was received."""

    def __init__(self, keep_s: float = 300.0):
        self.keep_s = keep_s
        self._changes: list[tuple[float, str]] = []

    @property
    def known(self) -> bool:
        return bool(self._changes)

    @property
    def current(self) -> str:
        return self._changes[-1][1] if self._changes else ""

    def update(self, state: str, t: float) -> None:
        if self._changes and self._changes[-1][1] == state:
            return
        self._changes.append((-math.inf if not self._changes else t, state))
        # forget old changes, but keep the one in force keep_s ago
        while len(self._changes) > 1 and self._changes[1][0] < t - self.keep_s:
            self._changes.pop(0)

    def during(self, start: float, end: float) -> set[str]:
        states = set()
        for i, (t, state) in enumerate(self._changes):
            until = self._changes[i + 1][0] if i + 1 < len(self._changes) else math.inf
            if t <= end and until > start:
                states.add(state)
        return states

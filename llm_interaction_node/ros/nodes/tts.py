"""ROS 2 node ``tts``: speaks what the robot says (``speech/tts_text``) with espeak-ng.

Every std_msgs/String on ``names.TTS_TEXT`` is queued (nothing is dropped) and spoken in order
by a worker thread, so the executor never waits for speech. After each utterance the node
publishes the text as spoken on ``speech/tts_done`` (std_msgs/String, transient local: a
late subscriber that asks for it gets the last 50).

What it says also goes out as audio on ``speech/tts_audio`` (llm_interaction_interfaces/AudioData,
16 kHz mono S16LE, 0.5 s chunks stamped with their playing time; a second robot or a recorder
can listen), and ``speech/speaking`` (std_msgs/Bool, latched) is true from the start of an
utterance until its audio has played (the 'espeak' backend: until the speaker is done; 'wav':
the audio's length after it was published). The asr node ignores what it hears then: the
robot does not hear itself. The 'log' backend says nothing, so it publishes no audio.

Parameters (``config/tts.yaml``):
  backend           'espeak': play on the audio device; 'wav': write one WAV file per utterance
                    (``tts_0001.wav``, ...) into ``wav_dir`` (headless machines, tests);
                    'log': only log the text
  wav_dir           default ~/.cache/llm_interaction_node/tts
  voice             espeak-ng voice (default 'en')
  words_per_minute  default 160
  espeak_command    default 'espeak-ng'
  max_chars         longer texts are cut (default 2000)
  publish_audio     publish the audio on speech/tts_audio (default true)

If espeak-ng is missing, the audio device fails or the WAV file cannot be written, the node
logs one warning and falls back to 'log'; it keeps running.

    python -m llm_interaction_node.ros.nodes.tts --ros-args --params-file config/tts.yaml
"""
from __future__ import annotations

import queue
import re
import shutil
import subprocess
import sys
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from llm_interaction_interfaces.msg import AudioData
from rclpy.node import Node
from std_msgs.msg import Bool, String

from ...core.settings.config import setting
from .. import names
from ..node_main import run_node
from ..node_parameters import declare_section
from ..qos import LATCHED, latched
from ..speech.audio import AUDIO_QOS, SAMPLE_RATE, AudioFormatError, chunks, decode_wav, to_msg

TTS_DONE = "speech/tts_done"
# tts_done keeps the last utterances for late (transient-local) subscribers: a listener that
# connects while the first utterance is being spoken still gets its tts_done. Volatile
# subscribers (the default) only see new ones.
TTS_DONE_QOS = latched(50)
SPEAKING_QOS = LATCHED
AUDIO_CHUNK = SAMPLE_RATE // 2          # samples per tts_audio message (0.5 s)
BACKENDS = ("espeak", "wav", "log")
DEFAULT_WAV_DIR = "~/.cache/llm_interaction_node/tts"
MAX_CHARS = 2000
_LOG_CHARS = 200                   # how much of a long text goes into a log line
_WAV_HEADER = 44


def clean_text(text: str, max_chars: int = MAX_CHARS) -> str:
    """Control characters (and lone surrogates) become spaces, runs of whitespace one space;
    a text longer than ``max_chars`` is cut, at a word boundary when there is one nearby."""
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Cs") else c for c in text)
    text = " ".join(text.split())
    if max_chars > 0 and len(text) > max_chars:
        cut = text[:max_chars]
        space = cut.rfind(" ")
        text = cut[:space] if space > max_chars * 0.8 else cut
    return text


def espeak_args(command: str, voice: str, words_per_minute: int,
                wav_path: Path | None = None, stdout: bool = False) -> list[str]:
    """The espeak-ng command line; the text goes to its stdin (no shell, no option injection).
    ``wav_path``: write a WAV file; ``stdout``: write the WAV to stdout; neither: play it."""
    args = [command, "-v", voice, "-s", str(int(words_per_minute)), "-b", "1"]
    if wav_path is not None:
        args += ["-w", str(wav_path)]
    elif stdout:
        args += ["--stdout"]
    return args + ["--stdin"]


def espeak_failure(returncode: int, stderr: str, wav_path: Path | None = None) -> str | None:
    """Why an espeak-ng run failed, or None. espeak-ng exits 0 when the audio device cannot be
    opened or the WAV file cannot be written, so its stderr and the file are checked too."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    own = [ln for ln in lines if not ln.startswith("ALSA lib")]
    if returncode != 0 or any(re.search(r"\berror\b|can't write|cannot", ln, re.I) for ln in own):
        detail = "; ".join(own[-3:] or lines[-3:]) or "no message"
        return f"exit code {returncode}: {detail}"
    if wav_path is not None:
        size = wav_path.stat().st_size if wav_path.exists() else 0
        if size <= _WAV_HEADER:
            return f"no audio written to {wav_path}" + (f" ({'; '.join(own[-3:])})" if own else "")
    return None


def next_wav_index(wav_dir: Path) -> int:
    """1 + the highest ``tts_NNNN.wav`` number in ``wav_dir`` (earlier runs are kept)."""
    numbers = [int(m.group(1)) for p in wav_dir.glob("tts_*.wav")
               if (m := re.fullmatch(r"tts_(\d+)\.wav", p.name))]
    return max(numbers, default=0) + 1


def _short(text: str) -> str:
    return text if len(text) <= _LOG_CHARS else text[:_LOG_CHARS] + f"... ({len(text)} chars)"


@dataclass
class TtsSettings:
    """The tts node's parameters (``config/tts.yaml``)."""

    backend: str = setting("wav", "wav (one WAV file per utterance in wav_dir), espeak (the "
                           "default audio device) or log (the text only)")
    wav_dir: str = setting(DEFAULT_WAV_DIR, "where the wav backend writes tts_NNNN.wav")
    voice: str = setting("en", "espeak-ng voice: en, en-us, de, fr, ... (espeak-ng --voices)")
    words_per_minute: int = setting(160, "speaking rate", minimum=1)
    espeak_command: str = setting("espeak-ng", "the espeak-ng program (a full path if it is "
                                  "not on PATH)")
    max_chars: int = setting(MAX_CHARS, "longer texts are cut", minimum=1)
    publish_audio: bool = setting(True, "publish what it says on speech/tts_audio")


class TtsNode(Node):
    """Queues ``tts_text`` messages and speaks them, in order, from a worker thread."""

    def __init__(self, **kwargs):
        super().__init__("tts", **kwargs)
        config = declare_section(self, TtsSettings)
        self._backend = config.backend.strip().lower()
        self._wav_dir = Path(config.wav_dir).expanduser()
        self.config = config
        self._publish_audio = config.publish_audio     # off after a failure to publish
        self._warned = False
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._proc: subprocess.Popen | None = None
        self._closing = threading.Event()
        self._next_wav = 1

        if self._backend not in BACKENDS:
            self._fall_back(f"unknown backend {self._backend!r} (use one of {', '.join(BACKENDS)})")
        if self._backend != "log" and shutil.which(self.config.espeak_command) is None:
            self._fall_back(f"{self.config.espeak_command!r} not found (install it: apt install "
                            "espeak-ng, or set the espeak_command parameter)")
        if self._backend == "wav":
            try:
                self._wav_dir.mkdir(parents=True, exist_ok=True)
                self._next_wav = next_wav_index(self._wav_dir)
            except OSError as exc:
                self._fall_back(f"cannot create wav_dir {self._wav_dir}: {exc}")

        self._done_pub = self.create_publisher(String, TTS_DONE, TTS_DONE_QOS)
        self._audio_pub = self.create_publisher(AudioData, names.TTS_AUDIO, AUDIO_QOS)
        self._speaking_pub = self.create_publisher(Bool, names.SPEAKING, SPEAKING_QOS)
        self._speaking_lock = threading.Lock()
        self._speaking = False
        self._in_utterance = False
        self._speaking_until = 0.0
        self._speaking_pub.publish(Bool(data=False))
        self.create_timer(0.05, self._end_speaking)
        self.create_subscription(String, names.TTS_TEXT, self._on_text, 50)
        self._worker = threading.Thread(target=self._work, name="tts-worker", daemon=True)
        self._worker.start()
        where = f" into {self._wav_dir}" if self._backend == "wav" else ""
        self.get_logger().info(f"backend {self._backend}{where}; voice {self.config.voice}, "
                               f"{self.config.words_per_minute} words/min; listening on "
                               f"{self.resolve_topic_name(names.TTS_TEXT)}")

    @property
    def backend(self) -> str:
        """The backend in use ('log' after a fallback)."""
        return self._backend

    def _on_text(self, msg: String) -> None:
        self._queue.put(msg.data)

    # -- the speaking state: true from the start of an utterance until its audio has played --
    def _now(self) -> float:
        return self.get_clock().now().nanoseconds / 1e9

    def _start_speaking(self) -> None:
        with self._speaking_lock:
            self._in_utterance = True
            if not self._speaking:
                self._speaking = True
                self._speaking_pub.publish(Bool(data=True))

    def _played_until(self, end: float) -> None:
        """The current utterance's audio plays until ``end`` (seconds, ROS clock)."""
        with self._speaking_lock:
            self._speaking_until = max(self._speaking_until, end)

    def _utterance_done(self) -> None:
        with self._speaking_lock:
            self._in_utterance = False

    def _end_speaking(self) -> None:
        with self._speaking_lock:
            if self._speaking and not self._in_utterance and self._now() >= self._speaking_until:
                self._speaking = False
                self._speaking_pub.publish(Bool(data=False))

    def _send_audio(self, wav: Path | bytes) -> None:
        """Publish an utterance's audio on tts_audio, stamped from now on; the speaking state
        lasts until it has played."""
        if not self._publish_audio:
            return
        try:
            samples = decode_wav(wav)
        except AudioFormatError as exc:
            self._publish_audio = False
            self.get_logger().warning(f"cannot publish the audio on {self._audio_pub.topic_name} "
                                      f"({exc}); from now on only the text is spoken")
            return
        start = self._now()
        for i, piece in enumerate(chunks(samples, AUDIO_CHUNK)):
            self._audio_pub.publish(to_msg(piece, start + i * AUDIO_CHUNK / SAMPLE_RATE, "tts"))
        self._played_until(start + len(samples) / SAMPLE_RATE)

    def _synthesize(self, text: str) -> bytes | None:
        """espeak-ng's WAV of ``text`` (for tts_audio while the speaker plays it); None after a
        failure (then espeak-ng does not work: the node falls back to the log)."""
        c = self.config
        args = espeak_args(c.espeak_command, c.voice, c.words_per_minute, stdout=True)
        try:
            self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE)
            try:
                data, stderr = self._proc.communicate(text.encode("utf-8", "replace"),
                                                      timeout=30.0 + 0.05 * len(text))
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.communicate()
                return None
            returncode = self._proc.returncode
        except OSError as exc:
            self._fall_back(f"cannot run {args[0]!r}: {exc}")
            return None
        finally:
            self._proc = None
        if self._closing.is_set() or returncode < 0:
            return None
        failure = espeak_failure(returncode, stderr.decode("utf-8", "replace"))
        if failure is None and len(data) <= _WAV_HEADER:
            failure = "no audio written to stdout"
        if failure:
            self._fall_back(f"{self.config.espeak_command} failed synthesizing ({failure})")
            return None
        return data

    def _fall_back(self, reason: str) -> None:
        if not self._warned:
            self._warned = True
            self.get_logger().warning(f"text-to-speech backend {self._backend!r} does not work: "
                                      f"{reason}; from now on the text is only logged")
        self._backend = "log"

    def _work(self) -> None:
        while True:
            text = self._queue.get()
            if text is None or self._closing.is_set():
                return
            try:
                spoken = clean_text(text, self.config.max_chars)
                if len(text) > len(spoken) and len(clean_text(text, 0)) > len(spoken):
                    self.get_logger().warning(f"a text of {len(text)} characters was cut to "
                                              f"{len(spoken)} (max_chars)")
                if spoken and self._backend != "log":
                    self._start_speaking()
                self._speak(spoken)
                if not self._closing.is_set():
                    self._done_pub.publish(String(data=spoken))
            except Exception as exc:  # noqa: BLE001 - one bad utterance must not stop the node
                if self._closing.is_set():
                    return
                self.get_logger().error(f"speaking failed: {exc!r}")
            finally:
                self._utterance_done()

    def _speak(self, text: str) -> None:
        if not text:
            return
        if self._backend == "log":
            self.get_logger().info(f"say: {_short(text)}")
            return
        wav = self._wav_dir / f"tts_{self._next_wav:04d}.wav" if self._backend == "wav" else None
        if wav is None and self._publish_audio:       # the speaker: its audio for tts_audio first
            audio = self._synthesize(text)
            if audio is None:
                if self._backend == "log":
                    self._speak(text)
                return
            self._send_audio(audio)
        c = self.config
        args = espeak_args(c.espeak_command, c.voice, c.words_per_minute, wav)
        timeout = 30.0 + 0.15 * len(text)          # ~13 characters per second when spoken
        try:
            self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                          errors="replace")
            try:
                _, stderr = self._proc.communicate(text, timeout=timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.communicate()
                self.get_logger().warning(f"{self.config.espeak_command} took more than "
                                          f"{timeout:.0f} s; stopped it: {_short(text)}")
                return
            returncode = self._proc.returncode
        except OSError as exc:
            self._fall_back(f"cannot run {args[0]!r}: {exc}")
            self._speak(text)
            return
        finally:
            self._proc = None
        if self._closing.is_set() or returncode < 0:     # stopped by a signal: shutting down
            self.get_logger().info(f"interrupted: {_short(text)}")
            return
        failure = espeak_failure(returncode, stderr, wav)
        if failure:
            what = "writing a WAV file" if wav else "playing on the audio device"
            self._fall_back(f"{self.config.espeak_command} failed {what} ({failure})")
            self._speak(text)
        elif wav is not None:
            self._next_wav += 1
            self.get_logger().info(f"wrote {wav} ({wav.stat().st_size} bytes): {_short(text)}")
            self._send_audio(wav)
        else:
            self._played_until(self._now())
            self.get_logger().info(f"said: {_short(text)}")

    def close(self, timeout: float = 2.0) -> None:
        """Stop the worker: the utterance being spoken is cut off, queued ones are dropped."""
        self._closing.set()
        self._queue.put(None)
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        self._worker.join(timeout)


def main(args: list[str] | None = None) -> int:
    return run_node(TtsNode, "tts", args)


if __name__ == "__main__":
    sys.exit(main())

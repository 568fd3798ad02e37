"""The speech nodes as real ROS 2 processes: the tts node (espeak-ng) and the speech console.

Every test puts its nodes into a namespace of its own, so concurrent test sessions that happen
to share a ROS domain id do not talk to each other's nodes.
"""
import dataclasses
import io
import random
import shutil
import signal
import stat
import uuid
from contextlib import contextmanager

import pytest
from llm_interaction_interfaces.msg import ConsoleEntry
from std_msgs.msg import Empty, String
from std_srvs.srv import Trigger

from llm_interaction_node.core.settings.config_files import config_path
from llm_interaction_node.ros import names
from llm_interaction_node.ros.graph import TTS, GraphRunner
from llm_interaction_node.ros.nodes.speech_console import render_entry, render_heard, run_console
from llm_interaction_node.ros.nodes.tts import TTS_DONE, TTS_DONE_QOS, clean_text, espeak_failure
from ros_support import node_process, probe_node

TTS_MODULE = "llm_interaction_node.ros.nodes.tts"
CONSOLE_MODULE = "llm_interaction_node.ros.nodes.speech_console"
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng not installed")


def unique_ns() -> str:
    return f"/t{uuid.uuid4().hex[:10]}"


def tts_args(ns, **params):
    args = ["-r", f"__ns:={ns}", "--params-file", str(config_path("tts.yaml"))]
    for key, value in params.items():
        args += ["-p", f"{key}:={value}"]
    return args


class Speaker:
    """The probe's side of a tts node: publish texts, collect tts_done."""

    def __init__(self, probe, ns):
        self.probe = probe
        self.done = []
        self.pub = probe.node.create_publisher(String, f"{ns}/{names.TTS_TEXT}", 100)
        # transient local: the node's writer may match this reader only after we see it
        self.sub = probe.node.create_subscription(String, f"{ns}/{TTS_DONE}", self.done.append,
                                                  TTS_DONE_QOS)

    def wait_connected(self, count: int = 1):
        self.probe.wait_until(lambda: self.pub.get_subscription_count() >= count
                              and self.sub.get_publisher_count() >= count, 30,
                              "the tts node(s) to connect")

    def say(self, text: str):
        self.pub.publish(String(data=text))

    def wait_done(self, n: int, timeout: float = 60.0):
        self.probe.wait_until(lambda: len(self.done) >= n, timeout, f"{n} tts_done messages")
        return [m.data for m in self.done]


@contextmanager
def wav_tts(tmp_path, probe_name):
    """A tts node writing WAV files into ``tmp_path/wav`` and a connected :class:`Speaker`:
    yields (speaker, node process, wav directory)."""
    wav_dir, ns = tmp_path / "wav", unique_ns()
    with probe_node(probe_name) as probe, \
            node_process(TTS_MODULE, tmp_path / "tts.log",
                         ros_args=tts_args(ns, backend="wav", wav_dir=wav_dir)) as tts:
        speaker = Speaker(probe, ns)
        speaker.wait_connected()
        yield speaker, tts, wav_dir


def wav_ok(path):
    data = path.read_bytes()
    return data[:4] == b"RIFF" and data[8:12] == b"WAVE" and len(data) > 10_000


@needs_espeak
def test_tts_writes_one_wav_file_per_utterance_in_order(tmp_path):
    with wav_tts(tmp_path, "tts_probe") as (speaker, tts, wav_dir):
        speaker.say("Here is your mango juice.")
        speaker.say("I put the cup on the table.")
        assert speaker.wait_done(2) == ["Here is your mango juice.", "I put the cup on the table."]
        first, second = wav_dir / "tts_0001.wav", wav_dir / "tts_0002.wav"
        assert wav_ok(first) and wav_ok(second)
        assert sorted(p.name for p in wav_dir.iterdir()) == ["tts_0001.wav", "tts_0002.wav"]
        log = tts.log()
        assert f"wrote {first}" in log and "Here is your mango juice." in log
        assert "WARN" not in log
        assert tts.alive()
    assert tts.proc.returncode == 0
    assert "Traceback" not in tts.log_path.read_text()


@needs_espeak
def test_tts_survives_garbage(tmp_path):
    rng = random.Random(7)
    alphabet = ([chr(c) for c in range(1, 32)] + ["\x7f", "\x1b[31m", "\u200b", "ü", "漢", "🤖",
                " ", "juice ", "<speak>", "&amp;", "-v ", '"'])
    garbage = "".join(rng.choice(alphabet) for _ in range(50_000))[:50_000]
    assert len(garbage) == 50_000
    with wav_tts(tmp_path, "tts_garbage_probe") as (speaker, tts, wav_dir):
        speaker.say(garbage)
        speaker.say("")
        speaker.say("still here")
        done = speaker.wait_done(3)
        assert done[1:] == ["", "still here"]
        assert 1_500 < len(done[0]) <= 2_000
        assert not any(ord(c) < 32 or ord(c) == 127 for c in done[0])
        assert wav_ok(wav_dir / "tts_0001.wav") and wav_ok(wav_dir / "tts_0002.wav")
        assert not (wav_dir / "tts_0003.wav").exists()           # nothing to say for ''
        assert tts.alive()
        assert "cut to" in tts.log()


def test_tts_falls_back_to_logging_with_one_warning(tmp_path):
    """espeak-ng missing, or an audio device that fails (espeak-ng exits 0 and prints an
    error): one warning each, the node keeps running and reports every utterance."""
    fake = tmp_path / "fake-espeak"
    fake.write_text("#!/bin/sh\ncat > /dev/null\n"
                    "echo \"ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default\" >&2\n"
                    "echo 'error: No such file or directory' >&2\nexit 0\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    ns = unique_ns()
    with probe_node("tts_fallback_probe") as probe, \
            node_process(TTS_MODULE, tmp_path / "missing.log", ros_args=tts_args(
                ns, backend="espeak", espeak_command=tmp_path / "no-such-espeak")) as missing, \
            node_process(TTS_MODULE, tmp_path / "noaudio.log", ros_args=tts_args(
                ns, backend="espeak", espeak_command=fake)) as noaudio:
        speaker = Speaker(probe, ns)
        speaker.wait_connected(2)
        for text in ("one", "two", "three"):
            speaker.say(text)
        assert sorted(speaker.wait_done(6)) == ["one", "one", "three", "three", "two", "two"]
        for node, why in ((missing, "not found"), (noaudio, "No such file or directory")):
            log = node.log()
            assert log.count("[WARN]") == 1, log
            assert "does not work" in log and why in log
            assert "say: one" in log and "say: three" in log
            assert node.alive()


def test_clean_text_and_espeak_failure_rules():
    assert clean_text("a\x00b\x1b[2Jc\n\td  e") == "a b [2Jc d e"
    assert clean_text("word " * 1000, 2000) == ("word " * 400).strip()[:1999]
    assert len(clean_text("x" * 5000, 2000)) == 2000
    assert espeak_failure(0, "") is None
    assert espeak_failure(0, "ALSA lib foo.c: something harmless") is None
    assert "No such file" in espeak_failure(0, "ALSA lib x\nerror: No such file or directory")
    assert espeak_failure(1, "Error: voice does not exist") is not None


def test_render_entry():
    assert render_entry("input", "for x in y:\n    say(x)\n") == ">>> for x in y:\n...     say(x)"
    assert render_entry("output", "'success'\n") == "'success'"


def test_speech_console_process(tmp_path):
    ns = unique_ns()
    with probe_node("console_probe") as probe, \
            node_process(CONSOLE_MODULE, tmp_path / "console.log", args=["--transcript"],
                         ros_args=["-r", f"__ns:={ns}", "-p", "service_timeout:=0.5"],
                         stdin=True) as console:
        heard, stops = [], []
        asr_sub = probe.node.create_subscription(String, f"{ns}/{names.ASR_TEXT}", heard.append, 10)
        stop_sub = probe.node.create_subscription(Empty, f"{ns}/{names.STOP}", stops.append, 10)
        tts_pub = probe.node.create_publisher(String, f"{ns}/{names.TTS_TEXT}", 10)
        entries = probe.node.create_publisher(ConsoleEntry, f"{ns}/{names.TRANSCRIPT}", 100)
        progress = probe.node.create_publisher(String, f"{ns}/{names.LLM_PROGRESS}", 10)
        console.wait_for_log("speech console: type what you say", 30)
        probe.wait_until(lambda: asr_sub.get_publisher_count() >= 1
                         and stop_sub.get_publisher_count() >= 1
                         and tts_pub.get_subscription_count() >= 1
                         and entries.get_subscription_count() >= 1
                         and progress.get_subscription_count() >= 1, 30, "the console to connect")
        progress.publish(String(data="the model is reading the prompt: 512 of 4096 tokens, 6 s"))
        console.wait_for_log("(the model is reading the prompt: 512 of 4096 tokens, 6 s)", 20)

        def type_line(text):
            console.proc.stdin.write(text + "\n")
            console.proc.stdin.flush()

        type_line("bring me the juice")
        probe.wait_until(lambda: len(heard) >= 1, 20, "the typed line on asr_text")
        assert [m.data for m in heard] == ["bring me the juice"]

        tts_pub.publish(String(data="On my way to the kitchen."))
        console.wait_for_log("robot: On my way to the kitchen.", 20)
        entries.publish(ConsoleEntry(kind="input", text="move_to('kitchen')\nsay('hi')"))
        entries.publish(ConsoleEntry(kind="output", text="'success'"))
        console.wait_for_log(">>> move_to('kitchen')\n... say('hi')\n'success'\n", 20)

        type_line("/stop")
        probe.wait_until(lambda: len(stops) == 1, 20, "the stop message")
        type_line("/reset")
        console.wait_for_log(f"reset: no node serves {ns}/interaction/reset "
                             "(is interaction_node running?)", 20)
        resets = []

        def serve_reset(request, response):
            resets.append(request)
            response.success, response.message = True, "forgot the task"
            return response

        probe.node.create_service(Trigger, f"{ns}/{names.RESET}", serve_reset)
        type_line("/reset")
        console.wait_for_log("reset: forgot the task", 20)
        type_line("/help")
        console.wait_for_log("/quit    leave the console", 20)
        type_line("/dance")
        console.wait_for_log("unknown command /dance", 20)
        type_line("   ")
        type_line("/quit")
        assert console.proc.wait(timeout=20) == 0
        assert [m.data for m in heard] == ["bring me the juice"] and len(resets) == 1
        log = console.log()
        assert "Traceback" not in log and "\x1b[" not in log      # not a terminal: not dimmed


@pytest.mark.parametrize("how", ["eof", "ctrl-c"])
def test_speech_console_ends_cleanly(tmp_path, how):
    with node_process(CONSOLE_MODULE, tmp_path / "console.log", stdin=True,
                      ros_args=["-r", f"__ns:={unique_ns()}"]) as console:
        console.wait_for_log("speech console:", 30)
        if how == "eof":
            console.proc.stdin.close()
        else:
            console.proc.send_signal(signal.SIGINT)
        assert console.proc.wait(timeout=20) == 0
    assert "Traceback" not in console.log_path.read_text()


def test_run_console_in_process_with_nobody_listening(tmp_path):
    out = io.StringIO()
    ns = unique_ns()
    rc = run_console(["--ros-args", "-p", "listener_timeout:=0.3", "-r", f"__ns:={ns}"],
                     stdin=io.StringIO("/help\nhello?\n"), stdout=out)
    assert rc == 0
    text = out.getvalue()
    assert text.startswith("speech console:")
    assert f"published on {ns}/speech/asr_text" in text
    assert f"(nobody listens on {ns}/speech/asr_text; is interaction_node running?)" in text


@needs_espeak
def test_graph_runner_runs_the_tts_node_of_the_sim_graph(tmp_path):
    wav_dir, ns, out = tmp_path / "wav", unique_ns(), io.StringIO()
    tts = dataclasses.replace(TTS, remappings={"__ns": ns})
    runner = GraphRunner([tts], {"tts": {"wav_dir": str(wav_dir)}}, log_dir=tmp_path / "logs",
                         out=out)
    with probe_node("runner_probe") as probe, runner:
        speaker = Speaker(probe, ns)
        speaker.wait_connected()
        speaker.say("Started by the graph runner.")
        assert speaker.wait_done(1) == ["Started by the graph runner."]
        assert wav_ok(wav_dir / "tts_0001.wav")
    assert runner.exit_codes() == {"tts": 0}                   # SIGINT: a clean shutdown
    log = (tmp_path / "logs" / "tts.log").read_text()
    assert "wrote" in log and "Traceback" not in log
    assert "!! tts" not in out.getvalue()


def test_render_heard():
    assert render_heard("sent", "Bring me the juice.", 0.714) == "you: Bring me the juice.  (0.71)"
    assert render_heard("stop", "Stop!", 0.4) == "you: Stop!  (0.40) -> stop"
    assert render_heard("low_confidence", "So you can", 0.21) == \
        "(not understood: 'So you can', confidence 0.21)"
    assert render_heard("empty", "", 0.0) == "(heard something, recognised nothing)"
    assert render_heard("own_voice", "", 0.0) == ""


def test_speech_mode_console_shows_what_was_heard_and_sends_no_typed_text(tmp_path):
    """`llm-interaction run --speech` runs the console with --speech: AsrResults are shown,
    commands work, typed text is not published."""
    from llm_interaction_interfaces.msg import AsrResult
    ns = unique_ns()
    with probe_node("speech_mode_probe") as probe, \
            node_process(CONSOLE_MODULE, tmp_path / "console.log", args=["--speech"],
                         ros_args=["-r", f"__ns:={ns}"], stdin=True) as console:
        heard = probe.collect(String, f"{ns}/{names.ASR_TEXT}")
        stops = probe.collect(Empty, f"{ns}/{names.STOP}")
        results = probe.node.create_publisher(AsrResult, f"{ns}/{names.ASR_RESULT}", 50)
        console.wait_for_log("speech console (speech mode)", 30)
        probe.wait_until(lambda: results.get_subscription_count() >= 1, 30, "the console")
        results.publish(AsrResult(text="Bring me the juice.", confidence=0.71, outcome="sent"))
        results.publish(AsrResult(text="So you can", confidence=0.21, outcome="low_confidence"))
        console.wait_for_log("(not understood: 'So you can', confidence 0.21)", 20)
        assert "you: Bring me the juice.  (0.71)" in console.log()
        console.proc.stdin.write("bring me the juice\n/stop\n")
        console.proc.stdin.flush()
        console.wait_for_log("(stop sent)", 20)
        assert "(speech mode: speak into the microphone" in console.log()
        probe.wait_until(lambda: len(stops) == 1, 20, "the stop")
        assert heard == []
        console.proc.stdin.close()
        assert console.proc.wait(timeout=20) == 0

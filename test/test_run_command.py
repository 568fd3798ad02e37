"""The README's main command: `llm-interaction run` starts the graph and talks through the console.

Real processes: the CLI starts household_sim, interaction_node and tts; this test types into
its console (stdin) like a user. Only the LLM is a stand-in (an OpenAI-compatible server).
"""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fake_llm_server import FakeLLMServer

pytestmark = pytest.mark.slow
CLI = Path(sys.executable).parent / "llm-interaction"


def read_until(proc, lines, text, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if text in line:
            return True
    return False


def test_run_starts_the_graph_and_the_console_talks_to_the_robot(tmp_path):
    llm = FakeLLMServer()
    llm.texts = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
                 "say('I am at the kitchen counter.')", "wait_for_trigger()"]
    llm.text = "wait_for_trigger()"
    log_dir = tmp_path / "logs"
    proc = subprocess.Popen(
        [str(CLI), "run", "--llm-base-url", llm.url, "--llm-model", "scripted",
         "--memory-path", str(tmp_path / "memory"), "--log-dir", str(log_dir),
         "--param", f"tts:wav_dir:={tmp_path / 'wav'}", "--param", "household_sim:time_scale:=0.0"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: list[str] = []
    try:
        assert read_until(proc, lines, "speech console", 60), "".join(lines)
        proc.stdin.write("please go to the kitchen counter\n")
        proc.stdin.flush()
        assert read_until(proc, lines, "robot: I am at the kitchen counter.", 180), \
            "".join(lines) + "".join(p.read_text() for p in log_dir.glob("*.log"))
        deadline = time.monotonic() + 60                 # the tts node speaks it into a WAV file
        while not list((tmp_path / "wav").glob("*.wav")) and time.monotonic() < deadline:
            time.sleep(0.1)
        proc.stdin.write("/quit\n")
        proc.stdin.flush()
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        llm.close()
    output = "".join(lines)
    assert ">>> move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))" in output
    assert sorted(p.name for p in log_dir.glob("*.log")) == [
        "household_sim.log", "interaction_node.log", "tts.log"]
    # every node was stopped with the console
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(log_dir) not in ps and str(tmp_path / "memory") not in ps
    assert list((tmp_path / "wav").glob("*.wav")), "the tts node wrote no speech"


def test_run_with_no_key_uses_the_embedded_model(tmp_path):
    """A fresh machine with no key: the README command starts and the robot answers a request
    with the local model (right or wrong)."""
    from llm_interaction_node.core.llm.local import local_available
    if not local_available():
        pytest.skip("embedded model not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_INTERACTION_", "OPENAI_"))}
    log_dir = tmp_path / "logs"
    proc = subprocess.Popen(
        [str(CLI), "run", "--memory-path", str(tmp_path / "memory"), "--log-dir", str(log_dir),
         "--param", f"tts:wav_dir:={tmp_path / 'wav'}", "--param", "household_sim:time_scale:=0.0",
         "--param", "interaction_node:agent.max_statements_per_turn:=2"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**env, "PYTHONUNBUFFERED": "1"})
    lines: list[str] = []
    try:
        assert read_until(proc, lines, "speech console", 120), "".join(lines)
        assert "TINY" in "".join(lines)                     # it says plainly what it runs
        proc.stdin.write("please bring me the mango juice\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 300
        answered = False
        while time.monotonic() < deadline and not answered:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            answered = line.startswith(">>> ") and "wait_for_trigger()" not in line
        assert answered, "".join(lines) + "".join(p.read_text() for p in log_dir.glob("*.log"))
        node_log = (log_dir / "interaction_node.log").read_text()
        assert "embedded gemma3-270m" in node_log
        proc.stdin.write("/quit\n")
        proc.stdin.flush()
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()

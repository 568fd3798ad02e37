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


def read_until(proc, lines, match, timeout):
    """Read console lines into ``lines`` until one contains ``match`` (a string) or
    satisfies it (a predicate); False on timeout or end of output."""
    found = match if callable(match) else (lambda line: match in line)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if found(line):
            return True
    return False


def start_run(tmp_path, *options, env=os.environ):
    """`llm-interaction run` with the test's memory, logs and WAV dir, an instant simulator,
    and its console on pipes."""
    return subprocess.Popen(
        [str(CLI), "run", "--memory-path", str(tmp_path / "memory"),
         "--log-dir", str(tmp_path / "logs"), "--param", f"tts:wav_dir:={tmp_path / 'wav'}",
         "--param", "household_sim:time_scale:=0.0", *options],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**env, "PYTHONUNBUFFERED": "1"})


def type_line(proc, text):
    proc.stdin.write(text + "\n")
    proc.stdin.flush()


def test_run_starts_the_graph_and_the_console_talks_to_the_robot(tmp_path):
    llm = FakeLLMServer()
    llm.texts = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
                 "say('I am at the kitchen counter.')", "wait_for_trigger()"]
    llm.text = "wait_for_trigger()"
    log_dir = tmp_path / "logs"
    proc = start_run(tmp_path, "--llm-base-url", llm.url, "--llm-model", "scripted")
    lines: list[str] = []
    try:
        assert read_until(proc, lines, "speech console", 60), "".join(lines)
        type_line(proc, "please go to the kitchen counter")
        assert read_until(proc, lines, "robot: I am at the kitchen counter.", 180), \
            "".join(lines) + "".join(p.read_text() for p in log_dir.glob("*.log"))
        deadline = time.monotonic() + 60                 # the tts node speaks it into a WAV file
        while not list((tmp_path / "wav").glob("*.wav")) and time.monotonic() < deadline:
            time.sleep(0.1)
        type_line(proc, "/quit")
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
    proc = start_run(tmp_path, "--param", "interaction_node:agent.max_statements_per_turn:=2",
                     env=env)
    lines: list[str] = []
    try:
        assert read_until(proc, lines, "speech console", 120), "".join(lines)
        assert "TINY" in "".join(lines)                     # it says plainly what it runs
        type_line(proc, "please bring me the mango juice")
        answered = read_until(proc, lines, lambda line: line.startswith(">>> ")
                              and "wait_for_trigger()" not in line, 300)
        assert answered, "".join(lines) + "".join(p.read_text() for p in log_dir.glob("*.log"))
        node_log = (log_dir / "interaction_node.log").read_text()
        assert "embedded gemma3-270m" in node_log
        type_line(proc, "/quit")
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()

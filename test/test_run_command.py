"""The README's main command: `llm-interaction run` starts the graph and talks through the console.

Real processes: the CLI starts household_sim, interaction_node and tts; this test types into
its console (stdin) like a user. Only the LLM is a stand-in (an OpenAI-compatible server).
"""
import os
import subprocess
import sys
import time
from contextlib import contextmanager
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


@contextmanager
def running(tmp_path, *options, llm=None, env=os.environ):
    """:func:`start_run` (with ``llm``: against that stand-in, model 'scripted'); yields the
    process and, whatever happens, kills it if it still runs and closes the stand-in."""
    endpoint = ("--llm-base-url", llm.url, "--llm-model", "scripted") if llm else ()
    proc = start_run(tmp_path, *endpoint, *options, env=env)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        if llm is not None:
            llm.close()


def quit_console(proc):
    """Leave the console as a user does; the run stops every node and exits with 0."""
    type_line(proc, "/quit")
    assert proc.wait(60) == 0


def test_run_starts_the_graph_and_the_console_talks_to_the_robot(tmp_path):
    llm = FakeLLMServer()
    llm.texts = ["move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
                 "say('I am at the kitchen counter.')", "wait_for_trigger()"]
    llm.text = "wait_for_trigger()"
    log_dir = tmp_path / "logs"
    # the options beat the environment (defaults < params file < environment < options)
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    lines: list[str] = []
    with running(tmp_path, "--llm-mode", "completion", llm=llm,
                 env={**os.environ, "LLM_INTERACTION_BASE_URL": dead,
                      "LLM_INTERACTION_MODEL": "env-model",
                      "LLM_INTERACTION_MODE": "chat"}) as proc:
        assert read_until(proc, lines, "speech console", 60), "".join(lines)
        assert f"LLM: LLM completion mode, model 'scripted' at {llm.url}" in "".join(lines)
        type_line(proc, "please go to the kitchen counter")
        assert read_until(proc, lines, "robot: I am at the kitchen counter.", 180), \
            "".join(lines) + "".join(p.read_text() for p in log_dir.glob("*.log"))
        deadline = time.monotonic() + 60                 # the tts node speaks it into a WAV file
        while not list((tmp_path / "wav").glob("*.wav")) and time.monotonic() < deadline:
            time.sleep(0.1)
        quit_console(proc)
    output = "".join(lines)
    assert ">>> move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))" in output
    assert llm.requests and {q["json"]["model"] for q in llm.requests} == {"scripted"}
    assert sorted(p.name for p in log_dir.glob("*.log")) == [
        "household_sim.log", "interaction_node.log", "tts.log"]
    # each node of the interaction node's process has its own name (a global __node remapping)
    assert "Publisher already registered" not in (log_dir / "interaction_node.log").read_text()
    # every node was stopped with the console
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(log_dir) not in ps and str(tmp_path / "memory") not in ps
    assert list((tmp_path / "wav").glob("*.wav")), "the tts node wrote no speech"


def test_run_with_a_bad_world_says_so_in_one_line_and_leaves_no_console_on_dead_nodes(
        tmp_path):
    """Issue 45: `run` with a bad world kept the console open on dead nodes and exited 0.
    A bad --world is one line before any node starts (exit 2); a node that dies anyway (here
    a bad knowledge file given as a parameter) ends the console, exit code 1."""
    world = (Path(__file__).resolve().parent.parent / "config/worlds/drinks_and_cup.yaml")
    misspelt = tmp_path / "misspelt.yaml"
    misspelt.write_text(world.read_text().replace("  position: [-0.5, -2.3]",
                                                  "  positon: [-0.5, -2.3]"))
    llm = FakeLLMServer()
    with running(tmp_path, "--world", str(misspelt), llm=llm) as proc:
        out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 2, out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {misspelt}: human: unknown key 'positon' (did you mean "
                      "'position'?); known: position"], out
    assert "started" not in out
    lines: list[str] = []
    start = time.monotonic()
    with running(tmp_path, "--param", f"interaction_node:knowledge:={misspelt}",
                 llm=FakeLLMServer()) as proc:           # stdin stays open: a user at it
        assert read_until(proc, lines, "the console ended", 120), "".join(lines)
        assert proc.wait(60) == 1
    out = "".join(lines)
    assert "interaction_node exited with code 2" in out
    assert "unknown key 'positon'" in out and "Traceback" not in out
    assert "error: interaction_node exited (see above); the console ended" in out
    assert time.monotonic() - start < 90


@pytest.mark.embedded_model     # 8.5 min of the suite's 24 (issue 45): the one `run` with the model
@pytest.mark.timeout(1500)
def test_run_with_no_key_brings_the_juice_with_the_embedded_model(tmp_path):
    """Issue 10's check: a fresh machine with no key, the README command, "bring me the juice"
    in the drinks-and-cup world: with the embedded Qwen2.5-Coder-1.5B the robot moves, grasps
    the juice and hands it over (the simulator's world state says so)."""
    import json

    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    from llm_interaction_node.core.llm.local import local_available
    from llm_interaction_node.ros import names
    from ros_support import probe_node
    if not local_available():
        pytest.skip("embedded model not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_INTERACTION_", "OPENAI_"))}
    log_dir = tmp_path / "logs"
    lines: list[str] = []
    with probe_node("juice_probe") as probe, running(tmp_path, env=env) as proc:
        states = probe.collect(String, names.WORLD_STATE, QoSProfile(
            depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
            reliability=ReliabilityPolicy.RELIABLE))
        assert read_until(proc, lines, "speech console", 180), "".join(lines)
        assert "Qwen2.5-Coder-1.5B" in "".join(lines)      # it says plainly what it runs
        type_line(proc, "bring me the juice")

        def handed_over():
            objects = json.loads(states[-1].data)["objects"] if states else {}
            return any("juice" in n and o.get("held_by") == "human"
                       for n, o in objects.items())
        try:
            probe.wait_until(handed_over, 900, "the juice in the human's hand")
        except TimeoutError:
            raise AssertionError("".join(lines) + (log_dir / "interaction_node.log")
                                 .read_text()[-4000:]) from None
        node_log = (log_dir / "interaction_node.log").read_text()
        assert "embedded Qwen2.5-Coder-1.5B" in node_log
        quit_console(proc)


def test_warm_up_only_waits_for_the_idle_robot_then_stops_every_node(tmp_path):
    """`make run` runs `llm-interaction run --warm-up-only` once after install (issue 44 item 6):
    it starts the graph, returns 0 once the interaction node says `idle` (an endpoint keeps no
    state: at once) and leaves no node behind; a node that dies makes it fail (1), not hang."""
    llm = FakeLLMServer()
    with running(tmp_path, "--warm-up-only", llm=llm) as proc:
        out, _ = proc.communicate(timeout=180)
    assert proc.returncode == 0, out
    assert "warming up: nothing to evaluate for an LLM endpoint" in out
    assert "warmed up in" in out and "speech console" not in out
    assert "stopping the nodes" in out
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(tmp_path / "logs") not in ps
    assert llm.requests == []                 # nothing asked of the model: no request came
    world = (Path(__file__).resolve().parent.parent / "config/worlds/drinks_and_cup.yaml")
    misspelt = tmp_path / "misspelt.yaml"
    misspelt.write_text(world.read_text().replace("  position: [-0.5, -2.3]",
                                                  "  positon: [-0.5, -2.3]"))
    with running(tmp_path, "--warm-up-only", "--param",
                 f"interaction_node:knowledge:={misspelt}", llm=FakeLLMServer()) as proc:
        out, _ = proc.communicate(timeout=180)
    assert proc.returncode == 1, out
    assert "interaction_node exited with code 2" in out
    assert "error: the warm-up did not finish: a node exited" in out

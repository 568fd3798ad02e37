"""A shared Chroma server (``chroma run``) between processes, an unreachable server, and
crash safety: writers killed with SIGKILL never leave a partly stored example."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import CHROMA, ChromaServer, free_port
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.connection import MemoryServerUnreachable
from llm_interaction_node.core.memory.store import ExampleMemory

ROOT = Path(__file__).resolve().parent.parent


def dialog(*utterances: str) -> str:
    lines = []
    for text in utterances:
        lines += [">>> wait_for_trigger()", repr({"type": "dialog", "text": text}),
                  ">>> say('Ok.')"]
    return "\n".join(lines + [">>> wait_for_trigger()"])


READER = textwrap.dedent("""
    import json, sys
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.store import ExampleMemory
    memory = ExampleMemory("humanoid", MemoryConfig(host="127.0.0.1", port=int(sys.argv[1])))
    example, score = memory.retrieve([sys.argv[2]], k=1)[0]
    print(json.dumps({"id": example.id, "transcript": example.transcript, "score": score,
                      "count": memory.count()}))
""")


def test_two_processes_share_a_chroma_server(chroma_server):
    memory = ExampleMemory("humanoid", MemoryConfig(host="127.0.0.1", port=chroma_server))
    assert memory.count() == 0
    memory.add(dialog("wipe the dining table"), "seed", origin="wipe.txt")
    # a long transcript: metadata well beyond 4 kB goes through the server
    long = dialog("bring me the mango juice and a cup", "yes, both on the tray") + \
        "\n".join(f"\n>>> say('step {n}')" for n in range(300))
    learned = memory.add(long, "learned", origin="robot-a", problem="Too slow.",
                         improvement="Carry both at once.")
    assert len(learned.transcript.encode()) > 4096
    done = subprocess.run([sys.executable, "-c", READER, str(chroma_server),
                           "could you bring me some mango juice"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["id"] == learned.id and seen["transcript"] == learned.transcript
    assert seen["count"] == 2
    assert memory.get(learned.id).improvement == "Carry both at once."
    assert [e.id for e in memory.forget("mango juice")] == [learned.id]


def test_unreachable_server_is_a_clear_error():
    port = free_port()
    with pytest.raises(MemoryServerUnreachable) as error:
        ExampleMemory("humanoid", MemoryConfig(host="127.0.0.1", port=port))
    message = str(error.value)
    assert f"127.0.0.1:{port}" in message and f"chroma run --path DIR --port {port}" in message


WRITER = textwrap.dedent("""
    import hashlib, sys, numpy as np
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.store import ExampleMemory

    def fake_embed(texts):      # no model: the test is about Chroma's writes
        rows = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha1(t.encode()).digest()[:4], "little")
            v = np.random.default_rng(seed).normal(size=384).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.stack(rows)

    memory = ExampleMemory("humanoid", MemoryConfig(path=sys.argv[1]), embedder=fake_embed)
    tag = sys.argv[2]
    print("ready", flush=True)
    n = 0
    while True:
        said = [f"{tag} request {n} part {j} " + "x" * (n % 50) for j in range(2 + n % 5)]
        lines = []
        for s in said:
            lines += [">>> wait_for_trigger()", repr({"type": "dialog", "text": s}), ">>> \
say('ok')"]
        memory.add("\\n".join(lines) + "\\n" + ">>> pass\\n" * (n % 40), "learned", origin=tag)
        n += 1
""")

CHECKER = textwrap.dedent("""
    import hashlib, json, sys
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.store import ExampleMemory
    memory = ExampleMemory("humanoid", MemoryConfig(path=sys.argv[1]), embedder=lambda t: None)
    got = memory.collection.get(include=["documents", "metadatas"])
    groups = {}
    for rid, doc, meta in zip(got["ids"], got["documents"], got["metadatas"]):
        groups.setdefault(meta["example_id"], []).append((rid, doc, meta))
    bad = []
    for eid, recs in groups.items():
        n = recs[0][2]["n_rec"]
        primary = [m for _, _, m in recs if m["rec"] == 0]
        ok = (len(recs) == n and sorted(m["rec"] for _, _, m in recs) == list(range(n))
              and len(primary) == 1 and len({m["digest"] for _, _, m in recs}) == 1
              and hashlib.sha1(primary[0]["transcript"].encode()).hexdigest()[:16]
                  == primary[0]["digest"]
              and sorted(d for _, d, _ in recs) == sorted(json.loads(primary[0]["keys"])))
        if not ok:
            bad.append(eid)
    print(json.dumps({"examples": len(groups), "records": len(got["ids"]), "bad": bad,
                      "count": memory.count()}))
""")


@pytest.mark.slow
def test_sigkill_never_leaves_a_partial_example(tmp_path):
    path = str(tmp_path / "memory")
    rng = random.Random(os.getpid())
    previous = 0
    for round_ in range(5):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, path, f"round{round_}"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  cwd=ROOT)
        try:
            assert writer.stdout.readline().strip() == "ready", writer.stderr.read()
            time.sleep(rng.uniform(0.2, 1.2))
            assert writer.poll() is None, writer.stderr.read()
        finally:
            writer.send_signal(signal.SIGKILL)
            writer.wait()
        assert writer.returncode == -signal.SIGKILL
        done = subprocess.run([sys.executable, "-c", CHECKER, path], capture_output=True,
                              text=True, timeout=120, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        state = json.loads(done.stdout.strip().splitlines()[-1])
        assert state["bad"] == [], state
        assert state["count"] == state["examples"] > previous      # each round added some
        previous = state["examples"]


@pytest.mark.skipif(not CHROMA.exists(), reason="no chroma script in the venv")
def test_a_frozen_server_costs_one_timeout_and_a_stop_does_not_wait_for_it(tmp_path):
    """Issue 45: a Chroma server frozen by SIGSTOP held the robot for the whole freeze (no
    HTTP timeout, retrieval not interruptible). Now a request gets the outage sentence and
    an answer after one memory.timeout_s, and a stop ends a turn that waits for the memory
    at once."""
    import threading

    from llm_interaction_node.core.agent import STOPPED
    from llm_interaction_node.core.llm import ScriptedLLM
    from llm_interaction_node.core.memory.source import MEMORY_OUTAGE
    from llm_interaction_node.core.user.channel import EventQueue
    from llm_interaction_node.session import build_session, make_world
    from llm_interaction_node.settings import Settings

    server = ChromaServer(tmp_path / "chroma", tmp_path / "chroma.log")
    server.start()
    timeout_s = 4.0
    queue = EventQueue()
    spoken: list[str] = []
    thaw = threading.Timer(40.0, server.thaw)       # main waited for the whole freeze
    try:
        settings = Settings.from_dict({"memory": {"host": "127.0.0.1", "port": server.port,
                                                  "timeout_s": timeout_s,
                                                  "path": str(tmp_path / "local")}})
        llm = ScriptedLLM(["say('Here I am.')", "wait_for_trigger()"])
        session = build_session("humanoid", make_world("humanoid", "drinks_and_cup"), queue,
                                settings, llm=llm, speak=spoken.append)
        runner = threading.Thread(target=session.agent.run, daemon=True)
        runner.start()
        server.freeze()
        thaw.start()
        start = time.monotonic()
        queue.put("bring me the mango juice")
        while "Here I am." not in spoken:
            assert runner.is_alive() and time.monotonic() - start < 60, spoken
            time.sleep(0.02)
        # one timeout, not the freeze (40 s here); the margin holds on a loaded machine
        assert time.monotonic() - start < timeout_s + 6, time.monotonic() - start
        assert spoken[0] == MEMORY_OUTAGE
        # the memory is still frozen: the next request waits for it, and a stop ends that
        queue.put("and the cup")
        time.sleep(1.0)
        stopped = time.monotonic()
        session.stop.request("stop topic")
        while STOPPED not in spoken:
            assert runner.is_alive() and time.monotonic() - stopped < 60, spoken
            time.sleep(0.02)
        assert time.monotonic() - stopped < 3.0, time.monotonic() - stopped
        assert session.agent.turns[-1].status == "stopped"
        queue.close()
        session.stop.request("shutdown", idle=True)
        runner.join(10)
        session.console.close()
    finally:
        thaw.cancel()
        server.stop()


@pytest.mark.skipif(not CHROMA.exists(), reason="no chroma script in the venv")
def test_a_lesson_that_cannot_be_kept_on_disk_is_said_to_be_so(tmp_path):
    """The memory is down and the outbox cannot be written: the user hears that the lesson
    is kept only while the robot runs (never the promise to store it later)."""
    from llm_interaction_node.core.learning.learner import SAY_DEFERRED, SAY_NOT_KEPT
    from llm_interaction_node.core.learning.outcome import LearnStatus
    from llm_interaction_node.core.llm import ScriptedLLM
    from llm_interaction_node.core.user.channel import EventQueue
    from llm_interaction_node.session import build_session, make_world
    from llm_interaction_node.settings import Settings

    server = ChromaServer(tmp_path / "chroma", tmp_path / "chroma.log")
    server.start()
    local = tmp_path / "local"
    local.mkdir()
    (local / "outbox").write_text("a file where the outbox directory should be")
    spoken: list[str] = []
    try:
        settings = Settings.from_dict({"memory": {"host": "127.0.0.1", "port": server.port,
                                                  "timeout_s": 2.0, "path": str(local)},
                                       "learning": {"mode": "raw"}})
        queue = EventQueue(["say hello", "remember that"], close=True)
        llm = ScriptedLLM(["say('hello')", "wait_for_trigger()", "learn_from_interaction()",
                           "wait_for_trigger()"])
        session = build_session("humanoid", make_world("humanoid", "drinks_and_cup"), queue,
                                settings, llm=llm, speak=spoken.append)
        server.stop()
        session.agent.run()
        outcome = session.learner.outcomes[-1]
        assert outcome.status == LearnStatus.STORE_DEFERRED
        assert "could not be kept on disk" in outcome.message
        assert SAY_NOT_KEPT in spoken and SAY_DEFERRED not in spoken
        assert len(session.learner.pending) == 1
        session.console.close()
    finally:
        server.stop()


@pytest.mark.skipif(not CHROMA.exists(), reason="no chroma script in the venv")
def test_a_lesson_kept_in_an_outage_is_stored_when_the_server_is_back(tmp_path):
    """The in-session half of the outage (the node-restart half: test_ros_faults.py): the
    lesson kept while the server is down is stored at the next request once it is back, the
    user hears so, and its file leaves the outbox."""
    import threading

    from llm_interaction_node.core.learning.learner import SAY_DEFERRED
    from llm_interaction_node.core.llm import ScriptedLLM
    from llm_interaction_node.core.memory.source import MEMORY_BACK
    from llm_interaction_node.core.user.channel import EventQueue
    from llm_interaction_node.session import build_session, make_world
    from llm_interaction_node.settings import Settings

    server = ChromaServer(tmp_path / "chroma", tmp_path / "chroma.log")
    server.start()
    outbox = tmp_path / "local" / "outbox"
    spoken: list[str] = []
    try:
        settings = Settings.from_dict({"memory": {"host": "127.0.0.1", "port": server.port,
                                                  "timeout_s": 2.0,
                                                  "path": str(tmp_path / "local")},
                                       "learning": {"mode": "raw"}})
        queue = EventQueue(["say hello", "remember that"])
        llm = ScriptedLLM(["say('hello')", "wait_for_trigger()", "learn_from_interaction()",
                           "wait_for_trigger()", "say('hi again')", "wait_for_trigger()"])
        session = build_session("humanoid", make_world("humanoid", "drinks_and_cup"), queue,
                                settings, llm=llm, speak=spoken.append)
        server.stop()
        runner = threading.Thread(target=session.agent.run, daemon=True)
        runner.start()
        deadline = time.monotonic() + 60
        while SAY_DEFERRED not in spoken:
            assert runner.is_alive() and time.monotonic() < deadline, spoken
            time.sleep(0.05)
        assert len(list(outbox.glob("*.json"))) == 1
        server.start()
        queue.put("hello robot")
        while "hi again" not in spoken:
            assert runner.is_alive() and time.monotonic() < deadline, spoken
            time.sleep(0.05)
        assert MEMORY_BACK.format(n=1) in spoken
        assert [e.source for e in session.memory.list("raw")] == ["raw"]
        assert not list(outbox.glob("*.json"))
        queue.close()
        runner.join(10)
        session.console.close()
    finally:
        server.stop()

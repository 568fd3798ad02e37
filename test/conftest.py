"""Shared test fixtures: a real Chroma server (`chroma run`) on a free loopback port, and an
embedded household example memory (`memory`) for the learning tests."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMA = Path(sys.executable).parent / "chroma"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path):
    if not CHROMA.exists():
        pytest.skip(f"no chroma script next to {sys.executable}")
    port = free_port()
    log = open(tmp_path / "chroma.log", "w")
    server = subprocess.Popen([str(CHROMA), "run", "--path", str(tmp_path / "server"),
                               "--port", str(port), "--host", "127.0.0.1"],
                              stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/api/v2/heartbeat"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                with urllib.request.urlopen(url, timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("chroma run did not come up: "
                                   + (tmp_path / "chroma.log").read_text()[-2000:])
            time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


@pytest.fixture
def memory(tmp_path):
    """A fresh embedded household example memory (no seeds)."""
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.store import ExampleMemory
    return ExampleMemory("humanoid", MemoryConfig(path=str(tmp_path / "memory")))


def pytest_configure(config):
    """One ROS domain per test session, discovery on loopback only (see test/ros_support.py)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from ros_support import ros_environment
    ros_environment()

"""Shared test fixtures: a real Chroma server (`chroma run`) on a free loopback port, and an
embedded household example memory (`memory`) for the learning tests."""
from __future__ import annotations

import signal
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


class ChromaServer:
    """`chroma run` on a fixed port and directory, to stop and start again (an outage)."""

    def __init__(self, path: Path, log: Path):
        self.path, self.log, self.port, self.proc = path, log, free_port(), None

    def start(self) -> None:
        self.proc = subprocess.Popen([str(CHROMA), "run", "--path", str(self.path), "--port",
                                      str(self.port), "--host", "127.0.0.1"],
                                     stdout=open(self.log, "a"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/v2/heartbeat",
                                            timeout=1) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            assert self.proc.poll() is None and time.monotonic() < deadline, \
                self.log.read_text()[-2000:]
            time.sleep(0.1)

    def freeze(self) -> None:
        """SIGSTOP: the server holds its connections and answers nothing (a frozen host)."""
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        self.thaw()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


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

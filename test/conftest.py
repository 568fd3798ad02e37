"""Shared test fixtures: a real Chroma server (`chroma run`) on a free loopback port, and an
embedded household example memory (`memory`) for the learning tests."""
from __future__ import annotations

import ctypes
import gc
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


def _release_memory() -> None:
    """Give back what a finished module freed: collect reference cycles (an embedded model
    held in one is only unmapped by the cycle collector) and return glibc's free heap pages to
    the system, so the pytest process does not carry a module's high-water mark into the next
    (issue 45: a later module's node processes come on top of it)."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass                                     # not glibc


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    # after the whole protocol: the module's fixtures are finalised and the last test's
    # arguments dropped (pytest clears item.funcargs after the teardown hooks)
    yield
    if nextitem is None or nextitem.module is not item.module:
        _release_memory()


def pytest_collection_modifyitems(session, config, items):
    """The embedded-model tests first (in their order), while the pytest process is small:
    the embedded `run` test's node holds ~3 GB beside it, and the process grows past 1 GB over
    the suite (imports, caches); see docs/benchmarks.md, issue 45."""
    items[:] = sorted(items, key=lambda item: item.get_closest_marker("embedded_model") is None)

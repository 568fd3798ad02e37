"""Helpers for tests that run real ROS 2 nodes in separate processes (FastDDS on loopback).

The conftest gives the whole pytest session one ROS domain id (from the pid) and keeps
discovery on localhost, so parallel test runs on one machine do not see each other.
"""
from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


_domain_lock = None


def _claim_domain() -> int:
    """A ROS domain id no other test session on this machine holds (an flock per id, kept
    for the life of this process; the node processes it starts inherit the id)."""
    global _domain_lock
    start = os.getpid() % 100
    for i in range(100):
        domain = 1 + (start + i) % 100
        f = open(
            os.path.join(tempfile.gettempdir(), f"llm_interaction_ros_domain_{domain}.lock"), "w"
        )
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            continue
        _domain_lock = f
        return domain
    raise RuntimeError("all ROS domain ids 1-100 are held by other test sessions")


def ros_environment() -> None:
    """Isolate this test session's DDS traffic (call once, before rclpy.init)."""
    if "ROS_DOMAIN_ID" not in os.environ:
        os.environ["ROS_DOMAIN_ID"] = str(_claim_domain())
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ.setdefault("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")


class NodeProcess:
    """A node started as ``python -m module --ros-args ...`` (``module`` a ``.py`` path:
    ``python path ...``); output goes to a log file."""

    def __init__(self, module: str, log_path: Path, ros_args: list[str] = (), args: list[str] = (),
                 env: dict[str, str] | None = None, stdin: bool = False):
        self.module = module
        self.log_path = Path(log_path)
        self._log = open(self.log_path, "w")
        cmd = [sys.executable, *((module,) if module.endswith(".py") else ("-m", module)),
               *args]
        if ros_args:
            cmd += ["--ros-args", *ros_args]
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, cwd=ROOT,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
                                     stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                     text=True)

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait_for_log(self, text: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.log():
            if not self.alive():
                raise RuntimeError(
                    f"{self.module} exited ({self.proc.returncode}):\n{self.log()[-4000:]}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{self.module}: no {text!r} in {timeout} s:\n{self.log()[-4000:]}"
                )
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: a crash, not a shutdown."""
        if self.alive():
            self.proc.kill()
            self.proc.wait()

    def stop(self, timeout: float = 10.0) -> int | None:
        if self.alive():
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode


def sandbox_workers(pid: int) -> list[int]:
    """The sandbox worker processes of process ``pid`` (a node, this test process): the
    children of its multiprocessing forkserver."""
    def children(pid: int) -> list[int]:
        try:
            tasks = Path(f"/proc/{pid}/task").iterdir()
            return [int(c) for t in tasks for c in (t / "children").read_text().split()]
        except OSError:
            return []

    def cmdline(pid: int) -> str:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            return ""

    servers = [c for c in children(pid) if "multiprocessing.forkserver" in cmdline(c)]
    return [w for s in servers for w in children(s)]


@contextmanager
def node_process(*args, **kwargs) -> Iterator[NodeProcess]:
    proc = NodeProcess(*args, **kwargs)
    try:
        yield proc
    finally:
        proc.stop()


class ProbeNode:
    """An rclpy node in the test process, spun by a background executor thread."""

    __test__ = False  # not a pytest class

    def __init__(self, name: str = "test_probe"):
        ros_environment()
        import rclpy
        from rclpy.executors import MultiThreadedExecutor
        self.rclpy = rclpy
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(name, context=self.context)
        self.executor = MultiThreadedExecutor(num_threads=2, context=self.context)
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        try:
            self.executor.spin()
        except Exception as exc:  # noqa: BLE001 - shutdown races are fine, anything else is shown
            if self.rclpy.ok(context=self.context):
                print(f"probe executor died: {exc!r}", file=sys.stderr)
                raise

    def collect(self, msg_type, topic: str, qos=10) -> list:
        """Subscribe and return the (live) list of received messages."""
        received: list = []
        self.node.create_subscription(msg_type, topic, received.append, qos)
        return received

    def wait_until(
        self, predicate: Callable[[], bool], timeout: float = 30.0, what: str = ""
    ) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout} s waiting for {what or predicate}")
            time.sleep(0.02)

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self.rclpy.shutdown(context=self.context)


@contextmanager
def probe_node(name: str = "test_probe") -> Iterator[ProbeNode]:
    probe = ProbeNode(name)
    try:
        yield probe
    finally:
        probe.close()

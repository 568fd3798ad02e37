"""The process graph that ``llm-interaction run`` starts, as data, and the runner that starts it.

The graphs are written once, here: ``launch/sim.launch.py`` and ``launch/robot.launch.py``
(for ROS installs with ``ros2 launch``) build their nodes from :func:`launch_plan`, and their
launch arguments are the ``run`` options (:data:`LAUNCH_ARGUMENTS`, :data:`SWITCHES`). This
module does not import rclpy: every node is a separate ``python -m module --ros-args ...``
process.
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import yaml

from ..core.llm.config import ENV_VARS as LLM_ENV_VARS
from ..core.settings.config_files import config_path
from . import names

DEFAULT_LOG_ROOT = "~/.cache/llm_interaction_node/run"
_ECHO_MARKERS = ("[WARN]", "[ERROR]", "[FATAL]", "Traceback (most recent call last)")


@dataclass
class NodeSpec:
    """One node process: console script ``executable`` = ``python -m module``, node ``name``,
    params files (names relative to ``config/``, later ones override earlier ones),
    parameter overrides (``-p``) and remappings (``-r from:=to``)."""

    executable: str
    module: str
    name: str
    params_files: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    remappings: dict[str, str] = field(default_factory=dict)
    stop_last: bool = False          # stopped after the other nodes have ended (the recorder)


HOUSEHOLD_SIM = NodeSpec("household_sim", "llm_interaction_node.ros.nodes.household_sim",
                         "household_sim", ["household_sim.yaml"])
INTERACTION_NODE = NodeSpec("interaction_node",
                            "llm_interaction_node.ros.nodes.interaction_node",
                            "interaction_node", ["interaction_node.yaml"])
TTS = NodeSpec("tts", "llm_interaction_node.ros.nodes.tts", "tts", ["tts.yaml"])
MICROPHONE = NodeSpec("microphone", "llm_interaction_node.ros.nodes.microphone", "microphone",
                      ["microphone.yaml"])
ASR = NodeSpec("asr", "llm_interaction_node.ros.nodes.asr", "asr", ["asr.yaml"])
# `llm-interaction run --record DIR` (launch argument record:=DIR): the graph's topics into a
# rosbag2 (MCAP) bag; started first and stopped last, so that it hears everything
RECORDER = NodeSpec("recorder", "llm_interaction_node.ros.nodes.recorder", names.RECORDER_NODE,
                    ["recorder.yaml"], stop_last=True)
# not in a graph: plays WAV files onto the audio topic instead of a microphone (tests, demos)
WAV_SOURCE = NodeSpec("wav_source", "llm_interaction_node.ros.nodes.wav_source", "wav_source",
                      ["wav_source.yaml"])

# the simulated household: skills and scene from the simulator, speech to espeak-ng
SIM_GRAPH: tuple[NodeSpec, ...] = (HOUSEHOLD_SIM, INTERACTION_NODE, TTS)
# a real robot serves the skills, the scene and speech itself; robot.yaml names its interfaces
ROBOT_GRAPH: tuple[NodeSpec, ...] = (
    replace(INTERACTION_NODE, params_files=["interaction_node.yaml", "robot.yaml"]),
)
GRAPHS = {"sim": SIM_GRAPH, "robot": ROBOT_GRAPH}
# speech in (`llm-interaction run --speech`, launch argument speech:=true): a microphone and
# the recogniser, added to either graph
SPEECH_NODES: tuple[NodeSpec, ...] = (MICROPHONE, ASR)


def graph_nodes(graph: str, speech: bool = False, record: bool = False) -> tuple[NodeSpec, ...]:
    """The nodes of a graph, with the speech-in nodes when ``speech``, the recorder first
    when ``record``."""
    return (RECORDER,) * bool(record) + GRAPHS[graph] + (SPEECH_NODES if speech else ())

@dataclass(frozen=True)
class LaunchArgument:
    """A launch argument (``ros2 launch ... name:=value``) and the matching ``llm-interaction
    run`` option: the (node, parameter) pairs it sets, and the environment variable that would
    beat those parameters, if any. The argument is an explicit option, so its value also goes
    into that variable of the node's environment: it wins over the caller's environment, as
    the ``run`` options do (defaults < params files < environment < options)."""

    description: str
    targets: tuple[tuple[str, str], ...]
    env: str | None = None
    kind: type = str                 # what the parameter takes (a port: int)


# The world also gives the interaction node its static knowledge (named places, furniture),
# which must match what the simulator simulates.
LAUNCH_ARGUMENTS: dict[str, LaunchArgument] = {
    "world": LaunchArgument(
        "household scenario: a name in config/worlds or a YAML path; the simulated world and "
        "the interaction node's static knowledge",
        (("household_sim", "world"), ("interaction_node", "knowledge"))),
    "llm_base_url": LaunchArgument(
        "OpenAI-compatible endpoint, e.g. http://localhost:8080/v1 (beats "
        f"{LLM_ENV_VARS['base_url']})",
        (("interaction_node", "llm.base_url"),), LLM_ENV_VARS["base_url"]),
    "llm_model": LaunchArgument(
        f"model name at the endpoint (beats {LLM_ENV_VARS['model']})",
        (("interaction_node", "llm.model"),), LLM_ENV_VARS["model"]),
    "memory_path": LaunchArgument(
        "embedded example memory directory (interaction_node memory.path)",
        (("interaction_node", "memory.path"),)),
    "memory_host": LaunchArgument(
        "a Chroma server (`chroma run --path DIR --port N`) that robots share their lessons on "
        "(interaction_node memory.host; not given: the embedded memory_path)",
        (("interaction_node", "memory.host"),)),
    "memory_port": LaunchArgument(
        "that server's port (interaction_node memory.port, default 8000)",
        (("interaction_node", "memory.port"),), kind=int),
    "robot_id": LaunchArgument(
        "who this robot is, recorded with each lesson it stores (interaction_node "
        "memory.robot_id; default: host name/namespace)",
        (("interaction_node", "memory.robot_id"),)),
    "api_preset": LaunchArgument(
        "the robot API: ours (a failed skill says why) or paper (the paper's bare 'failure') "
        "(interaction_node robot_api.preset)",
        (("interaction_node", "robot_api.preset"),)),
}
# launch arguments that add nodes (the `run` options --speech and --record DIR)
SWITCHES: dict[str, str] = {
    "speech": "true: also start the microphone and the speech recogniser (asr) for talking by "
              "voice, as `llm-interaction run --speech`",
    "record": "a new directory: record the graph's topics into a rosbag2 (MCAP) there, "
              "as `llm-interaction run --record DIR` (the recorder starts first)",
}
_TRUE = ("true", "1", "yes", "on")


def launch_arguments(graph: str) -> dict[str, str]:
    """name -> description of the launch arguments of ``graph``: those whose nodes are all in
    it, then the switches. Not given (empty): the params files' values."""
    names = {spec.name for spec in GRAPHS[graph]}
    return {**{name: arg.description for name, arg in LAUNCH_ARGUMENTS.items()
               if all(node in names for node, _ in arg.targets)}, **SWITCHES}


def argument_overrides(specs: Sequence[NodeSpec], values: Mapping[str, Any],
                       labels: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """node name -> {parameter: value} that the launch arguments ``values`` (None or '':
    not given) set on the nodes of ``specs``. ValueError for an argument that sets nothing
    here (world on the robot graph), named by ``labels`` (the option) or its own name."""
    present = {spec.name for spec in specs}
    overrides: dict[str, dict[str, Any]] = {}
    for name, value in values.items():
        if value is None or value == "":
            continue
        targets = LAUNCH_ARGUMENTS[name].targets
        missing = [node for node, _ in targets if node not in present]
        if missing:
            raise ValueError(f"{(labels or {}).get(name, name)}: the graph has no node "
                             f"{missing[0]!r} (its nodes: {', '.join(s.name for s in specs)})")
        kind = LAUNCH_ARGUMENTS[name].kind
        if kind is not str:
            try:
                value = kind(value)
            except ValueError:
                raise ValueError(f"{(labels or {}).get(name, name)}: {value!r} is not "
                                 f"{'an' if kind is int else 'a'} {kind.__name__}") from None
        for node, param in targets:
            overrides.setdefault(node, {})[param] = value
    return overrides


def argument_environment(values: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """node name -> {variable: value}: the given arguments written into the environment
    variable that would otherwise beat their parameter (see :class:`LaunchArgument`)."""
    env: dict[str, dict[str, str]] = {}
    for name, value in values.items():
        argument = LAUNCH_ARGUMENTS.get(name)
        if argument is None or argument.env is None or value is None or value == "":
            continue
        for node, _ in argument.targets:
            env.setdefault(node, {})[argument.env] = str(value)
    return env


@dataclass(frozen=True)
class PlannedNode:
    """A node as a launch file starts it: its spec, the parameters the launch arguments set
    (over its params files) and the variables they add to its environment."""

    spec: NodeSpec
    parameters: dict[str, Any]
    env: dict[str, str]


def launch_plan(graph: str, values: Mapping[str, str]) -> list[PlannedNode]:
    """The nodes ``ros2 launch llm_interaction_node <graph>.launch.py`` starts for the launch
    argument values ``values`` ('' = not given): the same nodes, params files and overrides
    as ``llm-interaction run --graph <graph>`` with the matching options."""
    speech = str(values.get("speech", "")).strip().lower() in _TRUE
    record = str(values.get("record", "")).strip()
    specs = graph_nodes(graph, speech, record=bool(record))
    given = {name: str(value).strip() for name, value in values.items()
             if name in LAUNCH_ARGUMENTS}
    overrides = argument_overrides(specs, given)
    env = argument_environment(given)
    if record:
        overrides.setdefault(RECORDER.name, {})["path"] = os.path.abspath(
            os.path.expanduser(record))
    return [PlannedNode(spec, overrides.get(spec.name, {}), env.get(spec.name, {}))
            for spec in specs]


def format_value(value: Any) -> str:
    """A parameter value for ``-p name:=value`` (parsed as YAML by rcl): strings that would read
    as another type ('1.5', 'true', '') are quoted, lists written in flow style."""
    if value is None:
        raise ValueError("a ROS parameter cannot be None")
    text = yaml.safe_dump(value, default_flow_style=True, width=1 << 30, allow_unicode=True)
    return text.removesuffix("\n...\n").strip()


def command_line(spec: NodeSpec, overrides: Mapping[str, Any] | None = None) -> list[str]:
    """``[python, -m, module, --ros-args, -r, __node:=name, --params-file, PATH, ...,
    -p, k:=v, ..., -r, from:=to, ...]``; ``overrides`` go over ``spec.parameters``."""
    cmd = [sys.executable, "-m", spec.module, "--ros-args", "-r", f"__node:={spec.name}"]
    for name in spec.params_files:
        cmd += ["--params-file", str(config_path(name))]
    for key, value in {**spec.parameters, **(overrides or {})}.items():
        cmd += ["-p", f"{key}:={format_value(value)}"]
    for source, target in spec.remappings.items():
        cmd += ["-r", f"{source}:={target}"]
    return cmd


def default_log_dir() -> Path:
    """``~/.cache/llm_interaction_node/run/<timestamp>`` (a new one for every run)."""
    root = Path(DEFAULT_LOG_ROOT).expanduser()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path, n = root / stamp, 1
    while path.exists():
        path, n = root / f"{stamp}-{n}", n + 1
    return path


class _Proc:
    def __init__(self, spec: NodeSpec, cmd: list[str], popen: subprocess.Popen, log: Path):
        self.spec, self.cmd, self.popen, self.log = spec, cmd, popen, log
        self.reader: threading.Thread | None = None
        self.reported = False


def _die_with_parent() -> None:
    """In the child (Linux): get SIGTERM when the runner dies, even by SIGKILL, so no node
    outlives ``llm-interaction run``."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class GraphRunner:
    """Starts the nodes of a graph as processes and stops them all again.

    Each process gets its own process group (a Ctrl-C in the terminal reaches only this
    program, which then stops the nodes in order) and ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
    unless the environment sets it. Its output goes to ``<log_dir>/<name>.log``; ``echo``
    ('all' | 'warnings' | 'none') says which lines are also printed, prefixed ``[name]``.
    A process that exits while the graph runs is reported with the last lines of its log.
    ``stop()`` sends SIGINT, then SIGKILL after ``stop_timeout`` s; use it as a context
    manager so that exceptions and Ctrl-C stop the nodes too."""

    def __init__(self, specs: Sequence[NodeSpec],
                 overrides: Mapping[str, Mapping[str, Any]] | None = None,
                 log_dir: str | Path | None = None, out: TextIO | None = None,
                 echo: str = "warnings",
                 stop_timeout: float = 10.0, env: Mapping[str, str] | None = None,
                 tail_lines: int = 20):
        if echo not in ("all", "warnings", "none"):
            raise ValueError(f"echo must be 'all', 'warnings' or 'none', not {echo!r}")
        self.specs = list(specs)
        names = [s.name for s in self.specs]
        unknown = set(overrides or {}) - set(names)
        if unknown:
            raise ValueError(f"no node named {', '.join(sorted(unknown))} in this graph "
                             f"(nodes: {', '.join(names)})")
        self.overrides = {k: dict(v) for k, v in (overrides or {}).items()}
        self.log_dir = Path(log_dir).expanduser() if log_dir else default_log_dir()
        self.echo = echo
        self.stop_timeout = stop_timeout
        self.tail_lines = tail_lines
        self._out = out
        self._env = dict(os.environ if env is None else env)
        self._env.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
        self._env["PYTHONUNBUFFERED"] = "1"
        self._procs: list[_Proc] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._exited = threading.Event()
        self._monitor: threading.Thread | None = None

    # --- output ------------------------------------------------------------------------------
    def _print(self, text: str) -> None:
        out = self._out or sys.stdout
        with self._lock:
            try:
                out.write(text + "\n")
                out.flush()
            except (OSError, ValueError):
                pass

    def commands(self) -> dict[str, list[str]]:
        """The command line of every node, by node name."""
        return {s.name: command_line(s, self.overrides.get(s.name)) for s in self.specs}

    def log_path(self, name: str) -> Path:
        return self.log_dir / f"{name}.log"

    # --- start -------------------------------------------------------------------------------
    def start(self) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._print(f"logs: {self.log_dir}")
        try:
            for spec in self.specs:
                self._start_one(spec)
        except BaseException:
            self.stop()
            raise
        self._monitor = threading.Thread(target=self._watch, name="graph-monitor", daemon=True)
        self._monitor.start()

    def _start_one(self, spec: NodeSpec) -> None:
        cmd = command_line(spec, self.overrides.get(spec.name))
        log = self.log_path(spec.name)
        log_file = open(log, "wb")
        log_file.write(("$ " + " ".join(cmd) + "\n").encode())
        log_file.flush()
        try:
            popen = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=self._env, process_group=0,
                                     preexec_fn=_die_with_parent)
        except BaseException:
            log_file.close()
            raise
        proc = _Proc(spec, cmd, popen, log)
        proc.reader = threading.Thread(target=self._forward, args=(proc, log_file),
                                       name=f"log-{spec.name}", daemon=True)
        proc.reader.start()
        self._procs.append(proc)
        self._print(f"started {spec.name} (pid {popen.pid}): {log}")

    def _forward(self, proc: _Proc, log) -> None:
        """Copy a process's output into its log file; echo some lines with a prefix."""
        with log:
            for raw in iter(proc.popen.stdout.readline, b""):
                log.write(raw)
                log.flush()
                if self.echo == "none" or self._stopping.is_set():
                    continue
                line = raw.decode("utf-8", "replace").rstrip("\n")
                if self.echo == "all" or any(m in line for m in _ECHO_MARKERS):
                    self._print(f"[{proc.spec.name}] {line}")
        proc.popen.stdout.close()

    # --- watch -------------------------------------------------------------------------------
    def _watch(self) -> None:
        while not self._stopping.is_set():
            for proc in self._procs:
                if proc.popen.poll() is not None and not proc.reported:
                    if not self._stopping.is_set():
                        self._report_exit(proc)
                    proc.reported = True
                    self._exited.set()
            time.sleep(0.2)

    def _report_exit(self, proc: _Proc) -> None:
        if proc.reader is not None:
            proc.reader.join(2.0)        # the last output is in the log
        tail = self.tail(proc.spec.name)
        body = "\n".join(f"    {ln}" for ln in tail) or "    (no output)"
        self._print(f"\n!! {proc.spec.name} exited with code {proc.popen.returncode}; "
                    f"last lines of {proc.log}:\n{body}")

    def tail(self, name: str, lines: int | None = None) -> list[str]:
        """The last lines of a node's log."""
        try:
            with open(self.log_path(name), encoding="utf-8", errors="replace") as f:
                return list(deque((ln.rstrip("\n") for ln in f), maxlen=lines or self.tail_lines))
        except OSError:
            return []

    @property
    def exited(self) -> threading.Event:
        """Set once a node of the graph has exited (not while stopping)."""
        return self._exited

    def running(self) -> list[str]:
        return [p.spec.name for p in self._procs if p.popen.poll() is None]

    def exit_codes(self) -> dict[str, int | None]:
        """Node name -> exit code (None while it runs)."""
        return {p.spec.name: p.popen.poll() for p in self._procs}

    def wait(self, timeout: float | None = None) -> list[str]:
        """Block until a node exits (or ``timeout`` s pass); the names of the exited ones."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not any(p.popen.poll() is not None for p in self._procs):
            if deadline is not None and time.monotonic() >= deadline:
                break
            self._exited.wait(0.2)
        if self._monitor is not None:     # let the monitor print its report first
            for _ in range(150):
                if all(p.reported for p in self._procs if p.popen.poll() is not None):
                    break
                time.sleep(0.02)
        return [p.spec.name for p in self._procs if p.popen.poll() is not None]

    # --- stop --------------------------------------------------------------------------------
    def stop(self) -> dict[str, int | None]:
        """SIGINT to every running node (last started first), SIGKILL to those still running
        after ``stop_timeout`` s (at once on a second Ctrl-C); nodes with ``stop_last`` (the
        recorder) only after the others ended, so it keeps what they said while stopping.
        Returns the exit codes."""
        self._stopping.set()
        running = [p for p in reversed(self._procs) if p.popen.poll() is None]
        try:
            deadline = time.monotonic() + self.stop_timeout
            for last in (False, True):
                group = [p for p in running if p.spec.stop_last == last]
                for proc in group:
                    self._signal(proc, signal.SIGINT)
                for proc in group:
                    try:
                        proc.popen.wait(max(0.0, deadline - time.monotonic()))
                    except subprocess.TimeoutExpired:
                        pass
        except KeyboardInterrupt:
            pass
        finally:
            for proc in running:
                if proc.popen.poll() is None:
                    self._print(f"{proc.spec.name} did not stop within {self.stop_timeout:g} s; "
                                "killing it")
                    self._signal(proc, signal.SIGKILL)
                    proc.popen.wait()
            for proc in self._procs:
                if proc.reader is not None:
                    proc.reader.join(2.0)
            for proc in running:
                code = proc.popen.returncode
                if code not in (0, -signal.SIGINT, 128 + signal.SIGINT, -signal.SIGKILL):
                    self._print(f"{proc.spec.name} exited with code {code} while stopping; "
                                f"see {proc.log}")
        return self.exit_codes()

    @staticmethod
    def _signal(proc: _Proc, sig: int) -> None:
        try:
            os.killpg(proc.popen.pid, sig)    # the node and anything it started (espeak-ng)
        except (ProcessLookupError, PermissionError):
            try:
                proc.popen.send_signal(sig)
            except ProcessLookupError:
                pass

    def __enter__(self) -> GraphRunner:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

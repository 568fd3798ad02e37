"""Benchmark (issue 60 item 3): a soak of the running graph -- hundreds of requests in a row.

Starts the nodes ``llm-interaction run`` starts (``household_sim``, ``interaction_node``,
``tts`` with the ``log`` backend), each its own process with its params file from
``config/`` (``ros/graph.py``), on a fresh example memory, in a ROS domain of its own
(discovery on localhost). The LLM is first a scripted stand-in (``bench/scripted_endpoint.py``,
an OpenAI-compatible server on loopback the node reaches through ``llm.base_url``); this
process is the person: it says ``--requests`` utterances on ``speech/asr_text`` one after
the other (each once the robot handed back; when the robot asks, ``ask()``, it answers
"yes, please"), a seeded mix of requests, corrections, learn
requests ("remember that"), stops (``interaction/stop`` while a statement runs) and resets
(``interaction/reset``, the next request said as soon as the reset is answered). Then the
interaction node is started again with the embedded model (no endpoint; fresh memory) and
``--model-requests`` requests (requests, corrections, stops, resets; no learn requests: an
L_improve chat takes minutes on the embedded model; a reset there also puts the world back,
``household_sim/reset``, as the model's requests move things) are said the same way.

Every ``--every`` utterances (and at the start) it records: the RSS, open files and threads
of each node process, the sandbox worker processes (the children of the interaction node's
forkserver) and their RSS, the example memory's size on disk (ChromaDB) and its lessons,
the turn latency p50/p95 of the utterances since the last checkpoint (published -> the
robot listens again: the next ``wait_for_trigger()`` on the transcript; a stopped turn ends
when the state is idle again) and the utterances lost (published, never returned by
``wait_for_trigger()`` within ``--turn-timeout``: must be 0). The table is printed as it
goes; a JSON and a markdown record go to ``--out`` (with the commit, whether the tree was
dirty, the seed, the command). Exit 1 if an utterance was lost.

Targets (issue 60): 0 lost; RSS growth <= 10 % from request 100 to request 500 (each node);
p95 turn latency at request 500 at most 20 % above that at request 100.

    python -m llm_interaction_node.bench.soak [--requests 500] [--model-requests 50]
        [--seed 60] [--every 100] [--out docs/eval/soak]
    flock /tmp/llm_model.lock python -m llm_interaction_node.bench.soak --requests 0 \\
        --model-requests 50 --model-every 10      # the embedded model alone
"""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import platform
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from ..core.llm.config import ENV_VARS as LLM_ENV_VARS
from ..ros.graph import (
    HOUSEHOLD_SIM,
    INTERACTION_NODE,
    TTS,
    argument_environment,
    argument_overrides,
    command_line,
)
from .processes import stop_process
from .scripted_endpoint import WAIT, ScriptedEndpoint

ROOT = Path(__file__).resolve().parents[2]
WORLD = "drinks_and_cup"
TARGET_RSS_GROWTH = 0.10
TARGET_P95_GROWTH = 0.20
CUT_GRACE_S = 60.0       # a turn still running this long after --stop-at is cut


class Terminated(Exception):
    """A SIGTERM from outside: the run ends, what it measured so far is recorded."""


def _on_sigterm(*_) -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))   # a second: now
    raise Terminated()

# ---- what the person says, and the stand-in's turn for each ----------------------------------
KITCHEN = "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))"
TABLE = "move_to(get_location_coordinates('inFrontOf_dining-table_0'))"
CENTER = "move_to(get_location_coordinates('room_center'))"
HUMAN = "move_to(get_location_coordinates('handover_to_human'))"
SLOW_TABLE = "move_to(get_location_coordinates('inFrontOf_dining-table_0'), speed_factor=0.2)"

REQUESTS: dict[str, list[str]] = {
    "go to the kitchen counter": [KITCHEN, "say('I am at the kitchen counter.')"],
    "go to the dining table please": [TABLE, "say('I am at the dining table.')"],
    "come back to the middle of the room": [CENTER, "say('I am in the middle of the room.')"],
    "come over to me": [HUMAN, "say('Here I am.')"],
    "what is on the kitchen counter?": [
        "list_objects()", "say('The mango juice, the coffee cup and the glass.')"],
    "where are the things?": ["list_object_locations()", "say('I told you where they are.')"],
    "pick up the mango juice and put it back": [
        KITCHEN, "grasp('mango-juice_0')", "place_object('mango-juice_0', 'kitchen-counter_0')",
        "say('Done.')"],
    "lift the sponge and put it down again": [
        TABLE, "grasp('kitchen-sponge_0')",
        "place_object('kitchen-sponge_0', 'dining-table_0')", "say('Done.')"],
}
CORRECTIONS: dict[str, list[str]] = {
    "no, I meant the dining table": [TABLE, "say('Sorry, here is the dining table.')"],
    "not there, go to the kitchen counter": [KITCHEN, "say('Sorry, the kitchen counter.')"],
    "you went the wrong way, come back to the middle": [CENTER, "say('Sorry, I am back.')"],
}
LEARNS: dict[str, list[str]] = {
    "thanks, that is right. remember that": ["learn_from_interaction()"],
    "good. remember that for next time": ["learn_from_interaction()"],
}
# a slow drive, stopped while it runs
STOPPABLE: dict[str, list[str]] = {
    "drive slowly to the dining table": [SLOW_TABLE, "say('I am at the dining table.')"],
}
HELLO = "hello robot"
ANSWER = "yes, please"     # what the person answers when the robot asks (ask())
MAX_ANSWERS = 3            # per turn
SCRIPT: dict[str, list[str]] = {**REQUESTS, **CORRECTIONS, **LEARNS, **STOPPABLE, HELLO: []}
READINGS = {text: "learn" for text in LEARNS}

# what the person asks of the embedded model (things it does in this world), each with the
# corrections that fit it
MODEL_REQUESTS: dict[str, list[str]] = {
    "bring me the juice please": ["no, I wanted the glass"],
    "go to the dining table": ["no, go to the kitchen counter"],
    "put the sponge on the kitchen counter": ["no, leave the sponge on the dining table"],
    "what is on the dining table?": ["and what is on the kitchen counter?"],
    "bring me the coffee cup": ["not the cup, the glass"],
    "go to the kitchen counter": ["no, come back to the middle of the room"],
}
MODEL_STOPPABLE = ["drive slowly to the dining table"]


@dataclass
class Event:
    kind: str                  # request | correction | learn | stop | reset
    text: str = ""             # what is said (stop: the request that is stopped)


def schedule(seed: int, n: int, model: bool = False) -> list[Event]:
    """``n`` utterances as a seeded mix of episodes: a request, maybe a correction, maybe a
    learn request after it (not with the model); a request stopped while it runs; a reset
    between episodes. Deterministic for a seed."""
    rng = random.Random(seed)
    requests = list(MODEL_REQUESTS) if model else list(REQUESTS)
    stoppable = MODEL_STOPPABLE if model else list(STOPPABLE)
    events: list[Event] = []
    said = 0
    while said < n:
        roll = rng.random()
        if roll < 0.08:
            episode = [Event("stop", rng.choice(stoppable))]
        else:
            episode = [Event("request", rng.choice(requests))]
            if rng.random() < 0.3:
                corrections = MODEL_REQUESTS[episode[0].text] if model else list(CORRECTIONS)
                episode.append(Event("correction", rng.choice(corrections)))
                if not model and rng.random() < 0.4:
                    episode.append(Event("learn", rng.choice(list(LEARNS))))
        for event in episode:
            if said < n:
                events.append(event)
                said += 1
        if said < n and rng.random() < 0.1:
            events.append(Event("reset"))
    return events


# ---- processes ------------------------------------------------------------------------------
def claim_domain() -> tuple[int, object | None]:
    """A ROS domain id: the environment's, else one no test session or other bench holds
    (the flock per id of test/ros_support.py, kept while this process runs)."""
    if os.environ.get("ROS_DOMAIN_ID"):
        return int(os.environ["ROS_DOMAIN_ID"]), None
    start = os.getpid() % 100
    for i in range(100):
        domain = 1 + (start + i) % 100
        f = open(os.path.join(tempfile.gettempdir(), f"llm_interaction_ros_domain_{domain}.lock"),
                 "w")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            continue
        return domain, f
    raise SystemExit("all ROS domain ids 1-100 are held by other sessions")


def _status(pid: int) -> dict[str, str]:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def _rss_mb(pid: int) -> float | None:
    rss = _status(pid).get("VmRSS")
    return round(int(rss.split()[0]) / 1024, 1) if rss else None


def _children(pid: int) -> list[int]:
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        return [int(c) for t in tasks for c in (t / "children").read_text().split()]
    except OSError:
        return []


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def process_sample(pid: int) -> dict:
    """RSS (MB), open files, threads of a process, from /proc."""
    status = _status(pid)
    try:
        files = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        files = None
    return {"rss_mb": _rss_mb(pid), "open_files": files,
            "threads": int(status["Threads"]) if "Threads" in status else None}


def sandbox_workers(pid: int) -> list[int]:
    """The sandbox worker processes of ``pid``: the children of its multiprocessing
    forkserver (core/sandbox/process.py)."""
    servers = [c for c in _children(pid) if "multiprocessing.forkserver" in _cmdline(c)]
    return [w for s in servers for w in _children(s)]


def disk_bytes(path: Path) -> int:
    """What a directory takes on disk (allocated blocks, as du)."""
    total = 0
    for base, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(base, name)).st_blocks * 512
            except OSError:
                pass
    return total


class Graph:
    """The sim graph's nodes as `llm-interaction run` starts them (graph.command_line with the
    run options' overrides), each with its log file."""

    def __init__(self, run_dir: Path, memory: Path, llm_url: str | None, time_scale: float,
                 tag: str):
        values = {"world": WORLD, "memory_path": str(memory)}
        if llm_url:
            values.update(llm_base_url=llm_url, llm_model="scripted")
        self.specs = [HOUSEHOLD_SIM, INTERACTION_NODE, TTS]
        self.overrides = argument_overrides(self.specs, values)
        self.overrides.setdefault("household_sim", {})["time_scale"] = time_scale
        self.overrides.setdefault("tts", {})["backend"] = "log"
        env = {k: v for k, v in os.environ.items() if k not in LLM_ENV_VARS.values()}
        env.update(PYTHONUNBUFFERED="1", ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
        self.env = env
        self.node_env = argument_environment(values)
        self.run_dir, self.tag = run_dir, tag
        self.procs: dict[str, subprocess.Popen] = {}
        self.logs: dict[str, Path] = {}

    def start(self) -> None:
        for spec in self.specs:
            log = self.run_dir / f"{spec.name}-{self.tag}.log"
            self.logs[spec.name] = log
            with open(log, "w") as out:
                self.procs[spec.name] = subprocess.Popen(
                    command_line(spec, self.overrides.get(spec.name)), cwd=ROOT,
                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    env={**self.env, **self.node_env.get(spec.name, {})})

    def log(self, name: str) -> str:
        try:
            return self.logs[name].read_text(errors="replace")
        except OSError:
            return ""

    def dead(self) -> list[str]:
        return [name for name, p in self.procs.items() if p.poll() is not None]

    def stop(self) -> None:
        for name in ("interaction_node", "tts", "household_sim"):
            if name in self.procs:
                proc = self.procs[name]
                if proc.poll() is None:
                    proc.send_signal(signal.SIGINT)         # as Ctrl-C
                    try:
                        proc.wait(20)
                    except subprocess.TimeoutExpired:
                        pass
                stop_process(proc)


# ---- the person -----------------------------------------------------------------------------
class Person:
    """This process's rclpy node: says things, stops, resets; watches the transcript and the
    state (kept whole, each message with its arrival time)."""

    def __init__(self) -> None:
        import rclpy
        from llm_interaction_interfaces.msg import ConsoleEntry
        from llm_interaction_interfaces.srv import ManageMemory
        from rclpy.executors import SingleThreadedExecutor
        from std_msgs.msg import Empty, String
        from std_srvs.srv import Trigger

        from ..ros import names
        from ..ros.qos import latched

        self.rclpy, self.String, self.Empty = rclpy, String, Empty
        self.Trigger, self.ManageMemory, self.ConsoleEntry = Trigger, ManageMemory, ConsoleEntry
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node("soak_person", context=self.context)
        self.entries: list[tuple[float, str, str]] = []     # (arrival, kind, text)
        self.states: list[tuple[float, str]] = []
        self.node.create_subscription(
            ConsoleEntry, names.TRANSCRIPT,
            lambda m: self.entries.append((time.monotonic(), m.kind, m.text)), latched(1000))
        self.node.create_subscription(
            String, names.STATE, lambda m: self.states.append((time.monotonic(), m.data)),
            latched(1))
        self.asr = self.node.create_publisher(String, names.ASR_TEXT, 100)
        self.stop_topic = self.node.create_publisher(Empty, names.STOP, 10)
        self.reset_client = self.node.create_client(Trigger, names.RESET)
        self.world_reset = self.node.create_client(Trigger, names.WORLD_RESET)
        self.memory_client = self.node.create_client(ManageMemory, names.MEMORY)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._spinner = threading.Thread(target=self._spin, name="person", daemon=True)
        self._spinner.start()

    def _spin(self) -> None:
        try:
            self.executor.spin()
        except Exception:  # noqa: BLE001 - the context is shutting down
            pass

    def say(self, text: str) -> None:
        self.asr.publish(self.String(data=text))

    def stop(self) -> None:
        self.stop_topic.publish(self.Empty())

    def call(self, client, request, timeout: float = 60.0):
        if not client.wait_for_service(timeout_sec=timeout):
            raise TimeoutError(f"no service {client.srv_name}")
        future = client.call_async(request)
        deadline = time.monotonic() + timeout
        while not future.done():
            if time.monotonic() > deadline:
                raise TimeoutError(f"no answer from {client.srv_name} in {timeout} s")
            time.sleep(0.002)
        return future.result()

    def reset(self) -> None:
        self.call(self.reset_client, self.Trigger.Request())

    def lessons(self) -> int | None:
        try:
            answer = self.call(self.memory_client,
                               self.ManageMemory.Request(command="list"), 30)
        except TimeoutError:
            return None
        if not answer.success:
            return None
        return sum(1 for e in json.loads(answer.result_json) if e.get("source") != "seed")

    def state(self) -> str | None:
        return self.states[-1][1] if self.states else None

    def listening(self) -> bool:
        from ..ros import names
        infos = self.node.get_subscriptions_info_by_topic("/" + names.ASR_TEXT)
        return any(i.node_name == "interaction_node" for i in infos)

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self.rclpy.try_shutdown(context=self.context)
        self._spinner.join(5)


def wait_until(predicate, timeout: float, graph: Graph | None = None) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if graph is not None and graph.dead():
            raise RuntimeError(f"node(s) exited: {graph.dead()}; logs in {graph.run_dir}")
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def dialog_text(text: str) -> str | None:
    import ast
    if not text.startswith("{'type': 'dialog'"):
        return None
    try:
        return ast.literal_eval(text)["text"]
    except (ValueError, SyntaxError, KeyError, TypeError):
        return None


@dataclass
class Turn:
    index: int                 # 1-based utterance number in its phase
    kind: str
    text: str
    answered: bool = False     # wait_for_trigger() returned it
    ended: bool = False        # the robot listened again (or was idle after a stop)
    latency_s: float | None = None
    stop_sent: bool = False
    cut: bool = False          # still running at --stop-at: the bench stopped waiting
    answers: int = 0           # the robot asked (ask()), the person answered ANSWER

    @property
    def lost(self) -> bool:
        return not self.answered and not self.cut


@dataclass
class Phase:
    name: str
    planned: int
    turns: list[Turn] = field(default_factory=list)
    resets: int = 0
    checkpoints: list[dict] = field(default_factory=list)
    stopped_early: str | None = None
    terminated: bool = False   # a SIGTERM from outside ended it (what was measured is kept)
    reset_world: bool = False  # a reset also puts the world back (household_sim/reset)


def say_and_follow(person: Person, graph: Graph, event: Event, index: int,
                   turn_timeout: float, cut_at: float | None = None) -> Turn:
    """One utterance: published, found as the output of a wait_for_trigger(), followed to
    the next wait_for_trigger() input (the robot listens again); a stop event publishes the
    stop once the first statement after it runs. ``cut_at`` (monotonic): the bench stops
    waiting then (``--stop-at``): the turn is ``cut``, neither lost nor ended."""
    turn = Turn(index, event.kind, event.text)
    mark = len(person.entries)
    said_at = time.monotonic()
    deadline = said_at + turn_timeout
    if cut_at is not None and cut_at < deadline:
        deadline = cut_at
    person.say(event.text)

    def answered_at() -> int | None:
        for i in range(mark, len(person.entries)):
            _t, kind, text = person.entries[i]
            if kind == "output" and dialog_text(text) == event.text:
                return i
        return None

    if not wait_until(lambda: answered_at() is not None, deadline - time.monotonic(), graph):
        turn.cut = deadline < said_at + turn_timeout       # timed out at --stop-at
        if turn.cut:
            person.stop()
            wait_until(lambda: person.state() == "idle", 60, graph)
        return turn
    turn.answered = True
    start = answered_at() + 1

    def inputs_after() -> list[tuple[float, str]]:
        return [(t, text) for t, kind, text in person.entries[start:] if kind == "input"]

    if event.kind == "stop":
        if wait_until(lambda: any(text != WAIT for _t, text in inputs_after()),
                      deadline - time.monotonic(), graph):
            time.sleep(0.15)                  # the statement (a slow drive) is under way
            person.stop()
            turn.stop_sent = True

    def ended() -> float | None:
        for t, text in inputs_after():
            if text == WAIT:
                return t
        return None

    def answer_questions() -> bool:
        """The robot asks (``ask()`` waits for the user): the person answers, once per ask."""
        entries = [(i, kind, text) for i, (_t, kind, text)
                   in enumerate(person.entries[start:], start) if kind != "note"]
        waiting = entries and entries[-1][1] == "input" and "ask(" in entries[-1][2]
        if waiting and entries[-1][0] not in asked and len(asked) < MAX_ANSWERS:
            asked.add(entries[-1][0])
            time.sleep(0.3)
            person.say(ANSWER)
        return ended() is not None

    asked: set[int] = set()
    if wait_until(answer_questions, max(0.0, deadline - time.monotonic()), graph):
        turn.ended, turn.latency_s = True, ended() - said_at
    else:                                     # a turn that did not end: stopped, then on
        turn.cut = deadline < said_at + turn_timeout
        person.stop()
    turn.answers = len(asked)
    wait_until(lambda: person.state() == "idle", 60, graph)
    return turn


def percentile(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if values else None


def checkpoint(person: Person, graph: Graph, memory: Path, phase: Phase, done: int,
               since: int, started: float) -> dict:
    window = [t for t in phase.turns[since:done] if t.latency_s is not None]
    pids = {name: proc.pid for name, proc in graph.procs.items()}
    workers = sandbox_workers(pids["interaction_node"])
    return {
        "phase": phase.name, "requests": done, "at_s": round(time.monotonic() - started, 1),
        "nodes": {name: process_sample(pid) for name, pid in pids.items()},
        "sandbox_workers": len(workers),
        "sandbox_rss_mb": round(sum(_rss_mb(w) or 0.0 for w in workers), 1),
        "chroma_bytes": disk_bytes(memory), "lessons": person.lessons(),
        "turns": len(window),
        "latency_p50_s": percentile([t.latency_s for t in window], 50),
        "latency_p95_s": percentile([t.latency_s for t in window], 95),
        "lost": sum(1 for t in phase.turns[:done] if t.lost),
        "lost_in_window": sum(1 for t in phase.turns[since:done] if t.lost),
    }


ROW = ("{phase:<8} {requests:>5} {at_s:>7} {isim:>8} {inode:>8} {itts:>7} {files:>6} "
       "{threads:>7} {workers:>4} {chroma:>8} {lessons:>7} {p50:>6} {p95:>6} {lost:>4}")
HEADER = ROW.format(phase="phase", requests="req", at_s="t (s)", isim="sim MB", inode="node MB",
                    itts="tts MB", files="files", threads="threads", workers="wrk",
                    chroma="chroma MB", lessons="lessons", p50="p50 s", p95="p95 s", lost="lost")


def row(cp: dict) -> str:
    nodes = cp["nodes"]
    return ROW.format(**{key: "-" if value is None else str(value) for key, value in dict(
        phase=cp["phase"], requests=cp["requests"], at_s=cp["at_s"],
        isim=nodes["household_sim"]["rss_mb"], inode=nodes["interaction_node"]["rss_mb"],
        itts=nodes["tts"]["rss_mb"], files=nodes["interaction_node"]["open_files"],
        threads=nodes["interaction_node"]["threads"], workers=cp["sandbox_workers"],
        chroma=round(cp["chroma_bytes"] / 2**20, 2), lessons=cp["lessons"],
        p50=cp["latency_p50_s"], p95=cp["latency_p95_s"], lost=cp["lost"]).items()})


def run_phase(phase: Phase, events: list[Event], person: Person, graph: Graph, memory: Path,
              every: int, turn_timeout: float, stop_at: datetime | None, echo) -> None:
    from tqdm import tqdm
    started = time.monotonic()
    phase.checkpoints.append(checkpoint(person, graph, memory, phase, 0, 0, started))
    echo(row(phase.checkpoints[-1]))
    cut_at = None if stop_at is None else \
        time.monotonic() + (stop_at - datetime.now(UTC)).total_seconds() + CUT_GRACE_S
    bar = tqdm(total=phase.planned, desc=phase.name, unit="req", file=sys.stderr,
               dynamic_ncols=True, mininterval=1.0)
    try:
        _run_events(phase, events, person, graph, memory, every, turn_timeout, stop_at, cut_at,
                    started, bar)
    except Terminated:
        phase.terminated = True
        phase.stopped_early = (f"terminated by a SIGTERM from outside at "
                               f"{datetime.now(UTC):%H:%M:%S} UTC, during utterance "
                               f"{len(phase.turns) + 1} of {phase.planned} (not counted)")
        bar.write(phase.stopped_early)
    finally:
        bar.close()


def _run_events(phase: Phase, events: list[Event], person: Person, graph: Graph, memory: Path,
                every: int, turn_timeout: float, stop_at: datetime | None, cut_at: float | None,
                started: float, bar) -> None:
    since = 0
    for event in events:
        if stop_at is not None and datetime.now(UTC) >= stop_at:
            phase.stopped_early = (f"stopped at {stop_at:%H:%M} UTC (--stop-at) after "
                                   f"{len(phase.turns)} of {phase.planned} requests")
            break
        if event.kind == "reset":
            if phase.reset_world:          # the person puts the things back first
                person.call(person.world_reset, person.Trigger.Request())
            person.reset()
            phase.resets += 1
            continue                      # the next request is said at once
        turn = say_and_follow(person, graph, event, len(phase.turns) + 1, turn_timeout,
                              cut_at)
        phase.turns.append(turn)
        bar.update(1)
        if turn.cut:
            phase.stopped_early = (f"stopped at {stop_at:%H:%M} UTC (--stop-at) + "
                                   f"{CUT_GRACE_S:.0f} s: utterance {turn.index} cut "
                                   f"after {len(phase.turns) - 1} of {phase.planned}")
            bar.write(phase.stopped_early)
            break
        if turn.lost:
            bar.write(f"LOST: utterance {turn.index} ({turn.kind}) {turn.text!r}")
        done = len(phase.turns)
        if done % every == 0:
            phase.checkpoints.append(checkpoint(person, graph, memory, phase, done, since,
                                                started))
            since = done
            bar.write(row(phase.checkpoints[-1]))
    if len(phase.turns) != since:
        phase.checkpoints.append(checkpoint(person, graph, memory, phase, len(phase.turns),
                                            since, started))
        bar.write(row(phase.checkpoints[-1]))


def start_graph(run_dir: Path, memory: Path, llm_url: str | None, time_scale: float, tag: str,
                ready_timeout: float, echo) -> tuple[Graph, Person]:
    graph = Graph(run_dir, memory, llm_url, time_scale, tag)
    graph.start()
    person = Person()
    try:
        if not wait_until(lambda: "interaction_node ready" in graph.log("interaction_node"),
                          ready_timeout, graph):
            raise TimeoutError(f"the interaction node was not ready in {ready_timeout} s")
        if not wait_until(lambda: person.listening() and person.asr.get_subscription_count(),
                          60, graph):
            raise TimeoutError("the interaction node does not listen on speech/asr_text")
        t0 = time.monotonic()
        if not wait_until(lambda: person.state() == "idle", ready_timeout, graph):
            raise TimeoutError(f"state not idle in {ready_timeout} s (warm-up)")
        echo(f"{tag}: ready (idle after {time.monotonic() - t0:.1f} s more)")
        # the first message to a new subscriber can be lost in discovery: say hello until it
        # is heard (not counted)
        for _ in range(6):
            mark = len(person.entries)
            person.say(HELLO)
            if wait_until(lambda mark=mark: any(dialog_text(text) == HELLO
                                                for _t, _k, text in person.entries[mark:]),
                          30 if llm_url else 300, graph):
                break
        else:
            raise TimeoutError("the interaction node never heard the hello")
        wait_until(lambda: any(k == "input" and text == WAIT
                               for _t, k, text in person.entries[mark + 1:])
                   and person.state() == "idle", 300, graph)
    except BaseException:
        person.close()
        graph.stop()
        raise
    return graph, person


# ---- record ---------------------------------------------------------------------------------
def git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=30).stdout.rstrip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def targets(phase: dict, every: int) -> dict:
    """The issue's targets for a phase: 0 lost; RSS at the last checkpoint <= 110 % of that at
    request ``every`` (each node); p95 there <= 120 % of p95 at request ``every``."""
    cps = {cp["requests"]: cp for cp in phase["checkpoints"]}
    result = {"lost": {"target": 0, "value": phase["lost"], "met": phase["lost"] == 0}}
    first, last = cps.get(every), phase["checkpoints"][-1]
    if first is None or last["requests"] <= every:
        result["rss_growth"] = result["p95_growth"] = {
            "met": None, "note": f"needs checkpoints past request {every}"}
        return result
    growth = {name: round(last["nodes"][name]["rss_mb"] / first["nodes"][name]["rss_mb"] - 1, 4)
              for name in first["nodes"]}
    result["rss_growth"] = {"from": every, "to": last["requests"], "target": TARGET_RSS_GROWTH,
                            "value": growth,
                            "met": all(g <= TARGET_RSS_GROWTH for g in growth.values())}
    p0, p1 = first["latency_p95_s"], last["latency_p95_s"]
    value = round(p1 / p0 - 1, 4) if p0 and p1 else None
    result["p95_growth"] = {"from": every, "to": last["requests"], "target": TARGET_P95_GROWTH,
                            "p95_from_s": p0, "p95_to_s": p1, "value": value,
                            "met": None if value is None else value <= TARGET_P95_GROWTH}
    return result


def phase_record(phase: Phase, every: int, events: list[Event]) -> dict:
    record = {
        "planned": phase.planned, "said": len(phase.turns),
        "mix": {kind: sum(1 for t in phase.turns if t.kind == kind)
                for kind in ("request", "correction", "learn", "stop")},
        "resets": phase.resets, "resets_put_world_back": phase.reset_world,
        "stops_sent": sum(1 for t in phase.turns if t.stop_sent),
        "answers_to_ask": sum(t.answers for t in phase.turns),
        "lost": sum(1 for t in phase.turns if t.lost),
        "lost_utterances": [asdict(t) for t in phase.turns if t.lost],
        "unfinished": sum(1 for t in phase.turns if t.answered and not t.ended and not t.cut),
        "cut_at_stop": [asdict(t) for t in phase.turns if t.cut],
        "latency_all_p50_s": percentile([t.latency_s for t in phase.turns
                                         if t.latency_s is not None], 50),
        "latency_all_p95_s": percentile([t.latency_s for t in phase.turns
                                         if t.latency_s is not None], 95),
        "checkpoints": phase.checkpoints, "stopped_early": phase.stopped_early,
        "terminated": phase.terminated,
    }
    record["targets"] = targets(record, every)
    return record


def _cell(value) -> str:
    return "-" if value is None else str(value)


def markdown(record: dict) -> str:
    lines = [f"# Soak {record['started']}", "",
             f"- command: `{record['command']}`",
             f"- commit: {record['commit']}{' (tree dirty)' if record['dirty'] else ''}; "
             f"seed {record['seed']}; {record['machine']}",
             f"- graph: household_sim (time_scale {record['time_scale']}) + interaction_node + "
             f"tts (log); world {record['world']}; wall time {record['wall_s']} s",
             ""]
    if record.get("note"):
        lines += [f"Note: {record['note']}", ""]
    if record.get("terminated"):
        lines += [f"**Ended early: {record['terminated']}**", ""]
    for name, phase in record["phases"].items():
        lines += [f"## {name}: {phase['said']} of {phase['planned']} utterances "
                  f"({', '.join(f'{k} {v}' for k, v in phase['mix'].items())}; "
                  f"resets {phase['resets']}, stops sent {phase['stops_sent']})", ""]
        if phase["stopped_early"]:
            lines += [f"**{phase['stopped_early']}**", ""]
        lines += ["| requests | t (s) | sim RSS MB | node RSS MB | tts RSS MB | node files | "
                  "node threads | sandbox workers (MB) | ChromaDB MB | lessons | p50 s | p95 s "
                  "| lost |", "|" + "---|" * 13]
        for cp in phase["checkpoints"]:
            n = cp["nodes"]
            lines.append(
                f"| {cp['requests']} | {cp['at_s']} | {n['household_sim']['rss_mb']} | "
                f"{n['interaction_node']['rss_mb']} | {n['tts']['rss_mb']} | "
                f"{n['interaction_node']['open_files']} | {n['interaction_node']['threads']} | "
                f"{cp['sandbox_workers']} ({cp['sandbox_rss_mb']}) | "
                f"{cp['chroma_bytes'] / 2**20:.2f} | {_cell(cp['lessons'])} | "
                f"{_cell(cp['latency_p50_s'])} | {_cell(cp['latency_p95_s'])} | {cp['lost']} |")
        t = phase["targets"]
        lines += ["", f"- lost: {t['lost']['value']} ({'met' if t['lost']['met'] else 'MISSED'}"
                      f": target 0); unfinished turns: {phase['unfinished']}"]
        for key, label in (("rss_growth", "RSS growth"), ("p95_growth", "p95 growth")):
            item = t[key]
            if item.get("met") is None:
                lines.append(f"- {label}: not judged ({item.get('note', 'no value')})")
            else:
                lines.append(f"- {label} {item['from']} -> {item['to']}: {item['value']} "
                             f"({'met' if item['met'] else 'MISSED'}: target <= "
                             f"{item['target']})")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.soak",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=500,
                        help="utterances with the scripted LLM (0: none)")
    parser.add_argument("--model-requests", type=int, default=50,
                        help="utterances with the embedded model after them (0: none)")
    parser.add_argument("--seed", type=int, default=60)
    parser.add_argument("--every", type=int, default=100,
                        help="a checkpoint every N utterances (scripted phase)")
    parser.add_argument("--model-every", type=int, default=10,
                        help="a checkpoint every N utterances (model phase)")
    parser.add_argument("--time-scale", type=float, default=0.1,
                        help="household_sim time_scale (its params file's default: 0.1)")
    parser.add_argument("--turn-timeout", type=float, default=120.0,
                        help="s an utterance may take to be answered and its turn to end "
                        "(scripted; the model phase: 5x)")
    parser.add_argument("--stop-at", help="HH:MM (UTC): say no more utterances after it; a "
                        f"turn still running {CUT_GRACE_S:.0f} s later is cut (recorded)")
    parser.add_argument("--note", default="", help="a note for the record")
    parser.add_argument("--out", default=str(ROOT / "docs/eval/soak"))
    parser.add_argument("--keep", action="store_true", help="keep the run directory (logs)")
    args = parser.parse_args(argv)
    if args.requests < 0 or args.model_requests < 0 or args.every < 1 or args.model_every < 1:
        parser.error("counts must be >= 0, --every >= 1")
    stop_at = None
    if args.stop_at:
        hh, mm = (int(x) for x in args.stop_at.split(":"))
        stop_at = datetime.now(UTC).replace(hour=hh, minute=mm, second=0, microsecond=0)

    # a SIGTERM ends the run as Ctrl-C does (the nodes it started are stopped), and what was
    # measured until then is recorded (the phase says it was terminated; exit code 143)
    signal.signal(signal.SIGTERM, _on_sigterm)
    domain, _lock = claim_domain()
    os.environ["ROS_DOMAIN_ID"] = str(domain)
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    run_dir = Path(tempfile.mkdtemp(prefix="soak-"))
    # the tree the nodes import, as it is when they start
    commit, status = git("rev-parse", "--short=7", "HEAD"), git("status", "--porcelain")
    started = datetime.now(UTC)
    t_start = time.monotonic()
    command = "python -m llm_interaction_node.bench.soak " + " ".join(
        sys.argv[1:] if argv is None else argv)
    echo = print
    echo(f"soak: ROS domain {domain}, logs in {run_dir}")
    phases: dict[str, dict] = {}
    terminated = None
    try:
        try:
            if args.requests:
                llm = ScriptedEndpoint(lambda said: SCRIPT.get(said, []), READINGS)
                memory = run_dir / "memory"
                try:
                    graph, person = start_graph(run_dir, memory, llm.url, args.time_scale,
                                                "scripted", 300, echo)
                    try:
                        events = schedule(args.seed, args.requests)
                        phase = Phase("scripted", args.requests)
                        echo(HEADER)
                        run_phase(phase, events, person, graph, memory, args.every,
                                  args.turn_timeout, stop_at, echo)
                        phases["scripted"] = phase_record(phase, args.every, events)
                        phases["scripted"]["llm_calls"] = dict(llm.calls)
                    finally:
                        person.close()
                        graph.stop()
                finally:
                    llm.close()
            if args.model_requests and not any(p["terminated"] for p in phases.values()):
                memory = run_dir / "memory-model"
                graph, person = start_graph(run_dir, memory, None, args.time_scale, "model", 1800,
                                            echo)
                try:
                    events = schedule(args.seed + 1, args.model_requests, model=True)
                    phase = Phase("model", args.model_requests, reset_world=True)
                    echo(HEADER)
                    run_phase(phase, events, person, graph, memory, args.model_every,
                              args.turn_timeout * 5, stop_at, echo)
                    phases["model"] = phase_record(phase, args.model_every, events)
                    phases["model"]["llm"] = next(
                        (line.split("interaction_node ready: ", 1)[1].split(";")[0]
                         for line in graph.log("interaction_node").splitlines()
                         if "interaction_node ready: " in line), "?")
                finally:
                    person.close()
                    graph.stop()
        except Terminated:
            terminated = (f"terminated by a SIGTERM from outside at {datetime.now(UTC):%H:%M:%S} "
                          "UTC, outside a phase's requests")
            echo(terminated)
    finally:
        if not args.keep:
            shutil.rmtree(run_dir, ignore_errors=True)
    record = {
        "benchmark": "soak", "started": started.strftime("%Y-%m-%d %H:%M:%S UTC"),
        "command": command, "commit": commit,
        "dirty": bool(status), "dirty_files": status.splitlines() if status else [],
        "seed": args.seed, "world": WORLD, "time_scale": args.time_scale,
        "turn_timeout_s": args.turn_timeout, "every": args.every,
        "model_every": args.model_every, "note": args.note,
        "terminated": terminated or next((p["stopped_early"] for p in phases.values()
                                          if p["terminated"]), None),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "wall_s": round(time.monotonic() - t_start, 1), "phases": phases,
        "lost": sum(p["lost"] for p in phases.values()),
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{started:%Y%m%d-%H%M%S}-scripted{args.requests}-model{args.model_requests}"
    (out / f"{stem}.json").write_text(json.dumps(record, indent=1) + "\n")
    (out / f"{stem}.md").write_text(markdown(record))
    for name, phase in phases.items():
        t = phase["targets"]
        echo(f"{name}: lost {t['lost']['value']} ({'met' if t['lost']['met'] else 'MISSED'}); "
             f"RSS growth {t['rss_growth'].get('value')} (met: {t['rss_growth'].get('met')}); "
             f"p95 growth {t['p95_growth'].get('value')} (met: {t['p95_growth'].get('met')})")
    echo(f"written {out / stem}.json and .md")
    if record["lost"]:
        return 1
    return 128 + signal.SIGTERM if record["terminated"] else 0


if __name__ == "__main__":
    sys.exit(main())

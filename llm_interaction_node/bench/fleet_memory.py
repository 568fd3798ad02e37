"""Benchmark: a fleet's lessons on one Chroma server, stored by robots at the same time.

Starts ``chroma run`` on a free loopback port (or uses ``--host/--port``), then ``--robots``
writer processes, one per robot; each opens the shared memory as a robot does
(``ExampleMemory`` with its ``memory.robot_id``, its world and that world's names; the seed
examples added on open, as ``session.open_memory`` does), says it is ready, and when all are
ready (one line on each writer's stdin, sent at once) stores ``--lessons`` lessons as fast
as it can (``ExampleMemory.add``: MiniLM embeddings of the lesson's utterances, one Chroma
``add`` per lesson), timing each store. Then a reader process counts what the server kept:
the lessons per robot, each one's id, robot, world and needs, and the seed examples (the
robots opened the new server at once: each seed must be there once).

    python -m llm_interaction_node.bench.fleet_memory [--robots 2] [--lessons 50] [--json]

Prints ``kept N of M`` (M = robots x lessons), lost and duplicated lessons, seeds, and the
store latency (p50/p95/max per lesson) with the writers' wall time. Exit code 1 if a lesson
was lost or stored twice, or a seed was doubled.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

WORLDS = ("drinks_and_cup", "living_room")


def chroma_script() -> Path:
    """The ``chroma`` console script of this Python's environment."""
    return Path(sys.executable).parent / "chroma"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(path: Path, port: int, log: Path, timeout_s: float = 60.0) -> subprocess.Popen:
    """``chroma run --path PATH --port PORT`` on loopback, once its heartbeat answers."""
    server = subprocess.Popen([str(chroma_script()), "run", "--path", str(path), "--port",
                               str(port), "--host", "127.0.0.1"],
                              stdout=open(log, "w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat",
                                        timeout=1) as answer:
                if answer.status == 200:
                    return server
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            raise RuntimeError("chroma run did not come up: " + log.read_text()[-2000:])
        time.sleep(0.1)


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def world_names(world: str) -> list[str]:
    """The names a request may say in ``world`` (its things and places), as a robot there
    has them (``names_to_say`` of its console)."""
    from ..consoles import build_console
    from ..core.decoding.constraint import names_to_say
    from ..core.user.channel import EventQueue
    from ..session import make_world
    console = build_console("humanoid", make_world("humanoid", world), EventQueue(),
                            isolated=False)
    return names_to_say(console.api)


def lesson(robot: str, n: int, names: list[str]) -> str:
    """A lesson's transcript: a request with the robot's tag and number, a bring of one of
    the world's things (so each lesson has its own key and needs a thing of its world)."""
    things = [name for name in names if not name.startswith(("on_", "inFrontOf_"))
              and name not in ("room_center", "handover_to_human")]
    thing = things[n % len(things)]
    said = f"{robot} lesson {n}: bring me the {thing.split('_')[0].replace('-', ' ')} please"
    return "\n".join([">>> wait_for_trigger()", repr({"type": "dialog", "text": said}),
                      f">>> bring_object_to({thing!r}, 'handover_to_human')", "'success'",
                      ">>> say('Here it is.')", ">>> wait_for_trigger()"])


def writer(host: str, port: int, robot: str, world: str, lessons: int) -> None:
    """One robot: open the shared memory (seeding it), wait for the go, store the lessons;
    prints one JSON line with the ids and each store's seconds."""
    from ..core.memory.config import MemoryConfig
    from ..core.memory.fleet import Provenance
    from ..session import open_memory
    names = world_names(world)
    memory = open_memory("humanoid", MemoryConfig(host=host, port=port, timeout_s=30.0),
                         provenance=Provenance(robot, world, names=lambda: names))
    memory.embed(["warm up the embedding model"])
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return
    ids, seconds = [], []
    start = time.perf_counter()
    for n in range(lessons):
        t0 = time.perf_counter()
        example = memory.add(lesson(robot, n, names), "final", origin=f"{robot}/{n}")
        seconds.append(time.perf_counter() - t0)
        ids.append(example.id)
    print(json.dumps({"robot": robot, "ids": ids, "seconds": seconds,
                      "wall_s": time.perf_counter() - start}), flush=True)


def reader(host: str, port: int) -> None:
    """What the server kept: one JSON line (lessons with id, robot, world, needs; seeds)."""
    from ..core.memory.config import MemoryConfig
    from ..core.memory.store import ExampleMemory
    memory = ExampleMemory("humanoid", MemoryConfig(host=host, port=port, timeout_s=30.0))
    kept = [{"id": e.id, "robot": e.robot, "world": e.world, "needs": list(e.needs),
             "origin": e.origin} for e in memory.list("final")]
    print(json.dumps({"lessons": kept, "seeds": [e.origin for e in memory.list("seed")],
                      "count": memory.count()}), flush=True)


def _child(*args: str) -> list[str]:
    return [sys.executable, "-m", "llm_interaction_node.bench.fleet_memory", *args]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run_fleet(robots: int = 2, lessons: int = 50, host: str | None = None,
              port: int | None = None, workdir: Path | None = None,
              timeout_s: float = 600.0) -> dict:
    """Store ``lessons`` lessons from each of ``robots`` writer processes at once on one
    Chroma server (started here unless ``host``); what the server kept, as a dict."""
    tmp = Path(workdir or tempfile.mkdtemp(prefix="fleet_memory_"))
    server = None
    if host is None:
        host, port = "127.0.0.1", port or free_port()
        server = start_server(tmp / "chroma", port, tmp / "chroma.log")
    port = port or 8000
    procs = []
    try:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        for i in range(robots):
            procs.append(subprocess.Popen(
                _child("--writer", f"robot_{chr(ord('a') + i)}", "--world",
                       WORLDS[i % len(WORLDS)], "--host", host, "--port", str(port),
                       "--lessons", str(lessons)),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(tmp / f"w{i}.log", "w"),
                text=True, env=env))
        for i, proc in enumerate(procs):
            line = proc.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"writer {i} did not start: {line!r} "
                                   + (tmp / f"w{i}.log").read_text()[-2000:])
        for proc in procs:                               # the go, to all at once
            proc.stdin.write("go\n")
        for proc in procs:
            proc.stdin.flush()
        start = time.perf_counter()
        results = []
        for i, proc in enumerate(procs):
            out, _ = proc.communicate(timeout=timeout_s)
            if proc.returncode != 0:
                raise RuntimeError(f"writer {i} failed: " + (tmp / f"w{i}.log").read_text()[-2000:])
            results.append(json.loads(out.strip().splitlines()[-1]))
        wall = time.perf_counter() - start
        done = subprocess.run(_child("--reader", "--host", host, "--port", str(port)),
                              capture_output=True, text=True, timeout=timeout_s, env=env)
        if done.returncode != 0:
            raise RuntimeError("reader failed: " + done.stderr[-2000:])
        kept = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if server is not None:
            stop_server(server)
    stored = {i: r["robot"] for r in results for i in r["ids"]}
    by_id: dict[str, list[dict]] = {}
    for item in kept["lessons"]:
        by_id.setdefault(item["id"], []).append(item)
    seconds = [s for r in results for s in r["seconds"]]
    wrong = [i for i, robot in stored.items()
             if i in by_id and (by_id[i][0]["robot"] != robot or not by_id[i][0]["needs"])]
    return {
        "robots": robots, "lessons_each": lessons, "stored": len(stored),
        "kept": sum(1 for i in stored if i in by_id),
        "lost": sorted(i for i in stored if i not in by_id),
        "doubled": sorted(i for i, items in by_id.items() if len(items) > 1),
        "strangers": sorted(i for i in by_id if i not in stored),
        "wrong_provenance": wrong,
        "per_robot": {r["robot"]: sum(1 for i in r["ids"] if i in by_id) for r in results},
        "worlds": sorted({item["world"] for item in kept["lessons"]}),
        "seeds": len(kept["seeds"]), "seed_files": len(set(kept["seeds"])),
        "store_p50_ms": 1000 * percentile(seconds, 0.5),
        "store_p95_ms": 1000 * percentile(seconds, 0.95),
        "store_max_ms": 1000 * max(seconds),
        "writers_wall_s": wall,
        "writer_wall_s": [r["wall_s"] for r in results],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--robots", type=int, default=2)
    parser.add_argument("--lessons", type=int, default=50, help="lessons each robot stores")
    parser.add_argument("--host", help="an existing Chroma server (default: one started here)")
    parser.add_argument("--port", type=int)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--writer", metavar="ROBOT", help=argparse.SUPPRESS)
    parser.add_argument("--world", default=WORLDS[0], help=argparse.SUPPRESS)
    parser.add_argument("--reader", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.writer:
        writer(args.host, args.port, args.writer, args.world, args.lessons)
        return 0
    if args.reader:
        reader(args.host, args.port)
        return 0
    result = run_fleet(args.robots, args.lessons, args.host, args.port)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"robots {result['robots']} x {result['lessons_each']} lessons stored at once "
              f"on one Chroma server: kept {result['kept']} of {result['stored']} "
              f"({', '.join(f'{r} {n}' for r, n in result['per_robot'].items())}); lost "
              f"{len(result['lost'])}, stored twice {len(result['doubled'])}, with the wrong "
              f"robot or no needs {len(result['wrong_provenance'])}; worlds "
              f"{', '.join(result['worlds'])}")
        print(f"seed examples: {result['seeds']} ({result['seed_files']} files; the robots "
              "seeded the new server at once)")
        print(f"store per lesson: p50 {result['store_p50_ms']:.0f} ms, p95 "
              f"{result['store_p95_ms']:.0f} ms, max {result['store_max_ms']:.0f} ms; writers "
              f"{result['writers_wall_s']:.1f} s wall")
    bad = result["lost"] or result["doubled"] or result["wrong_provenance"] or \
        result["seeds"] != result["seed_files"] or result["kept"] != result["stored"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

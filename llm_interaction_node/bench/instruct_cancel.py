"""Benchmark: an Instruct goal cancelled mid-skill -> the skill stopped (issue 61 target <= 0.5 s).

Processes: the household simulator (``time_scale 1``: the scripted slow move takes ~30 s) and
the interaction node, its LLM a scripted endpoint on loopback (:mod:`.scripted_endpoint`: the
request's turn is the slow move, then a ``say`` that must never run); this process is the
other node, :class:`~..ros.instructor.Instructor`. Each trial resets the simulated world,
sends the goal, waits for the feedback that the move started, 0.5 s more, then cancels:

* ``cancel -> skill canceled``: from ``Instructor.cancel()`` to the simulator's world state
  reporting the move canceled, received back in this process (DDS both ways, the node's stop
  path: the cancel callback, ``request_stop``, the skill client's cancel);
* ``cancel -> accepted``: until the node's cancel response came back;
* ``cancel -> result``: until the goal's result (outcome ``stopped``, status CANCELED) came
  back: the turn ended ("Okay, I stopped." said) and the robot waits for the next request.

    python -m llm_interaction_node.bench.instruct_cancel [--trials 10] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .processes import stop_process
from .scripted_endpoint import WAIT, ScriptedEndpoint

REQUEST = "go to the handover point very slowly"
SLOW_MOVE = "move_to(get_location_coordinates('handover_to_human'), 0.1)"
NEVER = "say('this must never run')"
TARGET_S = 0.5


def _start(module: str, log: Path, *ros_args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", module, "--ros-args", *ros_args],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT)


def _stats(samples: list[float]) -> dict:
    ms = np.asarray(samples) * 1000.0
    return {"n": int(ms.size), "p50_ms": round(float(np.percentile(ms, 50)), 1),
            "p95_ms": round(float(np.percentile(ms, 95)), 1), "max_ms": round(float(ms.max()), 1)}


def _wait(predicate, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def run(trials: int, log_dir: Path) -> dict:
    os.environ.setdefault("ROS_DOMAIN_ID", str(150 + os.getpid() % 80))
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    from std_msgs.msg import String
    from std_srvs.srv import Trigger

    from ..ros import names
    from ..ros.instructor import Instructor
    from ..ros.qos import LATCHED

    llm = ScriptedEndpoint(lambda said: [SLOW_MOVE, NEVER, WAIT] if said == REQUEST else [])
    sim = _start("llm_interaction_node.ros.nodes.household_sim", log_dir / "sim.log",
                 "-p", "time_scale:=1.0")
    node = _start("llm_interaction_node.ros.nodes.interaction_node", log_dir / "node.log",
                  "--params-file", "config/interaction_node.yaml",
                  "-p", f"llm.base_url:={llm.url}", "-p", "llm.model:=scripted",
                  "-p", "memory.enabled:=false", "-p", "timeouts.first_scene_s:=30.0")
    cancel_skill, cancel_accepted, cancel_result, misses = [], [], [], []
    try:
        with Instructor(server_wait_s=120) as robot:
            worlds: list[tuple[float, dict]] = []
            robot.node.create_subscription(
                String, names.WORLD_STATE,
                lambda m: worlds.append((time.monotonic(), json.loads(m.data))), LATCHED)
            reset = robot.node.create_client(Trigger, names.WORLD_RESET)
            if not reset.wait_for_service(timeout_sec=60):
                raise SystemExit(f"no world reset service; see {log_dir}")
            for trial in range(trials):
                future = reset.call_async(Trigger.Request())
                _wait(future.done, 10)
                robot.instruct(REQUEST)
                if not _wait(lambda: any(f.statement == SLOW_MOVE and not f.ran
                                         for f in robot.feedbacks), 60):
                    raise SystemExit(f"trial {trial}: the move never started; see {log_dir}")
                time.sleep(0.5)                                  # the move is under way
                n_worlds = len(worlds)
                t0 = time.monotonic()
                accepted = robot.cancel()
                cancel_accepted.append(time.monotonic() - t0)

                def canceled(n=n_worlds):
                    return [t for t, w in worlds[n:]
                            if (w.get("last_skill") or {}).get("reason") == "canceled"]
                if not accepted or not _wait(lambda: bool(canceled()), 10):
                    misses.append(trial)
                    robot.result(timeout_s=60)
                    continue
                cancel_skill.append(canceled()[0] - t0)
                result = robot.result(timeout_s=30)
                cancel_result.append(time.monotonic() - t0)
                if result is None or result.outcome != "stopped" or NEVER in result.transcript:
                    misses.append(trial)
    finally:
        stop_process(node)
        stop_process(sim)
        llm.close()
    return {"machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                       f"Python {platform.python_version()}",
            "trials": trials, "misses": misses,
            "cancel_to_skill_canceled": _stats(cancel_skill) if cancel_skill else {"n": 0},
            "cancel_to_accepted": _stats(cancel_accepted) if cancel_accepted else {"n": 0},
            "cancel_to_result": _stats(cancel_result) if cancel_result else {"n": 0},
            "logs": str(log_dir)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = run(args.trials, Path(tempfile.mkdtemp(prefix="instruct_cancel_")))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"machine: {results['machine']}; trials {results['trials']}, "
          f"missed {len(results['misses'])}")
    for key, what in (("cancel_to_skill_canceled", "cancel -> skill canceled (world state)"),
                      ("cancel_to_accepted", "cancel -> cancel accepted"),
                      ("cancel_to_result", "cancel -> result (stopped)")):
        r = results[key]
        if r["n"]:
            print(f"{what:42s} p50 {r['p50_ms']:7.1f} ms  p95 {r['p95_ms']:7.1f} ms  "
                  f"max {r['max_ms']:7.1f} ms  (n={r['n']})")
    worst = results["cancel_to_skill_canceled"].get("max_ms")
    met = worst is not None and worst <= TARGET_S * 1000 and not results["misses"]
    print(f"target: cancel -> skill stopped <= {TARGET_S * 1000:.0f} ms: "
          f"{'met' if met else 'NOT met'} (max)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

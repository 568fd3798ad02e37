"""Benchmark: the ROS overhead of one robot API call, and how fast a stop cancels a skill.

Starts the household simulator node as its own process (skill durations zero:
``time_scale 0``) and, in this process, the interaction node's skill clients:

* ``action``: one ``SkillClient.run`` of a MoveTo goal (wait for the server, send, accept,
  result): the action round trip on loopback;
* ``api``: one ``move_to(get_location_coordinates(...))`` through the humanoid API and the
  ROS robot: the action round trip plus the API's checks and the wait for the scene the
  simulator publishes after the skill (what the LLM's statement costs on top of the skill);
* ``stop``: with a simulator whose moves take seconds (``time_scale 1``): from
  ``StopSignal.request()`` to the simulator's world state reporting the move canceled, as
  received back in this process (the user-visible stop latency, including DDS both ways).

    python -m llm_interaction_node.bench.ros_roundtrip [--calls 300] [--stops 20] [--json]

Targets (issue 4): api/action p50 < 10 ms; stop < 200 ms.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from .processes import stop_process


def _percentiles(samples_s: list[float]) -> dict[str, float]:
    ms = np.asarray(samples_s) * 1000.0
    return {"n": int(ms.size), "p50_ms": round(float(np.percentile(ms, 50)), 3),
            "p95_ms": round(float(np.percentile(ms, 95)), 3),
            "max_ms": round(float(ms.max()), 3)}


def _start_sim(time_scale: float, log_dir: Path) -> subprocess.Popen:
    log = open(log_dir / f"sim_{time_scale:g}.log", "w")
    return subprocess.Popen([sys.executable, "-m", "llm_interaction_node.ros.nodes.household_sim",
                             "--ros-args", "-p", f"time_scale:={time_scale}",
                             "-p", "scene_rate_hz:=2.0"],
                            stdout=log, stderr=subprocess.STDOUT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--stops", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    os.environ.setdefault("ROS_DOMAIN_ID", str(150 + os.getpid() % 80))
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    import rclpy
    from llm_interaction_interfaces.action import MoveTo
    from llm_interaction_interfaces.msg import Scene
    from rclpy.executors import SingleThreadedExecutor
    from std_msgs.msg import String

    from ..core.apis.humanoid import HumanoidApi
    from ..core.apis.knowledge import StaticKnowledge
    from ..core.transcript.errors import InteractionAborted
    from ..core.user.interrupt import StopSignal
    from ..paths import world_path
    from ..ros import names
    from ..ros.conversions import base_pose_to_msg
    from ..ros.qos import LATCHED
    from ..ros.robot.humanoid import RosHumanoidRobot
    from ..ros.robot.scene_memory import SceneMemory
    from ..ros.robot.skill_client import SkillClient
    from ..ros.skills import SKILL_ACTIONS, SKILL_TYPES

    log_dir = Path(tempfile.mkdtemp(prefix="ros_roundtrip_"))
    rclpy.init()
    node = rclpy.create_node("bench_ros_roundtrip")
    executor = SingleThreadedExecutor()      # as the interaction node
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    stop = StopSignal()
    knowledge = StaticKnowledge.from_yaml(world_path("drinks_and_cup"))
    scene = SceneMemory(knowledge)
    node.create_subscription(Scene, names.SCENE, scene.update, 10)
    latched = LATCHED
    worlds: list[tuple[float, dict]] = []
    node.create_subscription(
        String,
        names.WORLD_STATE,
        lambda m: worlds.append((time.monotonic(), json.loads(m.data))),
        latched,
    )
    skills = {s: SkillClient(node, t, SKILL_ACTIONS[s], stop, server_wait_s=60.0)
              for s, t in SKILL_TYPES.items()}
    robot = RosHumanoidRobot(skills, scene, now_ns=lambda: node.get_clock().now().nanoseconds)
    api = HumanoidApi(robot)
    places = ["inFrontOf_kitchen-counter_0", "room_center"]
    goals = [MoveTo.Goal(target=base_pose_to_msg(knowledge.locations[p]), speed_factor=1.0)
             for p in places]
    results: dict = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                                f"Python {platform.python_version()}"}
    sim = _start_sim(0.0, log_dir)
    try:
        if not scene.wait_for_first(60):
            raise SystemExit(f"the simulator did not publish a scene; see {log_dir}")
        for i in range(20):                                      # warm up
            skills["move_to"].run(goals[i % 2], 10.0)
        samples = []
        for i in range(args.calls):
            t0 = time.perf_counter()
            outcome = skills["move_to"].run(goals[i % 2], 10.0)
            samples.append(time.perf_counter() - t0)
            assert outcome.ok, outcome
        results["action"] = _percentiles(samples)
        samples, skill_part = [], []
        for i in range(args.calls):
            t0 = time.perf_counter()
            status = api.move_to(api.get_location_coordinates(places[i % 2]))
            samples.append(time.perf_counter() - t0)
            skill_part.append(robot.outcomes[-1][1].wall_s)
            assert status == "success", status
        results["api"] = _percentiles(samples)
        results["api_skill_part"] = _percentiles(skill_part)
    finally:
        stop_process(sim)

    sim = _start_sim(1.0, log_dir)
    try:
        skills["move_to"].run(goals[1], 60.0)                   # wait for the new server
        samples = []
        for _ in range(args.stops):
            aborted = threading.Event()

            def drive(goal=goals[0], aborted=aborted):
                try:
                    skills["move_to"].run(goal, 60.0)
                except InteractionAborted:
                    aborted.set()
            n_worlds = len(worlds)
            worker = threading.Thread(target=drive)
            worker.start()
            time.sleep(0.4)                                      # the move is under way
            t0 = time.monotonic()
            stop.request("benchmark")
            deadline = t0 + 10
            while time.monotonic() < deadline:
                done = [t for t, w in worlds[n_worlds:]
                        if (w.get("last_skill") or {}).get("reason") == "canceled"]
                if done:
                    samples.append(done[0] - t0)
                    break
                time.sleep(0.001)
            worker.join(10)
            stop.clear()
            # drive back to the start for the next trial
            skills["move_to"].run(goals[1], 60.0)
        results["stop"] = _percentiles(samples) if samples else {"n": 0}
    finally:
        stop_process(sim)
        rclpy.try_shutdown()
        executor.shutdown()
        spinner.join(5)
        node.destroy_node()

    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"machine: {results['machine']}")
        for key, label in (("action", "action round trip (MoveTo, skill duration 0)"),
                           ("api", "API call move_to(get_location_coordinates(...)) via ROS"),
                           ("api_skill_part", "  of which SkillClient.run"),
                           ("stop", "stop -> skill canceled, seen back in this process")):
            r = results[key]
            print(f"{label}: n={r['n']} p50 {r.get('p50_ms')} ms, p95 {r.get('p95_ms')} ms, "
                  f"max {r.get('max_ms')} ms")
        print("targets: API/action p50 < 10 ms; stop < 200 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: a spoken "stop" -> the running skill canceled (issue 18), on real processes.

Processes: the household simulator (``time_scale 1``: a slow move takes tens of seconds) and
the asr node (faster-whisper, ``config/asr.yaml``). This process plays the interaction node's
part of the stop path: its skill client drives the move, it publishes ``interaction/state``
(busy while the move runs) and turns a message on ``interaction/stop`` into
``StopSignal.request()``, as the node does. Each trial starts a move, and 0.5 s later streams
espeak-ng's "stop" in real time on ``speech/audio``, as a microphone would. Latency = from the
end of the spoken word (its last voiced sample) to the simulator's world state reporting the
move canceled, received here. Every trial must end in a cancel: a miss is counted.

``--busy N`` runs N CPU-bound processes beside it (the loaded machine of issue 18).

    python -m llm_interaction_node.bench.barge_in [--trials 10] [--busy 2] [--json]
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

from .asr import percentiles, speak, voiced_end
from .processes import stop_process

SR = 16000
_BUSY = "while True: pass"


def _start(module: str, log: Path, *ros_args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", module, "--ros-args", *ros_args],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT)


def run(trials: int, busy: int, log_dir: Path) -> dict:
    os.environ.setdefault("ROS_DOMAIN_ID", str(150 + os.getpid() % 80))
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    import rclpy
    from llm_interaction_interfaces.action import MoveTo
    from llm_interaction_interfaces.msg import AsrResult, AudioData
    from rclpy.executors import SingleThreadedExecutor
    from std_msgs.msg import Empty, String

    from ..core.apis.knowledge import StaticKnowledge
    from ..core.settings.config_files import config_path
    from ..core.transcript.errors import InteractionAborted
    from ..core.user.interrupt import StopSignal
    from ..paths import world_path
    from ..ros import names
    from ..ros.conversions import base_pose_to_msg
    from ..ros.nodes.wav_source import stream
    from ..ros.qos import LATCHED
    from ..ros.robot.skill_client import SkillClient
    from ..ros.skills import SKILL_ACTIONS
    from ..ros.speech.audio import AUDIO_QOS

    hogs = [subprocess.Popen([sys.executable, "-c", _BUSY]) for _ in range(busy)]
    sim = _start("llm_interaction_node.ros.nodes.household_sim", log_dir / "sim.log",
                 "-p", "time_scale:=1.0")
    asr = _start("llm_interaction_node.ros.nodes.asr", log_dir / "asr.log",
                 "--params-file", str(config_path("asr.yaml")))
    rclpy.init()
    node = rclpy.create_node("bench_barge_in")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    latched = LATCHED
    stop = StopSignal()
    worlds: list[tuple[float, dict]] = []
    results: list[AsrResult] = []
    node.create_subscription(String, names.WORLD_STATE,
                             lambda m: worlds.append((time.time(), json.loads(m.data))), latched)
    node.create_subscription(Empty, names.STOP, lambda _m: stop.request("spoken stop"), 10)
    node.create_subscription(AsrResult, names.ASR_RESULT, results.append, 50)
    state = node.create_publisher(String, names.STATE, latched)
    audio = node.create_publisher(AudioData, names.AUDIO, AUDIO_QOS)
    mover = SkillClient(node, MoveTo, SKILL_ACTIONS["move_to"], stop, server_wait_s=60.0)
    knowledge = StaticKnowledge.from_yaml(world_path("drinks_and_cup"))
    goals = [MoveTo.Goal(target=base_pose_to_msg(knowledge.locations[p]), speed_factor=0.1)
             for p in ("handover_to_human", "inFrontOf_kitchen-counter_0")]
    word = np.concatenate([speak("stop", "en-us", 140), np.zeros(SR // 5, np.int16)])
    latencies, recognised, misses = [], [], 0
    try:
        state.publish(String(data="idle"))
        deadline = time.monotonic() + 180
        while "asr ready" not in (log_dir / "asr.log").read_text() \
                or audio.get_subscription_count() == 0:
            if asr.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the asr node did not come up:\n"
                                   + (log_dir / "asr.log").read_text()[-3000:])
            time.sleep(0.1)
        time.sleep(1.0)                                  # the subscriber side of discovery
        for i in range(trials):
            stop.clear()
            n_worlds, n_results = len(worlds), len(results)
            done = threading.Event()

            def drive(goal=goals[i % 2], done=done):
                try:
                    mover.run(goal, 120.0)
                except InteractionAborted:
                    pass
                finally:
                    done.set()
            state.publish(String(data="busy"))
            threading.Thread(target=drive, daemon=True).start()
            time.sleep(0.5)                              # the move is under way
            lead = 0.3
            start = stream(audio.publish, [word], chunk_ms=100, lead_s=lead, gap_s=1.0,
                           realtime=True, clock=time.time, frame_id="bench")
            said_end = start + lead + voiced_end(word)
            done.wait(60)
            deadline = time.monotonic() + 10        # the client returns before the world says so
            while True:
                canceled = [t for t, w in worlds[n_worlds:]
                            if (w.get("last_skill") or {}).get("reason") == "canceled"]
                if canceled or time.monotonic() > deadline:
                    break
                time.sleep(0.01)
            if canceled:
                latencies.append(canceled[0] - said_end)
            else:
                misses += 1
            recognised += [r.processing_s for r in results[n_results:] if r.outcome == "stop"]
            state.publish(String(data="idle"))
            time.sleep(1.0)
    finally:
        for hog in hogs:
            stop_process(hog)
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
        stop_process(asr)
        stop_process(sim)
    return {"trials": trials, "busy_processes": busy, "misses": misses,
            "stop_to_canceled_s": percentiles(latencies),
            "recognition_s": percentiles(recognised), "logs": str(log_dir)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--busy", type=int, default=0,
                        help="CPU-bound processes running beside it (default 0)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with open("/proc/loadavg") as f:
        load_before = f.read().split()[:3]
    result = run(args.trials, args.busy, Path(tempfile.mkdtemp(prefix="barge_in_")))
    result["machine"] = (f"{platform.machine()}, {os.cpu_count()} cores, "
                         f"Python {platform.python_version()}")
    result["load_average_before"] = " ".join(load_before)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        r = result["stop_to_canceled_s"]
        print(f"machine: {result['machine']}; load average before: "
              f"{result['load_average_before']}; {args.busy} busy process(es) beside it")
        print(f"spoken 'stop' -> move canceled: n={r['n']} p50 {r.get('p50')} s, "
              f"p95 {r.get('p95')} s, max {r.get('max')} s; misses {result['misses']} of "
              f"{args.trials}")
        rec = result["recognition_s"]
        print(f"  of which recognition: p50 {rec.get('p50')} s, p95 {rec.get('p95')} s")
    return 0 if result["misses"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

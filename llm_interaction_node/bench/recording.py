"""Benchmark: the cost of viewing and recording (issue 19), in-process.

* camera: one PyBullet tabletop frame (``TabletopWorldBullet.render``, ER_TINY_RENDERER) at
  the node's default 320x240 and at 640x480, ms per frame (median);
* markers: one ``household_markers`` array of the drinks-and-cup world (ms, marker count,
  serialized bytes);
* bag: a minute of what ``run --record`` gets from the simulated household while a skill
  runs now and then (the scene at 5 Hz, markers and world state after each of 12 skills,
  transcript entries, utterances, TTS text, skill events), written with
  ``CrashSafeBagWriter``: the time of one flush at the end of a 60 s segment (the largest
  rewrite, the worst case of the 1 s flush), and the bag's size per minute.

    python -m llm_interaction_node.bench.recording [--repeats 20]
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from rclpy.serialization import serialize_message
from std_msgs.msg import String

from ..ros.bag import CrashSafeBagWriter, TopicSpec
from ..ros.conversions import scene_to_msg
from ..ros.markers import household_markers
from ..sims.worlds import load_household_world


def _ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def camera(repeats: int) -> dict:
    from ..sims.tabletop_bullet import TabletopWorldBullet
    with TabletopWorldBullet.from_names(["red block", "blue bowl", "green block"], seed=0) as w:
        return {f"{x}x{y}": round(_ms(lambda x=x, y=y: w.render(size=(x, y)), repeats), 2)
                for x, y in ((320, 240), (640, 480))}


def markers(repeats: int) -> dict:
    world = load_household_world("drinks_and_cup")

    def build():
        return household_markers(world.scene(), world.named_locations(), furniture=world.furniture,
                                 robot_pose=world.base_pose, hands=world.hands,
                                 human_xy=world.human_xy)
    array = build()
    return {"ms": round(_ms(build, repeats), 3), "markers": len(array.markers),
            "bytes": len(serialize_message(array))}


def bag(repeats: int) -> dict:
    world = load_household_world("drinks_and_cup")
    scene = serialize_message(scene_to_msg(world.scene()))
    array = serialize_message(household_markers(world.scene(), world.named_locations(),
                                                furniture=world.furniture,
                                                robot_pose=world.base_pose, hands=world.hands))
    state = serialize_message(String(data=json.dumps(world.snapshot())))
    text = serialize_message(String(data="x" * 80))
    topics = [TopicSpec("/perception/scene", "llm_interaction_interfaces/msg/Scene"),
              TopicSpec("/household_sim/markers", "visualization_msgs/msg/MarkerArray", True),
              TopicSpec("/interaction/markers", "visualization_msgs/msg/MarkerArray", True),
              TopicSpec("/household_sim/world_state", "std_msgs/msg/String", True),
              TopicSpec("/interaction/skills", "std_msgs/msg/String"),
              TopicSpec("/speech/tts_text", "std_msgs/msg/String")]
    flushes = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(repeats):
            writer = CrashSafeBagWriter(Path(tmp) / f"bag{r}", topics, segment_s=1e9)
            t0 = 1_000_000_000
            for i in range(300):                       # 60 s of scenes at 5 Hz
                writer.write("/perception/scene", t0 + i * 200_000_000, scene)
            for k in range(12):                        # 12 skills in the minute
                stamp = t0 + k * 5_000_000_000
                for topic in ("/household_sim/markers", "/interaction/markers"):
                    writer.write(topic, stamp, array)
                writer.write("/household_sim/world_state", stamp, state)
                writer.write("/interaction/skills", stamp, text)
                writer.write("/interaction/skills", stamp + 1, text)
                writer.write("/speech/tts_text", stamp + 2, text)
            t = time.perf_counter()
            writer.flush()
            flushes.append((time.perf_counter() - t) * 1000)
            size = sum(p.stat().st_size for p in (Path(tmp) / f"bag{r}").iterdir())
    return {"messages_per_minute": writer.written, "flush_ms": round(statistics.median(flushes), 1),
            "bytes_per_minute": size}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    results = {"camera_ms": camera(args.repeats), "markers": markers(args.repeats),
               "bag": bag(max(3, args.repeats // 4))}
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: wall time and success of one pick-and-place in the PyBullet tabletop world.

Each trial builds ``TabletopWorldBullet.random(3, 2, seed=trial)`` (not timed) and times one
``put_first_on_second`` of a random block through the CaP tabletop API onto, in turn, a bowl,
another block and a random point of the workspace. Success: the block ends within 0.06 m
(horizontally) of the target, as CaP's checks.

    python -m llm_interaction_node.bench.tabletop_pick_place [--trials 60] [--gripper \
floating|arm|both]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from ..core.apis.tabletop import TabletopApi
from ..sims.tabletop_bullet import TabletopWorldBullet

TARGETS = ("bowl", "block", "point")
SUCCESS_RADIUS = 0.06


def trial(seed: int, gripper: str) -> dict:
    rng = np.random.default_rng([seed, 11])
    kind = TARGETS[seed % len(TARGETS)]
    with TabletopWorldBullet.random(3, 2, seed=seed, gripper=gripper) as world:
        api = TabletopApi(world)
        names = world.object_names()
        blocks = [n for n in names if n.endswith("block")]
        bowls = [n for n in names if n.endswith("bowl")]
        block = blocks[int(rng.integers(len(blocks)))]
        if kind == "bowl":
            target = bowls[int(rng.integers(len(bowls)))]
        elif kind == "block":
            others = [b for b in blocks if b != block]
            target = others[int(rng.integers(len(others)))]
        else:
            target = api.denormalize_xy(rng.uniform(0.0, 1.0, size=2))
        goal = world.object_position(target)[:2] if isinstance(target, str) else np.asarray(target)
        start = time.perf_counter()
        result = api.put_first_on_second(block, target)
        seconds = time.perf_counter() - start
        moved = world.log[-1]["object"] if world.log else None
        where = world.object_position(moved or block)[:2]
        ok = moved == block and float(np.linalg.norm(where - goal)) < SUCCESS_RADIUS
    return {"seconds": seconds, "result": result, "success": ok, "kind": kind}


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def run(trials: int = 60, grippers: tuple[str, ...] = ("floating", "arm")) -> dict:
    out = {}
    for gripper in grippers:
        rows = [trial(seed, gripper) for seed in range(trials)]
        times = [r["seconds"] for r in rows]
        out[gripper] = {
            "trials": trials,
            "median_s": statistics.median(times),
            "p95_s": percentile(times, 95),
            "success_rate": sum(r["success"] for r in rows) / trials,
            "reported_success": sum(r["result"] == "success" for r in rows) / trials,
            "by_target": {k: sum(r["success"] for r in rows if r["kind"] == k)
                          / max(1, sum(r["kind"] == k for r in rows)) for k in TARGETS},
        }
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--gripper", choices=("floating", "arm", "both"), default="both")
    ap.add_argument("--json", action="store_true", help="print the raw numbers as JSON too")
    args = ap.parse_args(argv)
    grippers = ("floating", "arm") if args.gripper == "both" else (args.gripper,)
    res = run(args.trials, grippers)
    print(f"{'gripper':<9} {'trials':>6} {'median s':>9} {'p95 s':>8} {'success':>8} "
          f"{'bowl':>6} {'block':>6} {'point':>6}")
    for g, r in res.items():
        t = r["by_target"]
        print(f"{g:<9} {r['trials']:>6} {r['median_s']:>9.4f} {r['p95_s']:>8.4f} "
              f"{r['success_rate']:>8.1%} {t['bowl']:>6.0%} {t['block']:>6.0%} {t['point']:>6.0%}")
    if args.json:
        print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()

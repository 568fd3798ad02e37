"""Benchmark: wall time of the full evaluation protocol for one system, LLM excluded.

The scripted stand-in (``eval/oracle.py``: it answers with each task's correct program) takes
the LLM's place, so this measures the harness, the worlds, the console/baselines and the
memory: what a run costs on top of the model. All 22 instruction templates x splits, 10 runs.

    python -m llm_interaction_node.bench.eval_protocol [--system ours] [--runs 10]
        [--world bullet|2d] [--gripper floating|arm]

Target (issue 5): the full 3-split protocol < 10 min on this machine.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from ..eval.harness import plan, run_protocol, run_seed
from ..eval.oracle import OracleLLM
from ..eval.systems import SYSTEMS, make_system
from ..eval.tasks import SPLITS, make_task
from ..eval.worlds import world_factory


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--system", choices=SYSTEMS, default="ours")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--world", choices=("bullet", "2d"), default="bullet")
    parser.add_argument("--gripper", choices=("floating", "arm"), default="floating")
    args = parser.parse_args(argv)
    tasks = [make_task(t, s, run_seed(0, s, t, r)) for s, r, t in plan(SPLITS, args.runs)]
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        system = make_system(args.system, OracleLLM(tasks), Path(out) / "memory")
        setup = time.perf_counter() - t0
        t0 = time.perf_counter()
        records = run_protocol(system, out, runs=args.runs,
                               factory=world_factory(args.world, args.gripper))
        wall = time.perf_counter() - t0
    ok = sum(r.success for r in records)
    print(
        f"system {args.system}, world {args.world}/{args.gripper}: {len(records)} runs "
        f"({len(SPLITS)} splits x templates x {args.runs}) in {wall:.1f} s "
        f"({wall / len(records):.3f} s per run) + {setup:.1f} s setup; {ok}/{len(records)} "
        f"successful"
    )
    print("target: full 3-split protocol < 600 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: the console method's cost with and without incremental decoding, against CaP.

The same fixed tabletop tasks are run three (four) ways with the embedded model (llama.cpp,
gemma-3-270m, temperature 0), one instruction each and no feedback:

* ours naive:        the console agent; the model state is cleared before every call, so
                     every statement re-evaluates the whole prompt (what an API costs);
* ours incremental:  the same agent; the model keeps its state, so after the first call of a
                     task only the new text (last statement's result, the next ``>>>``) is
                     evaluated;
* CaP:               the whole program at once (+ its sub-programs), state cleared per call;
* CaP incremental:   for reference, CaP with the state kept (its prompt prefix is static);
* ours_k4_naive / ours_k4_incremental (optional modes): the k = 4 ablation's shorter prompt.

The model state is cleared between tasks (each task is measured alone).

"tokens evaluated" = prompt tokens the model evaluated + tokens it generated. Wall time is
split into time in the LLM and outside it.

    python -m llm_interaction_node.bench.incremental [--tasks 3] [--statements 15] [--json]

Target (issue 6): ours incremental / CaP <= 1.3 in tokens evaluated.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from ..core.agent import AgentConfig
from ..core.llm.local import LocalLlamaClient
from ..core.policy import TurnPolicy
from ..eval.harness import run_seed
from ..eval.systems.base import Round
from ..eval.tasks import make_task, make_world

TASKS = [("block_in_bowl", "sa_si"), ("blocks_on_place", "sa_si"), ("block_on_block", "sa_si"),
         ("blocks_in_bowl", "sa_si"), ("matching_bowls", "sa_si")]


def run_mode(mode: str, llm: LocalLlamaClient, tasks, statements: int, memory_dir: Path):
    from ..eval.systems.cap import make as make_cap
    from ..eval.systems.ours import OursSystem
    llm.incremental = mode.endswith("incremental")
    if mode.startswith("ours"):
        variant = "ours_k4" if mode.startswith("ours_k4") else "ours"
        system = OursSystem(llm, memory_dir / mode, variant,
                            config=AgentConfig(policy=TurnPolicy(max_statements=statements)))
    else:
        system = make_cap("cap", llm, None)
    rows = []
    for task in tasks:
        world = make_world(task)
        llm.llama.reset()                          # every task starts from an empty state
        before = system.ledger.total
        t0 = time.perf_counter()
        system.run(world, task.instruction, lambda _round: None)
        wall = time.perf_counter() - t0
        u = system.ledger.total
        evaluated = (u.evaluated_prompt_tokens - before.evaluated_prompt_tokens
                     + u.completion_tokens - before.completion_tokens)
        rows.append({"task": task.template_id, "sent": u.prompt_tokens - before.prompt_tokens,
                     "evaluated": evaluated, "calls": u.calls - before.calls,
                     "wall_s": round(wall, 2), "llm_s": round(u.wall_s - before.wall_s, 2)})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=3)
    parser.add_argument("--statements", type=int, default=15, help="statement cap per turn")
    parser.add_argument("--modes", nargs="+", default=["ours_naive", "ours_incremental", "cap",
                                                        "cap_incremental"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    tasks = [make_task(t, s, run_seed(0, s, t, 1)) for t, s in TASKS[: args.tasks]]
    llm = LocalLlamaClient()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in args.modes:
            results[mode] = run_mode(mode, llm, tasks, args.statements, Path(tmp))
            if not args.json:
                print(f"{mode}:", flush=True)
                for r in results[mode]:
                    print(f"  {r['task']:<18} sent {r['sent']:>6}  evaluated {r['evaluated']:>6}  "
                          f"calls {r['calls']:>3}  wall {r['wall_s']:>6} s (LLM {r['llm_s']} s)",
                          flush=True)
    totals = {m: {k: sum(r[k] for r in rows) for k in ("sent", "evaluated", "calls", "wall_s", "llm_s")}
              for m, rows in results.items()}
    ratios = {}
    if "cap" in totals:
        for m in totals:
            ratios[f"{m}/cap"] = {k: round(totals[m][k] / max(totals["cap"][k], 1e-9), 2)
                                  for k in ("sent", "evaluated", "wall_s")}
    if args.json:
        print(json.dumps({"per_task": results, "totals": totals, "ratios": ratios}, indent=1))
    else:
        print(f"totals over {len(tasks)} tasks (per task: divide by {len(tasks)}):")
        for m, t in totals.items():
            print(f"  {m:<17} sent {t['sent']:>7}  evaluated {t['evaluated']:>7}  "
                  f"wall {t['wall_s']:.1f} s (LLM {t['llm_s']:.1f} s, outside {t['wall_s'] - t['llm_s']:.1f} s)")
        for name, r in ratios.items():
            print(f"  {name:<22} sent x{r['sent']}  evaluated x{r['evaluated']}  wall x{r['wall_s']}")
        print("target: ours_incremental/cap <= 1.3 in tokens evaluated")
    return 0


if __name__ == "__main__":
    sys.exit(main())

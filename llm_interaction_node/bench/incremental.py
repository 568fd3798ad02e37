"""Benchmark: the console method's cost with and without model state, against CaP.

The same fixed tabletop tasks (one instruction each, no feedback, temperature 0) with the
embedded model (``llm.local_model``, default Qwen2.5-Coder-1.5B):

* ours naive:        the console agent; the model state is cleared before every call, so
                     every statement re-evaluates the whole prompt (what a stateless API costs);
* ours incremental:  the state is kept within a task (only the new text of each statement is
                     evaluated) and cleared between tasks (issue 6's measure);
* ours persistent:   the default: the state is kept across tasks and turns, the stable prefix
                     (header, API listing, examples in their fixed order) is prefilled and its
                     state kept in RAM, so a task evaluates only what differs from earlier ones;
* CaP:               the whole program at once (+ its sub-programs), state cleared per call;
* CaP incremental:   for reference, CaP with the state kept (its prompt prefix is static);
* ours_k4_* (optional modes): the k = 4 ablation's shorter prompt.

"tokens evaluated" = prompt tokens the model evaluated (prefills included) + tokens it
generated. Wall time is split into time in the LLM and outside it.

    python -m llm_interaction_node.bench.incremental [--tasks 3] [--statements 15] \
        [--modes ours_persistent cap] [--json]

Target (issue 10): ours (persistent, the default) / CaP <= 1.3 in tokens evaluated, k = 16.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from ..core.llm.local import LocalLlamaClient
from ..eval.harness import run_seed
from ..eval.tasks import feasible_world, make_task
from ..settings import Settings

TASKS = [("block_in_bowl", "sa_si"), ("blocks_on_place", "sa_si"), ("block_on_block", "sa_si"),
         ("blocks_in_bowl", "sa_si"), ("matching_bowls", "sa_si")]


def run_mode(mode: str, llm: LocalLlamaClient, tasks, statements: int, memory_dir: Path):
    from ..eval.systems.cap import make as make_cap
    from ..eval.systems.ours import OursSystem
    llm.incremental = not mode.endswith("naive") and mode != "cap"
    llm.states = type(llm.states)(llm.states.max_bytes)        # no saved states from other modes
    llm.llama.reset()
    if mode.startswith("ours"):
        variant = "ours_k4" if mode.startswith("ours_k4") else "ours"
        system = OursSystem(llm, memory_dir / mode, variant,
                            settings=Settings().with_overrides(
                                {"agent.max_statements_per_turn": statements}))
    else:
        system = make_cap("cap", llm, None)
    rows = []
    for task in tasks:
        world = feasible_world(task)
        if not mode.endswith("persistent"):
            llm.llama.reset()                      # every task starts from an empty state
            llm.states = type(llm.states)(llm.states.max_bytes)
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
    parser.add_argument("--modes", nargs="+", default=["ours_naive", "ours_incremental",
                                                        "ours_persistent", "cap",
                                                        "cap_incremental"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    tasks = [make_task(t, s, run_seed(0, s, t, 1)) for t, s in TASKS[: args.tasks]]
    llm = LocalLlamaClient(persist_states=False)
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
    totals = {
        m: {k: sum(r[k] for r in rows) for k in ("sent", "evaluated", "calls", "wall_s", "llm_s")}
        for m, rows in results.items()
    }
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
            print(
                f"  {m:<17} sent {t['sent']:>7}  evaluated {t['evaluated']:>7}  "
                f"wall {t['wall_s']:.1f} s (LLM {t['llm_s']:.1f} s, outside "
                f"{t['wall_s'] - t['llm_s']:.1f} s)"
            )
        for name, r in ratios.items():
            print(
                f"  {name:<22} sent x{r['sent']}  evaluated x{r['evaluated']}  wall x{r['wall_s']}"
            )
        print("target: ours_persistent/cap <= 1.3 in tokens evaluated (k = 16)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

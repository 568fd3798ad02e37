"""llm-interaction eval / eval-report: the paper's benchmark on the PyBullet tabletop.

    llm-interaction eval --system ours --split sa_si ua_si ua_ui --runs 10 --seed 0 \\
        --llm-base-url http://localhost:8000/v1 --llm-model qwen2.5-7b --out results/ours
    llm-interaction eval-report results/ours results/cap results/helper

Table III (learned examples reused on unseen tasks, without learning more; also across
models: the source evaluation may have used another LLM):

    llm-interaction eval --system ours --split ua_si --runs 10 --out results/ours_ua_si
    llm-interaction eval --system ours_frozen --memory-from results/ours_ua_si \
        --split ua_ui --runs 3 --out results/table3_ours
    llm-interaction eval --system ours_no_learning --split ua_ui --runs 3 --out results/table3_base

The paper's comparison with the paper's API and outputs (every system alike):

    llm-interaction eval --system cap --api-preset paper --out results/cap_paper_api

Runs are written as they finish (OUT/runs/...); running the same command again resumes.
The system's memory lives in OUT/memory. Tables (Markdown, CSV), per-round plots (PNG) and a
summary are written to OUT at the end.
"""
from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path

from .core.memory.records import LESSONS
from .eval.systems import SYSTEMS
from .eval.worlds import GRIPPERS, WORLDS, world_factory
from .llm_options import add_llm_options, llm_overrides
from .preset_option import add_api_preset_option, preset_overrides


def cmd_eval(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .core.llm import LLMNotConfigured, make_client
    from .eval.harness import HarnessError, run_protocol
    from .eval.phrasings import load_phrasings
    from .eval.report import write_report
    from .eval.systems import make_system
    from .settings import load_settings
    try:
        settings = load_settings(args.config, overrides={**llm_overrides(args),
                                                         **preset_overrides(args)})
        phrasings = load_phrasings(args.phrasings)
        llm = scripted_llm(args, phrasings) if args.scripted else make_client(settings.llm)
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        system = make_system(args.system, llm, out / "memory", settings)
        if args.memory_from:
            added = import_learned(system, args.memory_from, out)
            print(f"memory: {added} learned example(s) from {args.memory_from}", flush=True)
    except (LLMNotConfigured, ValueError, OSError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"evaluating {system.name} ({settings.robot_api.preset} API, wordings "
          f"{phrasings.label}) with {llm.describe()} -> {out}", flush=True)
    bar = tqdm(total=None, unit="run", dynamic_ncols=True, disable=args.quiet)

    def progress(done, total, record):
        bar.total = total
        bar.update(done - bar.n)
        if record is not None:
            bar.set_postfix_str(f"{record.split} {record.template} r{record.round}: "
                                f"{'ok' if record.success else 'fail'}")
    try:
        run_protocol(system, out, splits=args.split, runs=args.runs, seed=args.seed,
                     templates=args.templates, factory=world_factory(args.world, args.gripper),
                     progress=progress, max_rounds=args.max_rounds, frames=args.frames,
                     user_policy=args.user, phrasings=phrasings)
    except KeyboardInterrupt:
        bar.close()
        print(f"\ninterrupted; run the same command again to resume ({out})", file=sys.stderr)
        return 130
    except ValueError as exc:                 # e.g. resuming OUT with another --user or pool
        bar.close()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except HarnessError as exc:               # a defect of the harness, never a result
        bar.close()
        traceback.print_exception(exc)
        print(f"error: {exc}\nthe evaluation harness failed (not the system): the finished runs "
              f"are kept in {out}; run the same command again to resume after the fix",
              file=sys.stderr)
        return 1
    bar.close()
    memory = getattr(system, "memory", None)
    if memory is not None and hasattr(memory, "export_yaml"):    # what this run learned
        learned = memory.export_yaml(out / "learned.yaml", sources=LEARNED_SOURCES)
        print(f"{learned} learned example(s) in the memory: {out / 'learned.yaml'}")
    files = write_report(out, system.name, args.price_in, args.price_out)
    print((out / "tables.md").read_text())
    print("written: " + ", ".join(str(p) for p in files.values()))
    return 0


LEARNED_SOURCES = LESSONS + ("episode",)


def scripted_llm(args, phrasings):
    """The scripted stand-in (eval/oracle.py) for the runs of this command: it writes each
    task's correct program; ``wrong-first``: the task's plausible wrong one first. It knows
    the instructions as ``phrasings`` words them, and its requests to learn."""
    from .eval.harness import plan, run_seed
    from .eval.oracle import OracleLLM
    from .eval.tasks import make_task
    runs = [(make_task(t, s, run_seed(args.seed, s, t, r)), r)
            for s, r, t in plan(args.split, args.runs, args.templates)]
    said = [phrasings.instruction(task, r) for task, r in runs]
    return OracleLLM([task for task, _ in runs],
                     fail_first=said if args.scripted == "wrong-first" else (), said=said,
                     learn_requests=phrasings.learn)


def import_learned(system, source: str | Path, out: Path) -> int:
    """Table III and transfer between models: add the learned examples of another evaluation
    (its OUT directory, or a ``learned.yaml`` / memory export) to this system's memory, once
    (a resumed evaluation does not add them again). Returns how many were added."""
    memory = getattr(system, "memory", None)
    if memory is None or not hasattr(memory, "import_yaml"):
        raise ValueError(f"--memory-from: {system.name} has no example memory to fill")
    marker = out / "memory_from.txt"
    if marker.exists():
        return 0
    source = Path(source)
    if source.is_dir():
        source = source / "learned.yaml"
    if not source.is_file():
        raise OSError(f"--memory-from: no {source} (run the source evaluation to its end, or "
                      "pass an export: llm-interaction memory export)")
    added = memory.import_yaml(source)
    marker.write_text(f"{source.resolve()}\n{added} example(s) imported\n")
    return added


def cmd_eval_report(args: argparse.Namespace) -> int:
    from .eval.report import compare
    missing = [d for d in args.dirs if not Path(d, "runs").is_dir()]
    if missing:
        print(f"error: no evaluation runs in {', '.join(missing)}", file=sys.stderr)
        return 2
    table = compare(args.dirs, args.price_in, args.price_out, plot=args.plot)
    print(table)
    if args.out:
        Path(args.out).write_text(table)
    return 0


def add_eval_parsers(subparsers) -> None:
    from .eval.report import DEFAULT_PRICE_IN, DEFAULT_PRICE_OUT
    from .eval.simulated_user import USER_POLICIES
    from .eval.tasks import SPLITS, TEMPLATE_IDS
    ev = subparsers.add_parser(
        "eval",
        help="run the paper's benchmark for one system",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("--system", choices=SYSTEMS, default="ours")
    ev.add_argument("--split", nargs="+", choices=SPLITS, default=list(SPLITS))
    ev.add_argument("--runs", type=int, default=10, help="runs per instruction (default 10)")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--templates", nargs="+", choices=TEMPLATE_IDS,
                    help="only these instruction templates (default: all of each split)")
    add_llm_options(ev, aliases={"llm_base_url": ("--llm",), "llm_model": ("--model",)})
    ev.add_argument("--scripted", choices=("right", "wrong-first"),
                    help="the scripted stand-in instead of an LLM (checks the harness and the "
                    "simulated user; never results): the right program, or a wrong one first")
    ev.add_argument("--config", help="agent settings YAML (default config/agent.yaml): the LLM, "
                    "memory.k and the agent's budgets; the system's variant and OUT/memory win")
    add_api_preset_option(ev)
    ev.add_argument("--out", required=True, metavar="DIR")
    ev.add_argument("--memory-from", metavar="DIR|YAML",
                    help="start from the examples another evaluation learned (its OUT dir, or a "
                    "memory export), e.g. Table III: --system ours_frozen --memory-from "
                    "results/ours_ua_si --split ua_ui --runs 3; also to use what one model "
                    "learned with another")
    ev.add_argument("--world", choices=WORLDS, default="bullet",
                    help="PyBullet tabletop (default) or the kinematic 2-D one")
    ev.add_argument("--gripper", choices=GRIPPERS, default="floating")
    ev.add_argument("--max-rounds", type=int, default=6, help="user turns per run at most")
    ev.add_argument("--user", choices=USER_POLICIES, default="paper",
                    help="when the simulated user asks to learn: paper (only when the robot got "
                         "it right without being told the solution, the paper's protocol) or "
                         "teaching (also after the solution; not the paper's protocol)")
    ev.add_argument("--phrasings", metavar="YAML",
                    help="how the simulated user words the instructions, its feedback and its "
                    "requests to learn (a wording pool: config/phrasings/development.yaml; "
                    "format in llm_interaction_node/eval/phrasings.py); default: the built-in "
                    "pool. Run r of a template takes wording (r - 1) mod n, for every system")
    ev.add_argument("--frames", action="store_true", help="save an image strip per run "
                    "(the scene at the start and after every round; PyBullet world)")
    ev.add_argument(
        "--price-in", type=float, default=DEFAULT_PRICE_IN, help="$ per 1M prompt tokens"
    )
    ev.add_argument("--price-out", type=float, default=DEFAULT_PRICE_OUT,
                    help="$ per 1M completion tokens")
    ev.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    ev.set_defaults(func=cmd_eval)
    rep = subparsers.add_parser("eval-report", help="several evaluations side by side")
    rep.add_argument("dirs", nargs="+", metavar="DIR")
    rep.add_argument("--price-in", type=float, default=DEFAULT_PRICE_IN)
    rep.add_argument("--price-out", type=float, default=DEFAULT_PRICE_OUT)
    rep.add_argument("--plot", metavar="PNG", help="also plot i and n per round for all systems")
    rep.add_argument("--out", metavar="FILE", help="also write the table to FILE")
    rep.set_defaults(func=cmd_eval_report)

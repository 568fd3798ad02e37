"""llm-interaction eval / eval-report: the paper's benchmark on the PyBullet tabletop.

    llm-interaction eval --system ours --split sa_si ua_si ua_ui --runs 10 --seed 0 \\
        --llm http://localhost:8000/v1 --model qwen2.5-7b --out results/ours
    llm-interaction eval-report results/ours results/cap results/helper

Runs are written as they finish (OUT/runs/...); running the same command again resumes.
The system's memory lives in OUT/memory. Tables (Markdown, CSV), per-round plots (PNG) and a
summary are written to OUT at the end.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

SYSTEMS = ("ours", "ours_k4", "ours_no_retrieval", "ours_no_improve", "ours_no_learning",
           "cap", "dynamic_cap", "helper")


def make_system(name: str, llm, memory_dir: Path):
    """A system under test by name, with its memory in ``memory_dir``."""
    from .eval.systems.ours import VARIANTS, OursSystem
    if name in VARIANTS:
        return OursSystem(llm, memory_dir, name)
    if name in ("cap", "dynamic_cap"):
        from .eval.systems import cap
        return cap.make(name, llm, memory_dir)
    if name == "helper":
        from .eval.systems import helper
        return helper.make(llm, memory_dir)
    raise ValueError(f"unknown system {name!r}; use one of {', '.join(SYSTEMS)}")


def world_factory(kind: str, gripper: str):
    if kind == "2d":
        return None                                   # tasks.make_world's default
    from .sims.tabletop_bullet import TabletopWorldBullet
    return lambda names, seed: TabletopWorldBullet.from_names(names, seed=seed, gripper=gripper)


def cmd_eval(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .core.llm import LLMConfig, LLMNotConfigured, make_client
    from .eval.harness import run_protocol
    from .eval.report import write_report
    try:
        config = LLMConfig.from_sources({"base_url": args.llm, "model": args.model,
                                         "mode": args.llm_mode})
        llm = make_client(config)
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        system = make_system(args.system, llm, out / "memory")
    except (LLMNotConfigured, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"evaluating {system.name} with {llm.describe()} -> {out}", flush=True)
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
                     progress=progress, max_rounds=args.max_rounds, frames=args.frames)
    except KeyboardInterrupt:
        bar.close()
        print(f"\ninterrupted; run the same command again to resume ({out})", file=sys.stderr)
        return 130
    bar.close()
    files = write_report(out, system.name, args.price_in, args.price_out)
    print((out / "tables.md").read_text())
    print("written: " + ", ".join(str(p) for p in files.values()))
    return 0


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
    from .eval.tasks import SPLITS, TEMPLATE_IDS
    ev = subparsers.add_parser("eval", help="run the paper's benchmark for one system",
                               description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ev.add_argument("--system", choices=SYSTEMS, default="ours")
    ev.add_argument("--split", nargs="+", choices=SPLITS, default=list(SPLITS))
    ev.add_argument("--runs", type=int, default=10, help="runs per instruction (default 10)")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--templates", nargs="+", choices=TEMPLATE_IDS,
                    help="only these instruction templates (default: all of each split)")
    ev.add_argument("--llm", metavar="URL", help="OpenAI-compatible endpoint "
                    "(default: LLM_INTERACTION_BASE_URL / OPENAI_* as for chat)")
    ev.add_argument("--model", help="model name at the endpoint")
    ev.add_argument("--llm-mode", choices=("chat", "completion"))
    ev.add_argument("--out", required=True, metavar="DIR")
    ev.add_argument("--world", choices=("bullet", "2d"), default="bullet",
                    help="PyBullet tabletop (default) or the kinematic 2-D one")
    ev.add_argument("--gripper", choices=("floating", "arm"), default="floating")
    ev.add_argument("--max-rounds", type=int, default=6, help="user turns per run at most")
    ev.add_argument("--frames", action="store_true", help="save an image strip per run "
                    "(the scene at the start and after every round; PyBullet world)")
    ev.add_argument("--price-in", type=float, default=DEFAULT_PRICE_IN, help="$ per 1M prompt tokens")
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

"""Issue 26's targets, read from evaluation run records (``llm-interaction eval --out DIR``).

Per system directory: runs, wall per run (median, mean), the first statement after the
instruction (median, max; and of run 1, when the instruction is new to the memory; since
issue 26 without the start-up prefill, recorded apart as ``startup_s``), tokens
evaluated and their ratio to CaP's (a directory whose system is ``cap``), lessons stored and
the first statement of each run that followed a stored lesson. Then, for ``ours`` and
``ours_no_learning`` side by side, run by run on the same scenes: the runs before ``ours``
stored any lesson should act the same (the same first transcript, the same right-first-time).

    python -m llm_interaction_node.bench.prompt_prefix results/i26/ours \\
        results/i26/ours_no_learning results/i26/cap [--json]

``make bench-prompt-prefix`` runs the 5-run protocol with the embedded model, then this and
``bench.embedded_model learned-restart --api tabletop``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from ..eval.harness import load_records, plan
from ..eval.report import STORED

TARGETS = {"first_statement_s": 10.0, "wall_median_s": 60.0, "evaluated_vs_cap": 1.0}


def _ordered(records):
    """The records in protocol order (instruction-major)."""
    by_key = {(r.split, r.round, r.template): r for r in records}
    if not by_key:
        return []
    keys = plan(sorted({s for s, _, _ in by_key}), max(r for _, r, _ in by_key),
                sorted({t for _, _, t in by_key}))
    return [by_key[key] for key in keys if key in by_key]


def _stored(record) -> int:
    return sum(1 for e in record.learning if e.get("status") in STORED)


def summary(directory: Path) -> dict:
    records = _ordered(load_records(directory))
    walls = [r.wall_s for r in records]
    firsts = [r.first_statement_s for r in records if r.first_statement_s is not None]
    run1 = [r.first_statement_s for r in records if r.round == 1 and r.first_statement_s]
    after_lesson, lessons, reported = [], 0, 0
    for record in records:            # the first run after each new lesson
        if lessons > reported and record.first_statement_s is not None:
            after_lesson.append({"run": f"{record.template}/{record.round}",
                                 "first_statement_s": record.first_statement_s,
                                 "lessons": lessons})
            reported = lessons
        lessons += _stored(record)
    return {"dir": str(directory), "system": records[0].system if records else None,
            "runs": len(records),
            "wall_median_s": round(statistics.median(walls), 1) if walls else None,
            "wall_mean_s": round(statistics.mean(walls), 1) if walls else None,
            "first_statement_median_s": round(statistics.median(firsts), 1) if firsts else None,
            "first_statement_max_s": max(firsts, default=None),
            "first_statement_run1_s": run1,
            "startup_s": [r.startup_s for r in records if r.startup_s],   # the start-up prefills
            "evaluated_tokens": sum(r.usage.get("evaluated_tokens", 0) for r in records),
            "lessons": lessons, "after_lesson": after_lesson,
            "right_first_time": sum(r.first_success == 0 for r in records)}


def same_runs(ours: Path, base: Path) -> dict:
    """Run by run, the runs of ``ours`` before its first stored lesson against ``base``."""
    a = {(r.split, r.template, r.round): r for r in load_records(ours)}
    b = {(r.split, r.template, r.round): r for r in load_records(base)}
    rows, lessons = [], 0
    for record in _ordered(a.values()):
        key = (record.split, record.template, record.round)
        if lessons == 0 and key in b:
            other = b[key]
            rows.append({"run": f"{record.template}/{record.round}",
                         "same_first_transcript": record.transcripts[:1] == other.transcripts[:1],
                         "right_first_time": [record.first_success == 0,
                                              other.first_success == 0]})
        lessons += _stored(record)
    return {"compared": len(rows), "same_first_transcript": sum(r["same_first_transcript"]
                                                                for r in rows),
            "same_right_first_time": sum(len(set(r["right_first_time"])) == 1 for r in rows),
            "runs": rows}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.prompt_prefix",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="+", type=Path, help="eval --out directories")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [summary(d) for d in args.dirs]
    cap = next((r for r in rows if r["system"] == "cap"), None)
    for r in rows:
        r["evaluated_vs_cap"] = round(r["evaluated_tokens"] / cap["evaluated_tokens"], 2) \
            if cap and cap["evaluated_tokens"] else None
    by_system = {r["system"]: Path(r["dir"]) for r in rows}
    pair = same_runs(by_system["ours"], by_system["ours_no_learning"]) \
        if {"ours", "ours_no_learning"} <= set(by_system) else None
    if args.json:
        print(json.dumps({"systems": rows, "ours_vs_ours_no_learning": pair,
                          "targets": TARGETS}, indent=1))
        return 0
    print(f"{'system':<20} {'runs':>4} {'wall med':>8} {'mean':>7} {'1st stmt med':>12} "
          f"{'max':>6} {'evaluated':>10} {'vs CaP':>6} {'lessons':>7} {'right 1st':>9}")
    for r in rows:
        print(f"{r['system']:<20} {r['runs']:>4} {r['wall_median_s']!s:>8} "
              f"{r['wall_mean_s']!s:>7} {r['first_statement_median_s']!s:>12} "
              f"{r['first_statement_max_s']!s:>6} {r['evaluated_tokens']:>10} "
              f"{r['evaluated_vs_cap']!s:>6} {r['lessons']:>7} {r['right_first_time']:>9}")
    for r in rows:
        print(f"{r['system']}: first statement of run 1 (a new instruction) "
              f"{r['first_statement_run1_s']} s; start-up before the instruction "
              f"{r['startup_s'] or 'not recorded'} s; after a lesson: "
              f"{[(x['run'], x['first_statement_s']) for x in r['after_lesson']] or 'none stored'}")
    if pair:
        print(f"ours vs ours_no_learning before any lesson: {pair['compared']} runs compared, "
              f"{pair['same_first_transcript']} with the same first transcript, "
              f"{pair['same_right_first_time']} with the same right-first-time")
    print(f"targets: first statement <= {TARGETS['first_statement_s']} s, median wall per ours "
          f"run <= {TARGETS['wall_median_s']} s, evaluated ours / CaP <= "
          f"{TARGETS['evaluated_vs_cap']}, ours before a lesson = ours_no_learning run by run")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The learning protocol's headline figures from eval records (what docs/evaluation.md reports).

For each eval output directory (``llm-interaction eval ... --out DIR``): s, i, **i on runs
2..5** (right first time after the first run of each template: where a lesson of run 1 can
help), runs with a learn call, lessons stored (and who wrote them, from ``learned.yaml``:
``author`` model / attempt / reading / ...), first statement and wall time per run; then per
template one letter per run (F right first time, s right after feedback, x not right, L a
lesson stored in that run).

    python scripts/learning_summary.py docs/eval/reading/learning_dev_seed42/ours \\
        docs/eval/reading/learning_dev_seed42/ours_no_learning
"""
from __future__ import annotations

import collections
import glob
import json
import os
import statistics
import sys

import yaml

STORED = ("stored", "learned")


def stored_in(run: dict) -> bool:
    return any(str(step.get("status", "")).startswith(STORED) for step in run.get("learning", []))


def summary(directory: str) -> str:
    runs = [json.load(open(f, encoding="utf-8"))
            for f in glob.glob(os.path.join(directory, "runs", "**", "*.json"), recursive=True)]
    if not runs:
        return f"{directory}: no runs"
    late = [r for r in runs if r["round"] >= 2]
    right_late = sum(r["first_success"] == 0 for r in late)
    first = [r["first_statement_s"] for r in runs if r.get("first_statement_s") is not None]
    wall = [r["wall_s"] for r in runs]
    authors = collections.Counter()
    learned = os.path.join(directory, "learned.yaml")
    if os.path.exists(learned):
        data = yaml.safe_load(open(learned, encoding="utf-8")) or {}
        authors.update(e.get("author") or e.get("source") for e in data.get("examples", []))
    lines = [
        f"{directory}: {len(runs)} runs, s {100 * sum(r['success'] for r in runs) / len(runs):.1f}"
        f", i {100 * sum(r['first_success'] == 0 for r in runs) / len(runs):.1f}"
        f", i on runs 2..5 {100 * right_late / max(len(late), 1):.1f} ({right_late}/{len(late)})"
        f", runs with a learn call {sum(bool(r.get('learning')) for r in runs)}"
        f", lessons stored {sum(stored_in(r) for r in runs)}"
        f" (authors: {dict(authors) or '-'})"
        f", first statement s median {statistics.median(first):.1f} max {max(first):.1f}"
        f", wall s / run median {statistics.median(wall):.0f} mean {statistics.mean(wall):.0f}"]
    by_template: dict[str, dict[int, dict]] = collections.defaultdict(dict)
    for r in runs:
        by_template[r["template"]][r["round"]] = r
    for template in sorted(by_template):
        letters = []
        for n in sorted(by_template[template]):
            r = by_template[template][n]
            letter = "F" if r["first_success"] == 0 else ("s" if r["success"] else "x")
            letters.append(letter + ("L" if stored_in(r) else ""))
        lines.append(f"  {template}: {' '.join(letters)}")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("\n".join(summary(d) for d in sys.argv[1:]))

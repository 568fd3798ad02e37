"""Benchmark: how well the model reads what people say (the reading of :mod:`..core.reading`).

Every wording of a pool (``--phrasings``, default the development pool
``config/phrasings/development.yaml``) becomes items (:mod:`.reading_items`: an utterance in a
sampled scene and the reading it means); the reader reads each with the embedded model (or an
endpoint: the ``--llm-*`` options) and the bench counts:

* ``exact``: the reading is the gold, clause for clause (order aside; ``done`` beside
  ``learn`` aside);
* per field: ``kinds`` (the clause kinds), ``objects`` and ``where`` (of the clauses that
  carry them, matched by kind);
* per category (request, feedback:<kind>, learn, closing, household:<part>:<kind>);
* the cost of one reading (issue 60): the model calls (the reading and each check's yes or
  no question, :mod:`..core.reading.reader`), the prompt tokens (all; of them the ones the model
  evaluated, the rest restored from a saved state), the tokens generated and the wall seconds:
  median, mean, 90th percentile and max of each, and how many readings took 1, 2, ... calls.

    python -m llm_interaction_node.bench.reading [--phrasings FILE] [--seed-base 0]
        [--parts request feedback reply household] [--examples YAML] [--out DIR] [--limit N]

Records: ``OUT/items.jsonl`` (one line per item: utterance, gold, reading, wall), and
``OUT/summary.json``; an item already in ``items.jsonl`` is not read again (resumable).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from ..core.reading import Reader
from ..core.reading.parse import ReadingError
from ..eval.phrasings import load_phrasings
from ..llm_options import add_llm_options, llm_overrides
from .reading_items import Item, items, normal

DEFAULT_POOL = "config/phrasings/development.yaml"
PARTS = ("request", "feedback", "reply", "household")


def _render(clauses, item: Item) -> list[str]:
    return [c.render(item.vocabulary.spoken) for c in clauses]


def field_scores(gold, read) -> dict[str, bool | None]:
    """Per field: kinds equal; objects / where of the gold's move clauses equal in the read
    clause of the same kind (None: the gold has no such field)."""
    gold, read = normal(gold), normal(read)
    out: dict[str, bool | None] = {"kinds": sorted(c.kind for c in gold) ==
                                   sorted(c.kind for c in read)}
    for name in ("objects", "where"):
        pairs = [(g, next((r for r in read if r.kind == g.kind), None)) for g in gold
                 if g.kind in ("do", "retry", "also")]
        out[name] = None if not pairs else all(
            r is not None and getattr(g, name) == getattr(r, name) for g, r in pairs)
    return out


def run(args) -> dict:
    pool = load_phrasings(args.phrasings)
    todo = items(pool, args.seed_base, parts=args.parts)
    if args.limit:
        todo = todo[:args.limit]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "items.jsonl"
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            record = json.loads(line)
            done[(record["category"], record["utterance"])] = record
    reader = None
    with path.open("a") as records:
        for n, item in enumerate(todo, 1):
            if (item.category, item.utterance) in done:
                continue
            if reader is None:
                reader = Reader(_llm(args), examples=args.examples)
                started = time.perf_counter()
                reader.prefill(persist=True)
                print(f"reading prompt prefilled in {time.perf_counter() - started:.1f} s",
                      file=sys.stderr)
            start = time.perf_counter()
            reading = reader.read(item.utterance, item.vocabulary, reply=item.reply,
                                  moved=item.moved if item.reply else None)
            wall = time.perf_counter() - start
            cost = reader.costs[-1] if reader.costs else None
            read = reading.clauses if reading is not None else ()
            record = {
                "category": item.category, "template": item.template, "source": item.source,
                "utterance": item.utterance, "scene": item.vocabulary.scene_line(),
                "moved": list(item.moved) if item.reply else None,
                "gold": _render(item.expected, item), "reading": _render(read, item),
                "failure": reader.last_failure if reading is None else None,
                "exact": reading is not None and normal(item.expected) == normal(read),
                "fields": field_scores(item.expected, read),
                "wall_s": round(wall, 3),
                "evaluated_tokens": cost.evaluated_tokens if cost else 0,
                "generated_tokens": cost.generated_tokens if cost else 0,
                "prompt_tokens": cost.prompt_tokens if cost else 0,
                "calls": cost.calls if cost else 0,
            }
            records.write(json.dumps(record) + "\n")
            records.flush()
            done[(item.category, item.utterance)] = record
            print(f"{n}/{len(todo)} {'ok ' if record['exact'] else 'BAD'} {wall:5.2f}s "
                  f"{record['calls']} call(s) "
                  f"{item.category:28} {item.utterance[:60]!r} -> "
                  f"{'; '.join(record['reading']) or record['failure']}", file=sys.stderr,
                  flush=True)
    wanted = {(i.category, i.utterance) for i in todo}
    result = summary([r for k, r in done.items() if k in wanted], pool.label, args)
    (out / "summary.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def summary(records: list[dict], pool: str, args) -> dict:
    by: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by[r["category"]].append(r)
        by["all"].append(r)
        group = r["category"].split(":")[0]
        if group != r["category"]:
            by[group].append(r)

    def rate(rs, key=None, field=None):
        if field is not None:
            vals = [r["fields"][field] for r in rs if r["fields"][field] is not None]
        else:
            vals = [r[key] for r in rs]
        return (sum(bool(v) for v in vals), len(vals))

    rows = {}
    for name, rs in sorted(by.items()):
        rows[name] = {"n": len(rs), "exact": rate(rs, "exact"),
                      **{f: rate(rs, field=f) for f in ("kinds", "objects", "where")}}
    walls = sorted(r["wall_s"] for r in records)
    return {"benchmark": "reading", "pool": pool, "seed_base": args.seed_base,
            "items": len(records), "rows": rows,
            "wall_s": {"median": statistics.median(walls) if walls else None,
                       "p90": walls[int(0.9 * (len(walls) - 1))] if walls else None,
                       "max": walls[-1] if walls else None},
            "evaluated_tokens_median": statistics.median(
                [r["evaluated_tokens"] for r in records]) if records else None,
            "cost": reading_cost(records)}


COST_FIELDS = ("calls", "prompt_tokens", "evaluated_tokens", "generated_tokens", "wall_s")


def reading_cost(records: list[dict]) -> dict:
    """The cost of one reading over ``records``: per field of :data:`COST_FIELDS` median,
    mean, p90, max; ``by_calls``: how many readings took 1, 2, ... model calls (records of
    before issue 60 have no calls nor prompt tokens: those fields are left out)."""
    out: dict = {}
    for name in COST_FIELDS:
        values = sorted(r[name] for r in records if name in r)
        if values:
            out[name] = {"median": statistics.median(values),
                         "mean": round(statistics.fmean(values), 3),
                         "p90": values[int(0.9 * (len(values) - 1))], "max": values[-1]}
    calls = [r["calls"] for r in records if "calls" in r]
    out["by_calls"] = {str(n): calls.count(n) for n in sorted(set(calls))}
    return out


def cost_line(cost: dict) -> str:
    """One line of :func:`reading_cost` for a person."""
    def part(name, label, unit=""):
        if name not in cost:
            return None
        c = cost[name]
        return f"{label} {c['median']:g}{unit} median, {c['mean']:g} mean, {c['p90']:g} p90, " \
               f"{c['max']:g} max"
    parts = [p for p in (part("calls", "model calls"), part("prompt_tokens", "prompt tokens"),
                         part("evaluated_tokens", "evaluated"),
                         part("generated_tokens", "generated"), part("wall_s", "s"))
             if p is not None]
    by = ", ".join(f"{n} call(s): {k}" for n, k in cost.get("by_calls", {}).items())
    return "cost of one reading: " + "; ".join(parts) + (f" (readings with {by})" if by else "")


def print_table(result: dict) -> None:
    print(f"pool {result['pool']}, {result['items']} utterances; wall per reading: median "
          f"{result['wall_s']['median']:.2f} s, p90 {result['wall_s']['p90']:.2f} s, max "
          f"{result['wall_s']['max']:.2f} s; tokens evaluated (median) "
          f"{result['evaluated_tokens_median']}")
    print(cost_line(result["cost"]))
    print(f"{'category':34} {'n':>4} {'exact':>12} {'kinds':>12} {'objects':>12} {'where':>12}")

    def cell(pair):
        k, n = pair
        return f"{k}/{n} {100 * k / n:5.1f}%" if n else "-"
    for name, row in result["rows"].items():
        print(f"{name:34} {row['n']:>4} {cell(row['exact']):>12} {cell(row['kinds']):>12} "
              f"{cell(row['objects']):>12} {cell(row['where']):>12}")


def _llm(args):
    from ..core.llm import make_client
    from ..settings import load_settings
    settings = load_settings(None, overrides=llm_overrides(args))
    return make_client(settings.llm)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.reading",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--phrasings", default=DEFAULT_POOL,
                        help=f"the wording pool (default {DEFAULT_POOL})")
    parser.add_argument("--seed-base", type=int, default=0, help="other scenes and facts")
    parser.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS)
    parser.add_argument("--limit", type=int, default=0, help="only the first N items")
    parser.add_argument("--examples", metavar="YAML", help="another reading prompt (default "
                        "config/reading/examples.yaml)")
    parser.add_argument("--out", default="docs/eval/reading/development")
    add_llm_options(parser)
    args = parser.parse_args(argv)
    try:
        result = run(args)
    except (ValueError, OSError, ReadingError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["run", "summary", "field_scores", "reading_cost", "cost_line"]

"""Metrics, tables and plots of an evaluation (the seed's Tables IV/V and Figures 6/7).

Per instruction: ``s`` share of runs that ended in success, ``i`` share of runs successful
before any feedback, ``n`` mean index of the first successful interaction over the runs
whose final result is success (0 = no feedback needed). Totals average over instructions
(``n`` over those with a success). Cost prices the tokens (USD per million tokens).
Everything is computed from the run records, so the tables can be recomputed from the logs.
"""
from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .harness import RunRecord, load_records
from .systems.variants import VARIANTS
from .tasks import SPLITS

DEFAULT_PRICE_IN = 0.5      # USD per 1M prompt tokens (gpt-3.5-turbo-0125 list price)
DEFAULT_PRICE_OUT = 1.5     # USD per 1M completion tokens


@dataclass
class Row:
    template: str
    runs: int
    s: float
    i: float
    n: float | None            # None: no run succeeded
    prompt_tokens: int
    completion_tokens: int
    evaluated_tokens: int = 0      # prompt tokens the model evaluated (incremental decoding)
    cached_tokens: int = 0
    llm_s: float = 0.0             # wall time in the LLM ...
    outside_s: float = 0.0         # ... and outside it (worlds, console, memory)


def _usage_sums(runs) -> dict:
    return {"evaluated_tokens": sum(r.usage.get("evaluated_tokens", 0) for r in runs),
            "cached_tokens": sum(r.usage.get("cached_tokens", 0) for r in runs),
            "llm_s": round(sum(r.usage.get("llm_wall_s", 0.0) for r in runs), 3),
            "outside_s": round(sum(r.usage.get("outside_llm_s", 0.0) for r in runs), 3)}


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if len(values) else None


def _row(template: str, runs: list[RunRecord], s: float, i: float, n: float | None) -> Row:
    """A row with the token and time sums of ``runs``."""
    return Row(template, len(runs), s=s, i=i, n=n,
               prompt_tokens=sum(r.usage.get("prompt_tokens", 0) for r in runs),
               completion_tokens=sum(r.usage.get("completion_tokens", 0) for r in runs),
               **_usage_sums(runs))


def _firsts(runs: list[RunRecord]) -> list[int]:
    """First-success indices of the runs whose FINAL result is success (as the paper's
    calc_metrics: a run that succeeded once and then broke it again does not count)."""
    return [r.first_success for r in runs if r.success and r.first_success is not None]


def instruction_row(template: str, runs: list[RunRecord]) -> Row:
    firsts = _firsts(runs)
    return _row(template, runs, s=sum(r.success for r in runs) / len(runs),
                i=sum(r.first_success == 0 for r in runs) / len(runs), n=_mean(firsts))


def split_rows(records: Iterable[RunRecord], split: str) -> tuple[list[Row], Row]:
    """Rows per instruction of one split, and the total row (averages over instructions)."""
    by_template: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        if r.split == split:
            by_template[r.template].append(r)
    rows = [instruction_row(t, rs) for t, rs in by_template.items()]
    ns = [r.n for r in rows if r.n is not None]
    total = _row("total", [r for rs in by_template.values() for r in rs],
                 s=_mean([r.s for r in rows]) or 0.0, i=_mean([r.i for r in rows]) or 0.0,
                 n=_mean(ns))
    return rows, total


def cost(prompt_tokens: int, completion_tokens: int, price_in: float, price_out: float) -> float:
    return (prompt_tokens * price_in + completion_tokens * price_out) / 1e6


def _fmt(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.1f}" if percent else f"{value:.2f}"


def tables_markdown(system: str, records: list[RunRecord], price_in: float = DEFAULT_PRICE_IN,
                    price_out: float = DEFAULT_PRICE_OUT) -> str:
    out = [f"# Evaluation of `{system}`", "",
           "s = % of runs that ended in success, i = % successful before any feedback, "
           "n = mean index of the first successful interaction (0 = first try).", ""]
    for split in SPLITS:
        rows, total = split_rows(records, split)
        if not rows:
            continue
        out += [f"## {split.upper()}", "", "| instruction | runs | s | i | n | tokens | cost $ |",
                "|---|---|---|---|---|---|---|"]
        for r in rows + [total]:
            name = f"**{r.template}**" if r.template == "total" else r.template
            out.append(f"| {name} | {r.runs} | {_fmt(r.s, True)} | {_fmt(r.i, True)} | {_fmt(r.n)} "
                       f"| {r.prompt_tokens + r.completion_tokens} "
                       f"| {cost(r.prompt_tokens, r.completion_tokens, price_in, price_out):.4f} |")
        out.append("")
    out += rounds_markdown(records)
    out += loop_breaks_markdown(records)
    out.append(f"Prices: {price_in} $ / 1M prompt tokens, {price_out} $ / 1M completion tokens.")
    return "\n".join(out) + "\n"


def rounds_markdown(records: list[RunRecord]) -> list[str]:
    """i and n per round (the x-th run of every instruction; Figures 6/7), with how many
    learned examples were stored in that round, per split."""
    data = per_round(records)
    if not data:
        return []
    out = [
        "## Per round (Figures 6/7)",
        "",
        "| split | round | runs | i | n | learned examples stored |",
        "|---|---|---|---|---|---|",
    ]
    for split, rounds in data.items():
        for x, (i, n) in sorted(rounds.items()):
            rs = [r for r in records if r.split == split and r.round == x]
            stored = _stored(rs)
            out.append(f"| {split.upper()} | {x} | {len(rs)} | {_fmt(i, True)} | {_fmt(n)} "
                       f"| {stored} |")
    return out + [""]


OUTCOMES = ("right first time", "right after feedback", "right after the solution",
            "error: statement cap", "loop reset, not right", "error: other", "not right in time")
# run records written before the agent's turn statuses were kept: classified from the error
# text as the harness wrote it then (the published runs of docs/eval/embedded)
_LEGACY_CAP, _LEGACY_RESET = "statements in one turn", "reset"


def run_outcome(record: RunRecord) -> str:
    """How a run ended, in the terms of the learning loop: only "right after feedback" (no
    solution given) makes the simulated user ask to learn (seed, section B).

    A failed run is classified from the agent's typed turn statuses of its last round
    (``RunRecord.turn_statuses``): the statement cap, another error (a budget, the LLM), else
    whether a loop reset came in any round (it hands back normally, the user carries on);
    systems without turn statuses (the baselines) that errored are "error: other". Records
    written before the statuses were kept are classified from their error text (legacy)."""
    if record.success:
        if record.first_success == 0:
            return OUTCOMES[0]
        told = any(kind == "solution" for kind, _ in record.utterances[:record.first_success + 1])
        return OUTCOMES[2] if told else OUTCOMES[1]
    statuses = record.turn_statuses[-1] if record.turn_statuses else None
    if statuses:
        if "statement_cap" in statuses:
            return OUTCOMES[3]
        if "error" in statuses:
            return OUTCOMES[5]
        if any("loop_reset" in round_ for round_ in record.turn_statuses):
            return OUTCOMES[4]
        return OUTCOMES[6]
    if record.errors:
        if record.turn_statuses:               # typed, but no status: a baseline's error
            return OUTCOMES[5]
        last = record.errors[-1]
        if _LEGACY_CAP in last:
            return OUTCOMES[3]
        return OUTCOMES[4] if last.startswith(_LEGACY_RESET) else OUTCOMES[5]
    return OUTCOMES[6]


def outcomes_markdown(systems: dict[str, list[RunRecord]]) -> list[str]:
    """Per system: how many runs ended which way, how often the user asked to learn, what
    the learn calls did."""
    header = ["system"] + list(OUTCOMES) + ["asked to learn", "learn calls: status"]
    out = ["How the runs ended (`eval.report.run_outcome`)", "",
           "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, records in systems.items():
        counts = Counter(run_outcome(r) for r in records)
        asked = sum(1 for r in records for kind, _ in r.utterances if kind == "learn")
        calls = Counter(str(e.get("status")) for r in records for e in r.learning)
        out.append(
            "| "
            + " | ".join(
                [name]
                + [str(counts.get(o, 0)) for o in OUTCOMES]
                + [str(asked), ", ".join(f"{k} {v}" for k, v in sorted(calls.items())) or "-"]
            )
            + " |"
        )
    return out + [""]


STORED = ("learned", "stored_final", "stored_corrected", "stored_raw")
# where the learning loop broke, per run (issue 17): the first stage that did not happen
LOOP_VERDICTS = ("right first time, nothing learned before", "used: retrieved, right first time",
                 "retrieved but ignored", "not retrieved", "never asked", "refused",
                 "bad rewrite (replay failed)", "bad rewrite (wrong shape)", "stored")


def loop_breaks(records: Iterable[RunRecord]) -> list[dict]:
    """Per run of a learning system, in protocol order per instruction: what it learned and
    whether the lessons of the earlier runs of that instruction reached it. ``verdict`` is
    the first stage of the loop that did not happen (or "stored" / "used" when all did):

    * a run after a stored lesson of its instruction: the lesson was not in its prompts
      ("not retrieved"), was in them and the run needed feedback anyway ("retrieved but
      ignored"), or was in them and the run was right first time ("used");
    * otherwise (nothing to reuse, or reused and still wrong): right first time; never solved
      after feedback, so the user never asked ("never asked"); asked, and the learner refused
      ("refused") or the rewrite did not replay or did not do the request the new way in its
      first turn ("bad rewrite"); or "stored"."""
    by_template: dict[tuple[str, str], list[RunRecord]] = {}
    for r in records:
        by_template.setdefault((r.split, r.template), []).append(r)
    rows = []
    for (split, template), runs in by_template.items():
        lessons: list[str] = []                  # ids stored by the earlier runs
        for r in sorted(runs, key=lambda x: x.round):
            stored = [e["example_id"] for e in r.learning
                      if e.get("status") in STORED and e.get("example_id")]
            statuses = [str(e.get("status")) for e in r.learning]
            reached = [i for i in lessons if i in r.retrieved]
            first_time = r.success and r.first_success == 0
            if lessons and not reached:
                verdict = "not retrieved"
            elif reached and first_time:
                verdict = "used: retrieved, right first time"
            elif reached:
                verdict = "retrieved but ignored"
            elif first_time:
                verdict = LOOP_VERDICTS[0]
            else:
                verdict = None
            if verdict in (None, "retrieved but ignored", "not retrieved") and not first_time:
                asked = any(kind == "learn" for kind, _ in r.utterances)
                learn_verdict = ("stored" if stored else
                                 "never asked" if not asked else
                                 "bad rewrite (replay failed)" if "replay_failed" in statuses
                                 else "bad rewrite (wrong shape)" if "wrong_shape" in statuses
                                 else "refused")
                verdict = learn_verdict if verdict is None else f"{verdict}; {learn_verdict}"
            rows.append({"split": split, "template": template, "round": r.round,
                         "outcome": run_outcome(r), "interactions": r.interactions,
                         "lessons_before": len(lessons), "lessons_retrieved": len(reached),
                         "learn_calls": ", ".join(statuses) or "-", "stored": stored,
                         "verdict": verdict})
            lessons += stored
    return rows


def loop_breaks_markdown(records: list[RunRecord]) -> list[str]:
    """:func:`loop_breaks` as a table plus the count of each verdict."""
    rows = loop_breaks(records)
    if not records or not _learns(records[0].system):
        return []
    out = ["## Where the learning loop breaks (`eval.report.loop_breaks`)", "",
           "| instruction | run | outcome | rounds | lessons before / retrieved | learn calls "
           "| verdict |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        out.append(f"| {row['template']} | {row['round']} | {row['outcome']} | "
                   f"{row['interactions']} | {row['lessons_before']} / {row['lessons_retrieved']} "
                   f"| {row['learn_calls']} | {row['verdict']} |")
    counts = Counter(part for row in rows for part in row["verdict"].split("; "))
    out += ["", "| verdict | runs |", "|---|---|"]
    out += [f"| {v} | {counts[v]} |" for v in LOOP_VERDICTS if counts.get(v)]
    return out + [""]


def _learns(system: str) -> bool:
    """A system that stores what it is taught (ours and its learning ablations)."""
    variant = VARIANTS.get(system)
    return variant is not None and variant.mode != "off"


def _stored(records: Iterable[RunRecord]) -> int:
    """Learned examples the runs stored (improved or, when the rewrite failed, raw)."""
    return sum(1 for r in records for entry in r.learning if entry.get("status") in STORED)


def tables_csv(system: str, records: list[RunRecord], price_in: float = DEFAULT_PRICE_IN,
               price_out: float = DEFAULT_PRICE_OUT) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["system", "split", "instruction", "runs", "s", "i", "n", "prompt_tokens",
                     "completion_tokens", "cost_usd", "evaluated_tokens", "cached_tokens",
                     "llm_s", "outside_llm_s"])
    for split in SPLITS:
        rows, total = split_rows(records, split)
        for r in (rows + [total]) if rows else []:
            writer.writerow(
                [
                    system,
                    split,
                    r.template,
                    r.runs,
                    round(r.s, 4),
                    round(r.i, 4),
                    "" if r.n is None else round(r.n, 4),
                    r.prompt_tokens,
                    r.completion_tokens,
                    round(cost(r.prompt_tokens, r.completion_tokens, price_in, price_out), 6),
                    r.evaluated_tokens,
                    r.cached_tokens,
                    r.llm_s,
                    r.outside_s,
                ]
            )
    return buf.getvalue()


def per_round(records: list[RunRecord]) -> dict[str, dict[int, tuple[float, float | None]]]:
    """split -> round -> (i, n) over the instructions of that split."""
    out: dict[str, dict[int, tuple[float, float | None]]] = defaultdict(dict)
    for split in SPLITS:
        rounds = sorted({r.round for r in records if r.split == split})
        for x in rounds:
            rs = [r for r in records if r.split == split and r.round == x]
            firsts = _firsts(rs)
            out[split][x] = (sum(r.first_success == 0 for r in rs) / len(rs), _mean(firsts))
    return out


def plot_rounds(systems: dict[str, list[RunRecord]], path: str | Path) -> Path:
    """i and n per round (x-th run of each instruction), mean +- std over splits (Figs. 6/7)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for name, records in systems.items():
        data = per_round(records)
        rounds = sorted({x for split in data.values() for x in split})
        for ax, k in zip(axes, (0, 1), strict=False):
            mean, std = [], []
            for x in rounds:
                values = [data[s][x][k] for s in data if x in data[s] and data[s][x][k] is not None]
                mean.append(np.mean(values) if values else math.nan)
                std.append(np.std(values) if values else math.nan)
            mean, std = np.array(mean, dtype=float), np.array(std, dtype=float)
            ax.plot(rounds, mean, marker="o", label=name)
            ax.fill_between(rounds, mean - std, mean + std, alpha=0.2)
    axes[0].set(title="i: success before any feedback", xlabel="round", ylabel="share of runs",
                ylim=(-0.05, 1.05))
    axes[1].set(title="n: first successful interaction", xlabel="round", ylabel="index")
    from matplotlib.ticker import MaxNLocator
    for ax in axes:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].legend(fontsize="small")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_report(out: str | Path, system: str, price_in: float = DEFAULT_PRICE_IN,
                 price_out: float = DEFAULT_PRICE_OUT) -> dict[str, Path]:
    """tables.md, tables.csv, rounds.png and summary.json from the run records in ``out``."""
    out = Path(out)
    records = load_records(out)
    files = {"tables.md": out / "tables.md", "tables.csv": out / "tables.csv",
             "rounds.png": out / "rounds.png", "summary.json": out / "summary.json"}
    files["tables.md"].write_text(tables_markdown(system, records, price_in, price_out))
    files["tables.csv"].write_text(tables_csv(system, records, price_in, price_out))
    plot_rounds({system: records}, files["rounds.png"])
    files["summary.json"].write_text(
        json.dumps(summary(system, records, price_in, price_out), indent=1)
    )
    return files


def summary(system: str, records: list[RunRecord], price_in: float = DEFAULT_PRICE_IN,
            price_out: float = DEFAULT_PRICE_OUT) -> dict:
    result = {"system": system, "runs": len(records), "splits": {}}
    for split in SPLITS:
        rows, total = split_rows(records, split)
        if rows:
            result["splits"][split] = {
                "s": total.s, "i": total.i, "n": total.n,
                "prompt_tokens": total.prompt_tokens, "completion_tokens": total.completion_tokens,
                "evaluated_tokens": total.evaluated_tokens, "cached_tokens": total.cached_tokens,
                "llm_s": total.llm_s, "outside_llm_s": total.outside_s,
                "cost_usd": cost(total.prompt_tokens, total.completion_tokens, price_in, price_out)}
    return result


def compare(dirs: Sequence[str | Path], price_in: float = DEFAULT_PRICE_IN,
            price_out: float = DEFAULT_PRICE_OUT, plot: str | Path | None = None) -> str:
    """Several evaluation directories side by side (``llm-interaction eval-report``)."""
    systems: dict[str, list[RunRecord]] = {}
    for d in dirs:
        records = load_records(d)
        name = records[0].system if records else Path(d).name
        users = sorted({r.user for r in records} - {"paper"})     # not the paper's protocol
        name += f", {'/'.join(users)} user" if users else ""
        systems[name if name not in systems else f"{name} ({Path(d).name})"] = records
    header = ["system"] + [f"{sp.upper()} {m}" for sp in SPLITS for m in ("s", "i", "n")] + \
        ["runs", "tokens", "cost $", "tokens evaluated", "wall s / run", "learned"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, records in systems.items():
        cells = [name]
        for split in SPLITS:
            rows, total = split_rows(records, split)
            cells += ([_fmt(total.s, True), _fmt(total.i, True), _fmt(total.n)] if rows
                      else ["-", "-", "-"])
        p = sum(r.usage.get("prompt_tokens", 0) for r in records)
        c = sum(r.usage.get("completion_tokens", 0) for r in records)
        evaluated = sum(r.usage.get("evaluated_tokens", 0) for r in records)
        wall = _mean([r.wall_s for r in records])
        cells += [str(len(records)), str(p + c), f"{cost(p, c, price_in, price_out):.4f}",
                  # a model that keeps its state (the embedded one) evaluates fewer than it gets
                  str(evaluated) if evaluated else "-",
                  "-" if wall is None else f"{wall:.0f}", str(_stored(records))]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [""] + outcomes_markdown(systems)
    lines += _rounds_side_by_side(systems)
    if plot:
        plot_rounds(systems, plot)
    return "\n".join(lines) + "\n"


def _rounds_side_by_side(systems: dict[str, list[RunRecord]]) -> list[str]:
    """Per split: i and n of every system per round (the x-th run of each instruction)."""
    data = {name: per_round(records) for name, records in systems.items()}
    out = []
    for split in SPLITS:
        rounds = sorted({x for d in data.values() for x in d.get(split, {})})
        if not rounds:
            continue
        names = [n for n in systems if split in data[n]]
        out += ["", f"{split.upper()} per round: i (n)", "",
                "| round | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for x in rounds:
            cells = []
            for name in names:
                i, n = data[name][split].get(x, (None, None))
                cells.append("-" if i is None else f"{_fmt(i, True)} ({_fmt(n)})")
            out.append(f"| {x} | " + " | ".join(cells) + " |")
    return out

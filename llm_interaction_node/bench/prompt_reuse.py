"""Benchmark: how much of each console prompt a model that keeps its states must evaluate,
per prompt layout of the examples. No LLM runs: the embedded model's tokenizer alone
(llama.cpp, vocab only) counts the tokens.

Layouts (``memory.order``): ``seed_block`` (the default since issue 26: every seed in one
fixed order, then the top-k learned examples, most similar last), ``similarity`` (the paper's:
top k of all, most similar last), ``stable`` (those k in a fixed order, seeds by centrality),
``stable_nearest`` (the fixed order, then the most similar again; the default before issue
26), and ``file`` (the fixed order with seeds by file name: the order before centrality).

**First prompts** (default): the benchmark's instructions one after the other, as an
evaluation or a user sends them; a prompt costs its tokens minus the longest prefix it shares
with an earlier prompt (a saved state covers that prefix). The start-up prefill (what the
agent evaluates before the user speaks, ``ExampleMemory.prompt_examples([])``) is a saved
state too; the last columns count it: its tokens, the prompts' cost when it is saved before
them, and what the first prompt evaluates after it and after the header and API listing alone.

**A protocol's requests** (``--protocol DIR...``): every request (the instruction and each
later user utterance) of the run records in DIR (``llm-interaction eval --out DIR``), in
protocol order, with the interaction as those runs had it and the lessons they stored added
to the memory after their run. Before the first statement after a request the model holds the
start-up prefill, the prefix state of every example set prefilled before (RAM; unlimited
here) and its live state (the previous call of the run); the request costs the tokens after
the longest prefix one of them shares with it (a new example set's prefill included).

    python -m llm_interaction_node.bench.prompt_reuse [--templates ...] [--rounds 2] [-k 16]
    python -m llm_interaction_node.bench.prompt_reuse --protocol docs/eval/learning_5runs/ours
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from ..core.apis.sets import TABLETOP
from ..core.console.prompt import PromptBuilder
from ..core.llm.models import get as get_model
from ..core.llm.states import common_prefix
from ..core.memory.config import MemoryConfig
from ..core.memory.order import Order, stable_order
from ..core.memory.store import ExampleMemory
from ..core.settings.config_files import config_path
from ..core.user.channel import EventQueue
from ..eval.harness import load_records, plan, run_seed
from ..eval.report import STORED
from ..eval.tasks import make_task, tasks_for_split
from ..session import build_console, make_world

ORDERS = ("similarity", "file", "stable", "stable_nearest", "seed_block")
PROTOCOL_ORDERS = ("stable_nearest", "similarity", "seed_block")


class Counter:
    """Tokens of prompts and what a stateful model evaluates of each."""

    def __init__(self, tokenizer, prompt: PromptBuilder):
        self.tokenizer, self.prompt = tokenizer, prompt

    def tokens(self, text: str) -> list[int]:
        return self.tokenizer.tokenize(text.encode("utf-8"), add_bos=True, special=True)

    def prefix(self, examples) -> list[int]:
        return self.tokens(self.prompt.stable_prefix([e.transcript for e in examples]))

    def build(self, examples, interaction: str) -> list[int]:
        return self.tokens(self.prompt.build([e.transcript for e in examples], interaction))


def _memory(directory: str, k: int, order: str) -> ExampleMemory:
    memory = ExampleMemory("tabletop", MemoryConfig(path=directory, k=k,
                                                    order=Order.STABLE if order == "file"
                                                    else Order(order)))
    memory.seed_from(config_path("transcripts", "tabletop"))
    return memory


def _examples(memory: ExampleMemory, order: str, utterances) -> list:
    if order == "file":                        # the fixed order before centrality
        return stable_order([e for e, _ in memory.retrieve(utterances)])
    return memory.prompt_examples(utterances)


def _head(memory: ExampleMemory, order: str) -> list:
    if order == "file":
        return stable_order(memory.list())[:memory.config.k]
    return memory.prompt_examples([])


def first_prompts(counter: Counter, args) -> int:
    templates = args.templates or [t.id for t in tasks_for_split(args.split)]
    tasks = [make_task(t, args.split, run_seed(0, args.split, t, r))
             for r in range(1, args.rounds + 1) for t in templates]
    bare = counter.tokens(counter.prompt.stable_prefix([]))
    print(f"{len(tasks)} first prompts ({args.split}, {args.rounds} scene(s) per template), "
          f"k = {args.k}")
    print(f"{'order':<15} {'tokens sent':>12} {'to evaluate':>12} {'share':>6} "
          f"{'start-up':>9} {'with it':>8} {'1st after it':>13} {'1st, header only':>17}")
    for order in args.orders or ORDERS:
        with tempfile.TemporaryDirectory() as tmp:
            memory = _memory(tmp, args.k, order)
            startup = counter.prefix(_head(memory, order))
            seen: list[list[int]] = []
            sent = evaluate = after_startup = 0
            first_after = first_bare = None
            for task in tasks:
                tokens = counter.build(_examples(memory, order, [task.instruction]),
                                       f">>> wait_for_trigger()\n{{'type': 'dialog', 'text': "
                                       f"{task.instruction!r}}}")
                reuse = max([0] + [common_prefix(s, tokens) for s in seen])
                with_startup = len(tokens) - max(reuse, common_prefix(startup, tokens))
                if first_after is None:
                    first_after = with_startup
                    first_bare = len(tokens) - common_prefix(bare, tokens)
                seen.append(tokens)
                sent += len(tokens)
                evaluate += len(tokens) - reuse
                after_startup += with_startup
        print(f"{order:<15} {sent:>12} {evaluate:>12} {100 * evaluate / sent:>5.0f}% "
              f"{len(startup):>9} {after_startup:>8} {first_after:>13} {first_bare:>17}")
    return 0


def _requests(record):
    """(utterances so far, the interaction up to the request's dialog output, the
    interaction before it) for each request of a run record."""
    said = [text for _kind, text in record.utterances]
    out, before = [], ""
    for i, text in enumerate(said[:len(record.transcripts)]):
        transcript = record.transcripts[i]
        line = repr({"type": "dialog", "text": text})
        at = transcript.find(line, len(before))
        if at < 0:                             # a reset or an unusual record: skip the round
            before = transcript
            continue
        upto = transcript[:at + len(line)]
        out.append((said[:i + 1], upto, upto[:upto.rfind("\n", 0, at) + 1]))
        before = transcript
    return out


def protocol(counter: Counter, directory: Path, order: str, k: int) -> dict:
    records = {(r.split, r.round, r.template): r for r in load_records(directory)}
    splits = sorted({s for s, _, _ in records})
    runs = [records[key] for key in plan(splits, max(r for _, r, _ in records),
                                         sorted({t for _, _, t in records}))
            if key in records]
    costs, after_lesson, startups = [], [], set()
    with tempfile.TemporaryDirectory() as tmp:
        memory = _memory(tmp, k, order)
        saved: list[list[int]] = []
        lesson_new = False
        for record in runs:
            startup = counter.prefix(_head(memory, order))
            startups.add(len(startup))
            saved.append(startup)
            live: list[int] = startup
            previous = None
            for utterances, upto, before in _requests(record):
                examples = _examples(memory, order, utterances)
                if previous is not None:        # the live state: the run's last call
                    live = counter.build(previous, before.rstrip("\n"))
                tokens = counter.build(examples, upto)
                cost = len(tokens) - max(common_prefix(s, tokens) for s in saved + [live])
                costs.append(cost)
                if lesson_new:
                    after_lesson.append(cost)
                    lesson_new = False
                saved.append(counter.prefix(examples))
                previous = examples
            for entry in record.learning:
                if entry.get("status") in STORED and entry.get("transcript"):
                    memory.add(entry["transcript"], "learned", origin=f"{record.template}"
                               f"/{record.round}")
                    lesson_new = True
        lessons = memory.count() - memory.count("seed")
    return {"order": order, "runs": len(runs), "requests": len(costs), "lessons": lessons,
            "evaluated": sum(costs), "mean": round(statistics.mean(costs), 1) if costs else 0,
            "median": statistics.median(costs) if costs else 0, "max": max(costs, default=0),
            "startup": sorted(startups), "after_lesson": after_lesson}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.prompt_reuse",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="sa_si")
    parser.add_argument("--templates", nargs="+", help="default: every template of the split")
    parser.add_argument("--rounds", type=int, default=2, help="scenes per template")
    parser.add_argument("-k", type=int, default=16)
    parser.add_argument("--orders", nargs="+", choices=ORDERS, help="default: all")
    parser.add_argument("--protocol", nargs="+", type=Path, metavar="DIR",
                        help="the requests of these evaluation outputs (run records)")
    parser.add_argument("--json", action="store_true", help="--protocol: one JSON object")
    args = parser.parse_args(argv)
    from llama_cpp import Llama
    tokenizer = Llama(model_path=str(get_model(None).ensure()), vocab_only=True, verbose=False)
    console = build_console("tabletop", make_world("tabletop", "red block,blue bowl"),
                            EventQueue([]))
    counter = Counter(tokenizer, PromptBuilder(TABLETOP.header, console.api.listing()))
    if not args.protocol:
        return first_prompts(counter, args)
    results = [dict(protocol(counter, d, order, args.k), records=str(d))
               for d in args.protocol for order in (args.orders or PROTOCOL_ORDERS)]
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    print(f"k = {args.k}; tokens evaluated before the first statement after each request")
    print(f"{'records':<40} {'order':<15} {'requests':>8} {'lessons':>7} {'evaluated':>10} "
          f"{'mean':>7} {'median':>7} {'max':>6} {'start-up':>9}  after a lesson")
    for r in results:
        print(f"{r['records']:<40} {r['order']:<15} {r['requests']:>8} {r['lessons']:>7} "
              f"{r['evaluated']:>10} {r['mean']:>7} {r['median']:>7} {r['max']:>6} "
              f"{'/'.join(map(str, r['startup'])):>9}  {r['after_lesson']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

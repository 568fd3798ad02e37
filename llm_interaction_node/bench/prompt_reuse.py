"""Benchmark: how much of each console prompt a model that keeps its states must evaluate,
per prompt order of the retrieved examples. No LLM runs: the embedded model's tokenizer alone
(llama.cpp, vocab only) counts the tokens.

For a sequence of first prompts (the benchmark's instructions, one after the other, as an
evaluation or a user sends them), a prompt costs its tokens minus the longest prefix it
shares with an earlier prompt (a saved state covers that prefix). Orders (``memory.order``):
``similarity`` (the paper's: most similar last), ``stable`` (a fixed order, seed examples by
centrality), ``stable_nearest`` (the fixed order, then the most similar again; the default),
and ``file`` (the fixed order with seeds by file name: the order before centrality).

The start-up prefill (what the agent evaluates before the user speaks,
``ExampleMemory.prompt_examples([])``: the first k examples of the whole store in the fixed
order; none for ``similarity``) is a saved state too; the last columns count it: its tokens,
the prompts' cost when it is saved before them (each benchmark run starts a session, whose
start-up prefill is that state), and what the first prompt evaluates after it and after the
header and API listing alone (the start-up prefill of a store with more than k examples
before issue 20).

    python -m llm_interaction_node.bench.prompt_reuse [--templates ...] [--rounds 2] [-k 16]
"""
from __future__ import annotations

import argparse
import sys
import tempfile

from ..core.llm.local import common_prefix
from ..core.llm.models import get as get_model
from ..core.memory.config import MemoryConfig
from ..core.memory.order import stable_order
from ..core.memory.store import ExampleMemory
from ..core.apis.sets import TABLETOP
from ..core.prompt import PromptBuilder
from ..core.user import EventQueue
from ..eval.harness import run_seed
from ..eval.tasks import make_task, tasks_for_split
from ..paths import config_path
from ..session import build_console, make_world

ORDERS = ("similarity", "file", "stable", "stable_nearest")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.prompt_reuse",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="sa_si")
    parser.add_argument("--templates", nargs="+", help="default: every template of the split")
    parser.add_argument("--rounds", type=int, default=2, help="scenes per template")
    parser.add_argument("-k", type=int, default=16)
    args = parser.parse_args(argv)
    from llama_cpp import Llama
    tokenizer = Llama(model_path=str(get_model(None).ensure()), vocab_only=True, verbose=False)
    templates = args.templates or [t.id for t in tasks_for_split(args.split)]
    tasks = [make_task(t, args.split, run_seed(0, args.split, t, r))
             for r in range(1, args.rounds + 1) for t in templates]
    with tempfile.TemporaryDirectory() as tmp:
        memory = ExampleMemory("tabletop", MemoryConfig(path=tmp, k=args.k))
        memory.seed_from(config_path("transcripts", "tabletop"))
        console = build_console("tabletop", make_world("tabletop", "red block,blue bowl"),
                                EventQueue([]))
        prompt = PromptBuilder(TABLETOP.header, console.api.listing())
        central = memory.seed_centrality()
        print(f"{len(tasks)} first prompts ({args.split}, {args.rounds} scene(s) per template), "
              f"k = {args.k}, {memory.count()} examples in memory")
        print(f"{'order':<15} {'tokens sent':>12} {'to evaluate':>12} {'share':>6} "
              f"{'start-up':>9} {'with it':>8} {'1st after it':>13} {'1st, header only':>17}")
        bare = tokenizer.tokenize(prompt.stable_prefix([]).encode("utf-8"), add_bos=True,
                                  special=True)
        for order in ORDERS:
            head = [] if order == "similarity" else \
                stable_order(memory.list(), None if order == "file" else central)[:args.k]
            startup = tokenizer.tokenize(prompt.stable_prefix([e.transcript for e in head])
                                         .encode("utf-8"), add_bos=True, special=True)
            seen: list[list[int]] = []
            sent = evaluate = after_startup = 0
            first_after = first_bare = None
            for task in tasks:
                found = [e for e, _ in memory.retrieve([task.instruction], args.k)]
                if order == "similarity":
                    examples = found
                elif order == "file":
                    examples = stable_order(found)
                else:
                    examples = stable_order(found, central)
                    if order == "stable_nearest":
                        examples = examples + found[-1:]
                text = prompt.build([e.transcript for e in examples],
                                    f">>> wait_for_trigger()\n{{'type': 'dialog', 'text': "
                                    f"{task.instruction!r}}}")
                tokens = tokenizer.tokenize(text.encode("utf-8"), add_bos=True, special=True)
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


if __name__ == "__main__":
    sys.exit(main())

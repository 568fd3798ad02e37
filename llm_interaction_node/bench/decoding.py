"""Benchmark: generated tokens/s of the embedded model with and without the prompt-lookup
draft and the console grammar, on the same console prompts, in one run.

The prompts are what the agent sends on the tabletop: the header, the API listing, the
seed examples the memory retrieves for the instruction, and the transcript of a task at
three points (after the instruction, after ``get_obj_names()``, after the first move).
For each prompt every configuration generates the next console input at temperature 0
(interleaved, so the load of a shared machine hits them alike; the prompt is evaluated
once and its time is not counted):

* ``plain``            greedy, one token per step;
* ``draft``            prompt-lookup drafts (``--draft`` tokens), exact verification;
* ``grammar``          the console grammar through llguidance masks;
* ``draft+grammar``    both (the default of the embedded model);
* ``llama.cpp grammar`` the same GBNF through llama.cpp's own grammar sampler
  (``LlamaGrammar``, llama-cpp-python's loop): what the grammar costs there; so slow on a
  152k vocabulary that it runs on the first prompt only, for ``--llama-grammar-tokens``
  tokens (its "same" compares with the start of plain's input).

    python -m llm_interaction_node.bench.decoding [--draft 4] [--max-tokens 48]
        [--llama-grammar-tokens 6] [--json]
    python -m llm_interaction_node.bench.decoding --batch-cost [--json]

``--batch-cost`` times one verification batch of 1..8 tokens after the first console prompt
(logits at every position, as the draft loop asks for them) and prints the most any
prompt-lookup draft can gain on this machine: with ``k`` drafted tokens a step costs
``t(k + 1)`` and yields at most ``k + 1`` tokens, so the speed-up over plain decoding is at
most ``(k + 1) * t(1) / t(k + 1)`` (every draft token accepted).

Prints per configuration: tokens, tokens/s, the speed-up over ``plain``, whether the input
equals plain greedy decoding's, draft acceptance, grammar interventions; and the model
state size (what prefix states cost in RAM and on disk: unchanged by the draft, which
needs no ``logits_all``).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time

from ..core.console.prompt import STOP
from ..core.decoding.constraint import ConsoleVocabulary
from ..core.llm.local import LocalLlamaClient, console_input
from ..core.llm.scripted import ScriptedLLM
from ..core.memory.config import MemoryConfig
from ..core.memory.source import ExampleSource
from ..core.memory.store import ExampleMemory
from ..core.settings.config_files import config_path
from ..core.transcript.statements import input_complete
from ..core.user.channel import CallbackUser
from ..session import build_session
from ..settings import Settings
from ..sims.tabletop2d import TabletopWorld2D

SCENE = ["red block", "blue block", "yellow block", "green bowl", "blue bowl", "red bowl"]
INSTRUCTION = "put all the blocks in the bowls with matching colors"
STAGES = (
    "",
    ">>> get_obj_names()\n" + repr(SCENE),
    ">>> get_obj_names()\n" + repr(SCENE)
    + "\n>>> put_first_on_second('red block', 'red bowl')\n'success'",
)
CONFIGS = ("plain", "draft", "grammar", "draft+grammar", "llama.cpp grammar")


def console_prompts(tmp: str):
    """(prompt, grammar) per stage of the task, as the agent builds them."""
    world = TabletopWorld2D.from_names(SCENE, seed=0)
    memory = ExampleMemory("tabletop", MemoryConfig(path=f"{tmp}/memory"))
    memory.seed_from(config_path("transcripts", "tabletop"))
    settings = Settings().with_overrides({"memory.path": f"{tmp}/memory"})
    session = build_session("tabletop", world, CallbackUser(lambda *_: None), settings,
                            llm=ScriptedLLM([]), memory=memory)   # never asked: the prompt only
    examples = ExampleSource(memory)([INSTRUCTION])
    start = (">>> wait_for_trigger()\n"
             + repr({"type": "dialog", "text": INSTRUCTION}))
    grammar = ConsoleVocabulary.of(session.console).current().gbnf()
    return [(session.agent.prompt.build(examples, "\n".join(p for p in (start, stage) if p)),
             grammar) for stage in STAGES]


def _llama_cpp_grammar(llm: LocalLlamaClient, prompt: str, gbnf: str, max_tokens: int):
    """The next input through llama-cpp-python's own loop with a ``LlamaGrammar``."""
    from llama_cpp import LlamaGrammar, StoppingCriteriaList
    grammar = LlamaGrammar.from_string(gbnf, verbose=False)
    tokens = llm._tokenize(prompt)
    llm._keep(min(llm._restore_best(tokens), len(tokens) - 1))
    llm.llama.eval(tokens[llm.llama.n_tokens:-1])     # the prompt is not what is timed
    n = len(tokens)

    def done(ids, _logits) -> bool:
        return input_complete(llm.llama.detokenize(list(ids[n:])).decode("utf-8", "replace"))
    start = time.perf_counter()
    out = llm.llama.create_completion(tokens, max_tokens=max_tokens, temperature=0, top_k=1,
                                      stop=list(STOP)[:4], seed=0, grammar=grammar,
                                      stopping_criteria=StoppingCriteriaList([done]))
    wall = time.perf_counter() - start
    return console_input(out["choices"][0]["text"]), int(out["usage"]["completion_tokens"]), wall


def run(draft: int, max_tokens: int, llama_grammar_tokens: int = 6) -> dict:
    llm = LocalLlamaClient(persist_states=False, draft_tokens=draft)
    with tempfile.TemporaryDirectory() as tmp:
        prompts = console_prompts(tmp)
    rows = {c: {"tokens": 0, "seconds": 0.0, "drafted": 0, "accepted": 0, "masked": 0,
                "same_as_plain": 0, "prompts": 0, "inputs": []} for c in CONFIGS}
    for index, (prompt, gbnf) in enumerate(prompts):
        llm.complete(prompt, stop=STOP, temperature=0, max_tokens=1)   # evaluate the prompt
        plain = None
        for config in CONFIGS:
            if config == "llama.cpp grammar":
                if index > 0 or llama_grammar_tokens <= 0:
                    continue
                text, n, seconds = _llama_cpp_grammar(llm, prompt, gbnf, llama_grammar_tokens)
                row = rows[config]
                row["prompts"] = 1
                row["same_as_plain"] += plain.startswith(text.rstrip())
                row["tokens"] += n
                row["seconds"] += seconds
                row["inputs"].append(text)
                print(f"  [{config}] {n} tokens in {seconds:.2f} s: {text!r}", file=sys.stderr,
                      flush=True)
                continue
            else:
                llm.lookup.tokens = draft if "draft" in config else 0
                out = llm.complete(prompt, stop=STOP, temperature=0, max_tokens=max_tokens,
                                   one_input=True, grammar=gbnf if "grammar" in config else None)
                d = llm.last_decoding
                text, n, seconds = out.text, len(d.tokens), d.generate_s
                row = rows[config]
                row["prompts"] += 1
                row["drafted"] += d.drafted
                row["accepted"] += d.accepted
                row["masked"] += d.masked
            plain = text if plain is None else plain
            row["tokens"] += n
            row["seconds"] += seconds
            row["same_as_plain"] += text == plain
            row["inputs"].append(text)
            print(f"  [{config}] {n} tokens in {seconds:.2f} s: {text!r}", file=sys.stderr,
                  flush=True)
    base = rows["plain"]["tokens"] / rows["plain"]["seconds"]
    for row in rows.values():
        row["tokens_per_s"] = round(row["tokens"] / row["seconds"], 2) if row["seconds"] else 0.0
        row["speedup"] = round(row["tokens_per_s"] / base, 2) if base else 0.0
        row["seconds"] = round(row["seconds"], 2)
    state = llm._get_state()
    return {"benchmark": "decoding", "draft_tokens": draft, "prompts": len(prompts),
            "prompt_tokens": [len(llm._tokenize(p)) for p, _ in prompts],
            "configs": rows, "state_bytes": len(state), "state_tokens": llm.llama.n_tokens,
            "logits_all_scores_bytes": llm.llama.n_ctx() * llm.llama.n_vocab() * 4}


def draft_bound(batch_ms: dict[int, float]) -> dict[int, float]:
    """The largest speed-up drafts of ``k`` tokens can give when every draft token is
    accepted, from the cost of a batch of ``n`` tokens (``batch_ms[n]``, ``n`` from 1)."""
    one = batch_ms[1]
    return {n - 1: round(n * one / ms, 2) for n, ms in sorted(batch_ms.items()) if n > 1}


def batch_cost(sizes=range(1, 9), repeats: int = 5) -> dict:
    """Milliseconds of one verification batch of ``n`` tokens after a console prompt
    (median of ``repeats``, the batch dropped again after each), and :func:`draft_bound`."""
    from ..core.llm.decoding import Decoder
    llm = LocalLlamaClient(persist_states=False, draft_tokens=0)
    with tempfile.TemporaryDirectory() as tmp:
        prompt, _ = console_prompts(tmp)[0]
    llm.complete(prompt, stop=STOP, temperature=0, max_tokens=1)      # the prompt evaluated
    decoder = Decoder(llm.llama, is_end=lambda token: False)
    held = llm.llama.n_tokens
    tokens = list(llm._tokenize(prompt)[-max(sizes):])        # which tokens: cost is the same
    batch_ms = {}
    for n in sizes:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            decoder._eval(tokens[:n])
            times.append(1000 * (time.perf_counter() - start))
            decoder._drop_after(held)
        batch_ms[n] = round(sorted(times)[len(times) // 2], 1)
    return {"benchmark": "batch_cost", "held_tokens": held, "batch_ms": batch_ms,
            "bound": draft_bound(batch_ms)}


def grammar_cost(repeats: int = 3) -> dict:
    """What llguidance costs apart from decoding: reading the vocabulary, compiling the
    console grammar of each API (a new text each time), one full token mask."""
    import warnings

    import llama_cpp
    import llguidance
    import llguidance.llamacpp
    import llguidance.numpy as llg_np
    import numpy as np

    from ..core.llm import models
    from ..core.user.channel import EventQueue
    from ..session import build_console, make_world
    llama = llama_cpp.Llama(model_path=str(models.get(None).ensure()), vocab_only=True,
                            verbose=False)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        tokenizer = llguidance.llamacpp.lltokenizer_from_vocab(
            llama_cpp.llama_model_get_vocab(llama.model))
    out = {"vocabulary_s": round(time.perf_counter() - start, 2), "apis": {}}
    for api, world in (("tabletop", ",".join(SCENE)), ("humanoid", None)):
        console = build_console(api, make_world(api, world, seed=0), EventQueue([]))
        gbnf = ConsoleVocabulary.of(console).current().gbnf()
        compile_s, mask_s = [], []
        bits = llg_np.allocate_token_bitmask(1, tokenizer.vocab_size)
        for n in range(repeats):
            start = time.perf_counter()
            matcher = llguidance.LLMatcher(
                tokenizer, llguidance.grammar_from("gbnf", gbnf + f'unused-{n} ::= "x"\n'),
                log_level=0)
            compile_s.append(time.perf_counter() - start)
            start = time.perf_counter()
            llg_np.fill_next_token_bitmask(matcher, bits)
            mask_s.append(time.perf_counter() - start)
        allowed = int(np.unpackbits(bits.view(np.uint8)).sum())
        out["apis"][api] = {"grammar_chars": len(gbnf),
                            "compile_ms": [round(1000 * t) for t in compile_s],
                            "first_mask_ms": round(1000 * min(mask_s), 1),
                            "first_tokens_allowed": allowed}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.decoding",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--draft", type=int, default=4, help="draft tokens per step")
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--llama-grammar-tokens", type=int, default=6,
                        help="tokens of the llama.cpp grammar run (first prompt; 0 = skip)")
    parser.add_argument(
        "--grammar-cost",
        action="store_true",
        help="only llguidance's costs apart from decoding (vocabulary, compile, mask)",
    )
    parser.add_argument("--batch-cost", action="store_true",
                        help="only the cost of a verification batch of 1..8 tokens and the "
                             "speed-up bound it sets for drafts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.batch_cost:
        report, show = batch_cost(), _show_batch_cost
    elif args.grammar_cost:
        report, show = grammar_cost(), _show_grammar_cost
    else:
        report, show = run(args.draft, args.max_tokens, args.llama_grammar_tokens), _show_run
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        show(report)
    return 0


def _show_batch_cost(cost: dict) -> None:
    print(f"one batch after {cost['held_tokens']} prompt tokens (median of 5):")
    for n, ms in cost["batch_ms"].items():
        bound = cost["bound"].get(n - 1)
        shown = f", {n - 1}-token drafts gain at most x{bound}" if bound else ""
        print(f"  {n} token(s): {ms} ms{shown}")


def _show_grammar_cost(cost: dict) -> None:
    print(f"llguidance reads Qwen's vocabulary in {cost['vocabulary_s']} s (once per process)")
    for api, c in cost["apis"].items():
        print(f"  {api}: console grammar {c['grammar_chars']} characters, compiled in "
              f"{c['compile_ms']} ms, first token mask {c['first_mask_ms']} ms "
              f"({c['first_tokens_allowed']} of 151936 tokens allowed)")


def _show_run(report: dict) -> None:
    n = report["prompts"]
    print(f"embedded model, {n} console prompts ({report['prompt_tokens']} tokens), "
          f"temperature 0, {report['draft_tokens']}-token drafts")
    print(f"{'config':<18} {'tokens':>6} {'s':>7} {'tok/s':>7} {'x plain':>7} {'same':>5} "
          f"{'accepted':>9} {'masked':>6}")
    for name, r in report["configs"].items():
        accepted = f"{r['accepted']}/{r['drafted']}" if r["drafted"] else "-"
        print(f"{name:<18} {r['tokens']:>6} {r['seconds']:>7} {r['tokens_per_s']:>7} "
              f"{r['speedup']:>7} {r['same_as_plain']:>3}/{r['prompts']} {accepted:>9} "
              f"{r['masked']:>6}")
    print(f"model state after {report['state_tokens']} tokens: "
          f"{report['state_bytes'] / 2**20:.1f} MiB (the same with or without drafts); "
          f"logits_all=True would add a {report['logits_all_scores_bytes'] / 2**30:.1f} GiB "
          "score array")


if __name__ == "__main__":
    sys.exit(main())

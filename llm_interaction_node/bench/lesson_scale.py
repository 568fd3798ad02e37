"""Benchmark: lessons at scale (issue 43, "Scale"): how retrieval, the prompt and the first
statement grow with the number of lessons stored.

A fresh tabletop example memory (real ChromaDB, MiniLM, the 25 seed transcripts, in a
temporary directory) is filled with lessons as the learner stores them, N at a time up to each
size of ``--sizes`` (the memory grows; the lessons of size 10 are those of size 5 and 5 more):
requests of the 8 seen templates in turn, worded from the development pool
(``config/phrasings/development.yaml``) over sampled colours and places, each stored with the
reading of its request (``Example.reading``), its author and its scope, in the forms the
learner writes them:

* every block to one place (``blocks_in_bowl``, ``blocks_on_place``): the loop over the listing
  (:class:`~..core.learning.general.EveryOfKind`), author ``reading``, scope ``rule``;
* a block chosen by where it lies (``block_direction_of_bowl``, ``block_distance_to_bowl``,
  ``nth_block_from_direction``): the computed choice
  (:class:`~..core.learning.choice.ChoiceRule`), author ``reading``, scope ``rule``; every
  fourth one the accepted attempt's literal move by name, scope ``scene`` (a choice whose
  rule did not replay: shown as stored, never adapted);
* named moves (``block_on_block``, ``block_in_bowl``, ``matching_bowls``): the accepted
  attempt's moves, author ``attempt``, scope ``rule``.

Then, at each size, for new instructions (one or more per template, in words neither pool has,
``QUERIES``) in their own scenes, with their readings given (the reader's model call is not
timed here; it is with ``--model``):

(a) ``retrieval``: the agent's :class:`~..core.memory.source.ExampleSource` call (retrieval,
    the prompt layout, the nearest lesson read in the request's meaning);
(b) ``build``: the whole prompt build of the first statement, as the agent does it
    (``Agent._current_examples`` over that source, then ``PromptBuilder.build`` with the
    console's transcript after ``wait_for_trigger()`` returned the instruction); reported
    with the prompt's size (``estimate_tokens``, the project's estimate), the tokens after the
    prefix it shares with the query-independent head (the seed block and the first k lessons
    in stored order: what the agent prefills before the user speaks, so what a stateful model
    evaluates again), the lessons in it, and whether the nearest one is of the request's
    template and was adapted to it;
(c) ``--model``: the first statement with the embedded model (``LocalLlamaClient``, its prefix
    states in a temporary directory): one session per instruction on that memory (as an
    evaluation run: start-up prefill, then the instruction), the wall time from the
    instruction to the first console input and the tokens evaluated in between (reading,
    prefill of the retrieved examples, the statement); the run is stopped right after it.

    python -m llm_interaction_node.bench.lesson_scale [--sizes 0 5 10 25 50]
        [--queries-per-template 2] [--memory k=8 ...] [--out results/lesson_scale.json]
        [--model [NAME]]

Prints a table per size (median and p90 over the instructions). Target (issue 43): with 50
lessons, retrieval + prompt build <= 0.5 s and the first statement <= 10 s.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..core.agent import AgentConfig
from ..core.apis.tabletop import PLACE_NAMES
from ..core.decoding.lesson_follow import as_typed
from ..core.learning.choice import ChoiceRule, Relation
from ..core.learning.general import EveryOfKind
from ..core.learning.scenes_check import RULE, SCENE
from ..core.llm import LLMClient, ScriptedLLM, TokenLedger
from ..core.llm.usage import estimate_tokens
from ..core.memory.source import ExampleSource
from ..core.memory.store import ExampleMemory
from ..core.reading import ReadingVocabulary, parse
from ..core.reading.record import reading_to_json
from ..core.reading.structure import SIDE_WORDS, Reading
from ..core.settings.config_files import config_path
from ..core.user.channel import CallbackUser, EventQueue
from ..eval.harness import run_seed
from ..eval.phrasings import instruction_fields, load_phrasings
from ..eval.tasks import make_task, tasks_for_split
from ..eval.tasks.relations import NTH
from ..session import build_agent, build_console, build_session, make_world
from ..settings import Settings

API = "tabletop"
SPLIT = "sa_si"
DEFAULT_SIZES = (0, 5, 10, 25, 50)
TARGET_BUILD_S = 0.5
TARGET_FIRST_S = 10.0
DEVELOPMENT_POOL = ("phrasings", "development.yaml")
SELECTION = ("block_direction_of_bowl", "block_distance_to_bowl", "nth_block_from_direction")
LITERAL_EVERY = 4           # every 4th selection lesson is the literal move, scope scene
# the new instructions: wordings neither the development pool nor the templates use
QUERIES: dict[str, str] = {
    "block_on_block": "could you set the {block1_color} one on top of the {block2_color} block",
    "block_in_bowl": "the {block_color} cube belongs in the {bowl}",
    "blocks_on_place": "shove every cube over to the {place}",
    "blocks_in_bowl": "load all the cubes into the {bowl_color} bowl",
    "matching_bowls": "colour-sort the cubes, each one into the bowl that looks like it",
    "block_direction_of_bowl": "the cube sitting {rel} the {bowl_color} bowl needs to go to "
                               "the {place}",
    "block_distance_to_bowl": "whichever cube is {dist_to} the {bowl} should end up at the "
                              "{place}",
    "nth_block_from_direction": "counting cubes from the {direction} edge, number {nth_num} "
                                "goes to the {place}",
}
QUERY_SEED = 7              # the queries' scenes: another seed block than the lessons'


@dataclass(frozen=True)
class Request:
    """One request of a template in its scene: the words, the reading, the objects."""

    template: str
    words: str
    reading: Reading
    objects: tuple[str, ...]
    task: object


def reading_text(task) -> str:
    """The reading of a seen template's request in the line language (core/reading), as the
    model writes it for the request's meaning."""
    a, t = task.attributes, task.template_id
    if t == "block_on_block":
        return f"do: {a['block1']} -> {a['block2']}"
    if t == "block_in_bowl":
        return f"do: {a['block']} -> {a['bowl']}"
    if t == "blocks_on_place":
        return f"do: every block -> {a['place']}"
    if t == "blocks_in_bowl":
        return f"do: every block -> {a['bowl']}"
    if t == "matching_bowls":
        return "do: every block -> the same color bowl"
    if t == "block_direction_of_bowl":
        return f"do: the block {SIDE_WORDS[a['direction']]} {a['bowl']} -> {a['place']}"
    if t == "block_distance_to_bowl":
        how = "nearest to" if a["distance"] == "closest" else "farthest from"
        return f"do: the block {how} {a['bowl']} -> {a['place']}"
    if t == "nth_block_from_direction":
        return f"do: the block number {NTH[a['nth']] + 1} from the {a['direction']} -> " \
               f"{a['place']}"
    raise ValueError(f"no reading written for template {t!r}")


def request_of(task, words: str) -> Request:
    vocabulary = ReadingVocabulary.of(task.objects, PLACE_NAMES)
    reading = parse(words, " " + reading_text(task) + "\n\n", vocabulary)
    if not reading.moves:
        raise ValueError(f"the reading of {words!r} does not parse: {reading_text(task)!r}")
    return Request(task.template_id, words, reading, tuple(task.objects), task)


def _blocks(objects: Sequence[str]) -> list[str]:
    return [n for n in objects if n.endswith(" block")]


def _moves(objects: Sequence[str], task) -> list[tuple[str, str]]:
    """The named moves of the accepted attempt of a template without a rule."""
    a, t = task.attributes, task.template_id
    if t == "block_on_block":
        return [(a["block1"], a["block2"])]
    if t == "block_in_bowl":
        return [(a["block"], a["bowl"])]
    if t == "matching_bowls":
        return [(b, b.split()[0] + " bowl") for b in _blocks(objects)
                if b.split()[0] + " bowl" in objects]
    raise ValueError(f"template {t!r} has no named moves here")


def _chosen(task) -> str:
    """The block an accepted attempt of a selection request moved (any of its scene's blocks:
    the statements of a choice do not name it)."""
    return _blocks(task.objects)[0]


def _program(task, index: int) -> tuple[list[tuple[str, list[str]]], str, str]:
    """(statements with their outputs, author, scope) of the lesson of ``task``."""
    a, t, objects = task.attributes, task.template_id, task.objects
    blocks = _blocks(objects)
    if t in ("blocks_in_bowl", "blocks_on_place"):
        target = a["bowl"] if t == "blocks_in_bowl" else a["place"]
        rule = EveryOfKind("block", "get_obj_names()", "put_first_on_second", repr(target),
                           frozenset(blocks))
        listed, loop = rule.statements()
        return [(listed.source, []), (loop.source, ["'success'"] * len(blocks))], "reading", RULE
    if t in SELECTION:
        if (index // len(QUERIES)) % LITERAL_EVERY == LITERAL_EVERY - 1:
            move = f"put_first_on_second({_chosen(task)!r}, {a['place']!r})"
            return [(move, ["'success'"])], "attempt", SCENE
        if t == "block_direction_of_bowl":
            relation = Relation("block", a["direction"], a["bowl"])
        elif t == "block_distance_to_bowl":
            relation = Relation("block", None, a["bowl"], distance="nearest"
                                if a["distance"] == "closest" else "farthest")
        else:
            relation = Relation("block", a["direction"], None, NTH[a["nth"]])
        rule = ChoiceRule(relation, "nearest", "put_first_on_second", repr(a["place"]),
                          _chosen(task))
        entries = rule.statements()
        return [(e.source, ["'success'"] if e is entries[-1] else []) for e in entries], \
            "reading", RULE
    return [(f"put_first_on_second({x!r}, {y!r})", ["'success'"])
            for x, y in _moves(objects, task)], "attempt", RULE


def lesson_transcript(request: Request, index: int) -> tuple[str, str, str]:
    """(transcript, author, scope) of the lesson stored for ``request``: the request, a look
    at the scene, the program, the closing ``wait_for_trigger()`` (as the learner stores it)."""
    lines = [">>> wait_for_trigger()", repr({"type": "dialog", "text": request.words}),
             ">>> get_obj_names()", repr(list(request.objects))]
    program, author, scope = _program(request.task, index)
    for source, outputs in program:
        lines.append(">>> " + as_typed(source))
        lines += outputs
    lines.append(">>> wait_for_trigger()")
    return "\n".join(lines), author, scope


def lesson_requests(count: int, pool_path: Path | None = None) -> list[Request]:
    """The requests of the first ``count`` lessons: the seen templates in turn, each time a new
    scene and the development pool's next wording."""
    pool = load_phrasings(pool_path or config_path(*DEVELOPMENT_POOL))
    templates = [t.id for t in tasks_for_split(SPLIT)]
    out = []
    for i in range(count):
        template, run = templates[i % len(templates)], i // len(templates) + 1
        task = make_task(template, SPLIT, run_seed(0, SPLIT, template, run))
        out.append(request_of(task, pool.instruction(task, run)))
    return out


def query_requests(per_template: int, templates: Sequence[str] | None = None) -> list[Request]:
    """The new instructions: ``QUERIES`` (of ``templates``, default all) over scenes of
    another seed block."""
    unknown = set(templates or ()) - set(QUERIES)
    if unknown:
        raise ValueError(f"no new instruction written for {sorted(unknown)}; use "
                         f"{sorted(QUERIES)}")
    out = []
    for run in range(1, per_template + 1):
        for template, wording in QUERIES.items():
            if templates and template not in templates:
                continue
            task = make_task(template, SPLIT, run_seed(QUERY_SEED, SPLIT, template, run))
            out.append(request_of(task, wording.format(**instruction_fields(task))))
    return out


def fill(memory: ExampleMemory, requests: Sequence[Request], start: int) -> float:
    """Store the lessons of ``requests`` (numbered from ``start``); seconds it took."""
    t0 = time.perf_counter()
    for i, request in enumerate(requests, start):
        text, author, scope = lesson_transcript(request, i)
        memory.add(text, "final", origin=f"{request.template}/{i}",
                   reading=reading_to_json(request.reading), author=author, scope=scope)
    return time.perf_counter() - t0


def _common_chars(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def prompt_row(memory: ExampleMemory, request: Request, origins: dict[str, str],
               saved: list[str] | None = None) -> dict:
    """(a) and (b) for one new instruction: the agent's first prompt, timed and described.
    ``saved``: the example prefixes of the instructions before it on this memory (a stateful
    model keeps their states in RAM); its own is appended."""
    world = make_world(API, ",".join(request.objects), seed=request.task.seed)
    console = build_console(API, world, EventQueue([request.words], close=True),
                            isolated=False)
    readings = {request.words: request.reading}
    source = ExampleSource(memory, names=lambda: list(request.objects) + list(PLACE_NAMES),
                           read=readings.get)
    agent = build_agent(API, ScriptedLLM([]), console, source,
                        config=AgentConfig(function_generation=False))
    head = agent.prompt.stable_prefix(source.head() or [])
    agent.start_task(marker=False)                # wait_for_trigger() returns the instruction
    t0 = time.perf_counter()
    examples = agent._current_examples()          # the agent's own path (ExampleSource call)
    t1 = time.perf_counter()
    prompt = agent.prompt.build(examples, console.transcript.render())
    t2 = time.perf_counter()
    seeds = {e.transcript for e in memory.seed_block()}
    lessons = [t for t in examples if t not in seeds]
    nearest = source.nearest_lesson
    nearest_origin = origins.get(nearest) if nearest is not None else None
    shared = _common_chars(head, prompt)
    before = max([shared] + [_common_chars(p, prompt) for p in saved or ()])
    if saved is not None:
        saved.append(agent.prompt.stable_prefix(examples))
    found = memory.retrieve_learned([request.words])    # the query's vector is cached now
    top = found[-1].origin if found else None
    adapted = nearest is not None and nearest_origin is None
    if adapted:               # only the retrieval's top lesson is shown in the request's words
        nearest_origin = top
    return {"template": request.template, "request": request.words,
            "retrieval_ms": round(1000 * (t1 - t0), 1), "build_ms": round(1000 * (t2 - t0), 1),
            "prompt_tokens": estimate_tokens(prompt),
            "after_head_tokens": estimate_tokens(prompt[shared:]),
            "after_saved_tokens": estimate_tokens(prompt[before:]),
            "examples": len(examples), "lessons_in_prompt": len(lessons),
            "lessons_retrieved": len(found),
            "lessons": [origins.get(t, "adapted") for t in lessons],
            "top": top, "top_same_template": _of(top, request.template),
            "nearest": nearest_origin, "nearest_adapted": adapted,
            "nearest_same_template": _of(nearest_origin, request.template)}


def _of(origin: str | None, template: str) -> bool:
    """Whether the lesson of ``origin`` (``<template>/<i>``) was stored for ``template``."""
    return origin is not None and origin.split("/")[0] == template


def first_statement(memory: ExampleMemory, request: Request, llm: LLMClient,
                    settings: Settings) -> dict:
    """(c) one session on ``memory`` with ``llm``: the instruction, then the first console
    input; wall time and tokens evaluated in between (every purpose: reading, prefill,
    interact); the turn is stopped after that input and the session ends."""
    world = make_world(API, ",".join(request.objects), seed=request.task.seed)
    ledger = TokenLedger()
    marks: dict[str, object] = {}
    session = None

    def respond(purpose, prompt):
        if "spoke" in marks:
            return None
        marks["spoke"], marks["before"] = time.perf_counter(), ledger.by_purpose()
        return request.words

    def first_input(_source: str) -> None:
        if "spoke" in marks and "first" not in marks:
            marks["first"], marks["after"] = time.perf_counter(), ledger.by_purpose()
            session.stop.request("lesson_scale: the first statement is timed")

    started = time.perf_counter()
    session = build_session(API, world, CallbackUser(respond), settings, llm=llm, memory=memory,
                            ledger=ledger, input_listeners=[first_input])
    try:
        session.agent.run()
    finally:
        session.console.close()
    if "first" not in marks:
        raise RuntimeError(f"no console input after {request.words!r}")
    before, after = marks["before"], marks["after"]
    evaluated = {p: u.evaluated_prompt_tokens - (before[p].evaluated_prompt_tokens
                                                 if p in before else 0)
                 for p, u in after.items()}
    return {"template": request.template, "request": request.words,
            "startup_s": round(marks["spoke"] - started, 2),
            "first_statement_s": round(marks["first"] - marks["spoke"], 2),
            "evaluated_tokens": sum(evaluated.values()),
            "evaluated_by_purpose": {p: n for p, n in evaluated.items() if n}}


def _stats(values: Sequence[float]) -> dict:
    values = sorted(values)
    if not values:
        return {"median": None, "p90": None, "max": None}
    p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
    return {"median": round(statistics.median(values), 1), "p90": round(p90, 1),
            "max": round(values[-1], 1)}


SUMMARIZED = ("retrieval_ms", "build_ms", "prompt_tokens", "after_head_tokens",
              "after_saved_tokens", "lessons_in_prompt", "lessons_retrieved")


def summary(rows: list[dict], model_rows: list[dict]) -> dict:
    out = {key: _stats([r[key] for r in rows]) for key in SUMMARIZED}
    out["top_same_template"] = sum(r["top_same_template"] for r in rows)
    out["nearest_same_template"] = sum(r["nearest_same_template"] for r in rows)
    out["nearest_adapted"] = sum(r["nearest_adapted"] for r in rows)
    out["queries"] = len(rows)
    if model_rows:
        out["first_statement_s"] = _stats([r["first_statement_s"] for r in model_rows])
        out["evaluated_tokens"] = _stats([r["evaluated_tokens"] for r in model_rows])
    return out


def run(sizes: Sequence[int], per_template: int = 2, llm_factory: Callable[[], LLMClient]
        | None = None, config: dict | None = None, progress=lambda line: None,
        templates: Sequence[str] | None = None) -> dict:
    """The benchmark: one memory grown through ``sizes``; ``llm_factory``: (c) with that
    model (None: (a) and (b) only); ``config``: MemoryConfig fields (the defaults else);
    ``templates``: the new instructions' templates (default all; the lessons are of all)."""
    sizes = sorted(set(int(s) for s in sizes))
    if not sizes or sizes[0] < 0:
        raise ValueError(f"sizes must be lesson counts >= 0, got {sizes}")
    lessons = lesson_requests(sizes[-1])
    queries = query_requests(per_template, templates)
    llm = llm_factory() if llm_factory is not None else None
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings().with_overrides({"memory.path": f"{tmp}/memory", **{
            f"memory.{name}": value for name, value in (config or {}).items()}})
        memory_config = settings.memory
        memory = ExampleMemory(API, memory_config)
        t0 = time.perf_counter()
        seeds = memory.seed_from(config_path("transcripts", API))
        seed_s = time.perf_counter() - t0
        memory.prompt_examples([])                 # the embedding model loaded (start-up)
        stored = 0
        for size in sizes:
            fill_s = fill(memory, lessons[stored:size], stored)
            stored = size
            origins = {e.transcript: e.origin for e in memory.list("final")}
            saved: list[str] = []
            rows = [prompt_row(memory, q, origins, saved) for q in queries]
            model_rows = [first_statement(memory, q, llm, settings) for q in queries] \
                if llm is not None else []
            results.append({"lessons": size, "stored": memory.count() - seeds,
                            "fill_s": round(fill_s, 2), "summary": summary(rows, model_rows),
                            "rows": rows, "model_rows": model_rows})
            s = results[-1]["summary"]
            progress(f"{size} lessons: build median {s['build_ms']['median']} ms, prompt "
                     f"{s['prompt_tokens']['median']} tokens")
    return {"benchmark": "lesson_scale", "api": API, "seeds": seeds,
            "seed_s": round(seed_s, 2), "k": memory_config.k,
            "order": str(memory_config.order), "learned_order": str(memory_config.learned_order),
            "seed_tokens": memory_config.seed_tokens,
            "rules_to_their_kind": memory_config.rules_to_their_kind,
            "memory": dict(config or {}), "queries": len(queries),
            "model": getattr(llm, "spec", None) and llm.spec.name, "sizes": results}


def memory_overrides(items: Sequence[str]) -> dict:
    """``NAME=VALUE`` memory settings (values read as YAML: ``8``, ``false``), checked as a
    settings file is."""
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise SystemExit(f"--memory takes NAME=VALUE, got {item!r}")
        out[name] = yaml.safe_load(value)
    try:
        Settings().with_overrides({f"memory.{n}": v for n, v in out.items()})
    except ValueError as exc:
        raise SystemExit(f"--memory: {exc}") from exc
    return out


def table(report: dict) -> str:
    head = (f"{'lessons':>7} {'fill s':>7} {'retrieval ms':>14} {'build ms':>14} "
            f"{'prompt tok':>13} {'after head':>13} {'after saved':>13} {'in prompt':>11} "
            f"{'top-1':>7} {'last':>7}")
    model = any(r["model_rows"] for r in report["sizes"])
    if model:
        head += f" {'first stmt s':>14} {'evaluated':>15}"
    lines = [f"{report['queries']} new instructions per size; k = {report['k']}, "
             f"order {report['order']}/{report['learned_order']}, rules_to_their_kind "
             f"{report['rules_to_their_kind']}; median / p90", head]

    def pair(stat: dict) -> str:
        return f"{stat['median']} / {stat['p90']}"

    for r in report["sizes"]:
        s = r["summary"]
        line = (f"{r['lessons']:>7} {r['fill_s']:>7} {pair(s['retrieval_ms']):>14} "
                f"{pair(s['build_ms']):>14} {pair(s['prompt_tokens']):>13} "
                f"{pair(s['after_head_tokens']):>13} {pair(s['after_saved_tokens']):>13} "
                f"{pair(s['lessons_in_prompt']):>11} "
                f"{s['top_same_template']:>4}/{s['queries']:<2} "
                f"{s['nearest_same_template']:>4}/{s['queries']:<2}")
        if model:
            line += f" {pair(s['first_statement_s']):>14} {pair(s['evaluated_tokens']):>15}"
        lines.append(line)
    lines.append("prompt tok: estimate_tokens of the first prompt; after head: its tokens after "
                 "the prefix it shares with the prefilled head (seed block + first k lessons); "
                 "after saved: ... with the head or the examples of an earlier instruction "
                 "(RAM states, in the order of the table's instructions); "
                 "in prompt: lessons in it (the nearest counted again); top-1: instructions "
                 "whose most similar lesson (retrieval) is of their own template; last: whose "
                 "last lesson in the prompt (the one the agent follows) is")
    lines.append(f"target: build <= {TARGET_BUILD_S * 1000:.0f} ms"
                 + (f", first statement <= {TARGET_FIRST_S} s" if model else ""))
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.lesson_scale",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", type=int, default=list(DEFAULT_SIZES),
                        help="lesson counts to measure at (the memory grows through them)")
    parser.add_argument("--queries-per-template", type=int, default=2,
                        help="new instructions per seen template (scenes of another seed)")
    parser.add_argument("--templates", nargs="+", choices=sorted(QUERIES),
                        help="the new instructions' templates (default: all 8)")
    parser.add_argument("--memory", nargs="+", default=[], metavar="NAME=VALUE",
                        help="memory settings other than the defaults (core/memory/config.py): "
                             "k=8 learned_order=similarity rules_to_their_kind=false ...")
    parser.add_argument("--model", nargs="?", const="", default=None, metavar="NAME",
                        help="also time the first statement with the embedded model "
                             "(default model: llm.local_model)")
    parser.add_argument("--out", type=Path, help="write the whole report as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lesson_scale_states_") as states:
        factory = None
        if args.model is not None:
            def factory():
                from ..core.llm.local import LocalLlamaClient
                return LocalLlamaClient(model=args.model or None, states_dir=states)
        report = run(args.sizes, args.queries_per_template, factory,
                     memory_overrides(args.memory),
                     progress=lambda line: print(line, file=sys.stderr, flush=True),
                     templates=args.templates)
    print(table(report))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

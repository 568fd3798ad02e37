"""Benchmark: insert and retrieval latency of the example memory (ChromaDB + MiniLM).

For each size, a fresh store in a temporary directory is filled with that many synthetic
examples (household and tabletop requests and follow-ups generated from templates, 1-3 user
utterances each, a console transcript around them), written in batches. Then, with the model
loaded:

* add:       single ``ExampleMemory.add()`` calls (embedding of 1-3 utterances included);
* retrieve:  ``retrieve()`` with 3 NEW utterances, k = 16: embedding of the 3 utterances
             included (the agent's worst case; during an interaction the 2 older utterances
             are usually cached from the previous turn: see ``retrieve_turn``);
* retrieve_turn: 1 new utterance + 2 cached ones, as in a running interaction;
* store:     ``retrieve()`` with all 3 utterance embeddings cached: ChromaDB and scoring only;
* embed3:    embedding 3 utterances alone.

Each kind is timed for both score formulas (``--scoring``, core/memory/retrieval.py): the
reference formula (one query vector, one Chroma query) and per_utterance.

Filling: the distinct utterances (at most ``--pool`` of them) are embedded for real in
batches; when a size needs more index keys than that, keys reuse pool embeddings with a small
random perturbation (renormalised), so no two stored vectors are equal.

    python -m llm_interaction_node.bench.memory_latency [--sizes 1000 10000 100000]
        [--queries 200] [--adds 50] [--pool 30000] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import sys
import tempfile
import time

import numpy as np

from ..core.memory.config import MemoryConfig
from ..core.memory.embedding import embedding_settings
from ..core.memory.store import ExampleMemory
from ..core.memory.strategies import Scoring

OBJECTS = ["mango juice", "coffee cup", "tumbler", "kitchen sponge", "milk carton", "empty mug",
           "screwdriver", "tape measure", "cleaning spray", "mineral water", "muesli", "apple",
           "banana", "bowl of cereal", "tea pot", "glass of water", "bread", "remote control",
           "book", "towel", "plate", "fork", "salt shaker", "cutting board", "hammer"]
PLACES = ["kitchen counter", "dining table", "workshop bench", "long table", "tall shelf",
          "fridge", "sink", "sofa", "window sill", "living room table", "cupboard", "stove"]
COLOURS = ["blue", "red", "green", "orange", "yellow", "pink", "cyan", "brown", "gray", "purple"]
CORNERS = ["top left corner", "top right corner", "bottom left corner", "bottom right corner",
           "left side", "right side", "top side", "bottom side", "middle"]
REQUESTS = [
    "bring me the {o}", "could you get me the {o} from the {p}", "please put the {o} on the {p}",
    "I need the {o}, it should be on the {p}", "take the {o} to the {p}",
    "can you hand me the {o}?", "clear the {o} off the {p}", "is the {o} still on the {p}?",
    "put the {o} and the {o2} on the {p}", "I am {m}, bring me the {o}",
    "move the {o} from the {p} to the {p2}", "fetch the {o} quickly, the way is clear",
    "bring the {o} to the {p}, but drive slowly", "where did you put the {o}?",
    "pick up the {c} block and place it on the {c2} block",
    "pick up the {c} block and place it in the {c2} bowl", "put all the blocks on the {q}",
    "put the blocks in the {c} bowl", "stack all the blocks on the {q}",
    "pick up the block closest to the {c} bowl and place it on the {q}",
    "put the {c} block a little to the {d} of the {c2} bowl",
    "pick up the {n} block from the {d} and place it on the {q}",
]
FOLLOW_UPS = [
    "thank you", "great, that was quick", "no, I meant the {o}", "yes, put it on the {p}",
    "that is wrong, the {o} belongs on the {p}", "the {c} one, not the {c2} one",
    "you dropped the {c} block, please try again", "please do it again but slower",
    "not there, on the {q}", "perfect", "learn from this interaction", "the {o2} as well",
    "move it a bit further to the {d}", "yes, do that", "why did you take the {o}?",
]
MOODS = ["thirsty", "hungry", "busy", "tired", "cleaning up", "cooking"]
DIRS = ["left", "right", "top", "bottom"]
NTH = ["first", "second", "third", "fourth"]
POLITE = ["", "please ", "hey robot, ", "robot, ", "could you ", "now ", "ok, "]
TAILS = ["", " please", " now", " for me", ", thanks", " right away", " when you can"]


def _fill(template: str, rng: random.Random) -> str:
    o, o2 = rng.sample(OBJECTS, 2)
    p, p2 = rng.sample(PLACES, 2)
    c, c2 = rng.sample(COLOURS, 2)
    text = template.format(o=o, o2=o2, p=p, p2=p2, c=c, c2=c2, q=rng.choice(CORNERS),
                           d=rng.choice(DIRS), n=rng.choice(NTH), m=rng.choice(MOODS))
    return rng.choice(POLITE) + text + rng.choice(TAILS)


def utterance_pool(size: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """Distinct (requests, follow-ups), about 3:1."""
    requests: dict[str, None] = {}
    follow: dict[str, None] = {}
    n_req = max(1, size * 3 // 4)
    tries = 0
    while (len(requests) < n_req or len(follow) < size - n_req) and tries < size * 50:
        tries += 1
        if len(requests) < n_req:
            requests[_fill(rng.choice(REQUESTS), rng)] = None
        if len(follow) < size - n_req:
            follow[_fill(rng.choice(FOLLOW_UPS), rng)] = None
    return list(requests), list(follow) or ["thank you"]


def transcript_for(utterances: list[str], rng: random.Random) -> str:
    lines = []
    for n, text in enumerate(utterances):
        call = "wait_for_trigger()" if n == 0 or rng.random() < 0.5 else "ask('Anything else?')"
        value = repr({"type": "dialog", "text": text}) if call.startswith("wait") else repr(text)
        lines += [f">>> {call}", value]
        obj, place = rng.choice(OBJECTS).replace(" ", "-"), rng.choice(PLACES).replace(" ", "-")
        lines += [f">>> say('Ok, I will take care of the {obj.replace('-', ' ')}.')",
                  f">>> move_to(get_location_coordinates('inFrontOf_{place}_0'))", "'success'",
                  f">>> grasp('{obj}_0')", "'success'",
                  f">>> place_object('{obj}_0', 'on_{place}_0')", "'success'"]
    lines.append(">>> wait_for_trigger()")
    return "\n".join(lines)


def _pct(values: list[float]) -> dict[str, float]:
    ms = np.asarray(values) * 1000.0
    return {
        "p50": round(float(np.percentile(ms, 50)), 2),
        "p95": round(float(np.percentile(ms, 95)), 2),
        "mean": round(float(ms.mean()), 2),
    }


def _progress(label: str, done: int, total: int, start: float) -> None:
    rate = done / max(time.perf_counter() - start, 1e-9)
    print(f"\r{label}: {done}/{total} ({rate:.0f}/s)   ", end="", file=sys.stderr, flush=True)


def _set_threads(n: int) -> None:
    """Torch threads for the pool embedding; the ONNX session's threads are fixed at start."""
    from ..core.memory.embedding import backend
    if backend() == "torch":
        import torch
        torch.set_num_threads(n)


def run_size(size: int, queries: int = 200, adds: int = 50, pool: int = 30000, k: int = 16,
             fill_threads: int = 2, seed: int = 0, keep: str | None = None,
             check_recall: bool = True,
             scorings: tuple[str, ...] = tuple(Scoring)) -> list[dict]:
    from ..core.memory.embedding import embed

    embed(["load the model before timing"])
    rng = random.Random(seed + size)
    nrng = np.random.default_rng(seed + size)
    n_utts = [rng.choice((1, 2, 2, 3)) for _ in range(size)]
    distinct = min(sum(n_utts), pool)
    requests, follow = utterance_pool(distinct, rng)
    texts = requests + follow

    start = time.perf_counter()
    _set_threads(fill_threads)
    vectors = []
    for i in range(0, len(texts), 512):
        vectors.append(embed(texts[i:i + 512]))
        _progress(f"[{size}] embedding utterance pool", min(i + 512, len(texts)), len(texts), start)
    print(file=sys.stderr)
    _set_threads(embedding_settings().threads)
    table = dict(zip(texts, np.concatenate(vectors), strict=False))
    embed_pool_s = time.perf_counter() - start

    directory = keep or tempfile.mkdtemp(prefix="memory_bench_")
    config = MemoryConfig(path=directory, k=k)
    try:
        memory = ExampleMemory("bench", config)
        used: set[str] = set()
        start = time.perf_counter()
        batch, batch_vecs, written = [], [], 0
        limit = memory.max_batch_size
        req_order = rng.sample(range(len(requests)), len(requests))
        for n, count in enumerate(n_utts):
            utts = [requests[req_order[n % len(req_order)]]] + \
                [rng.choice(follow) for _ in range(count - 1)]
            example = memory.make_example(transcript_for(utts, rng), "learned",
                                          origin=f"bench-{n}")
            for key in example.keys:
                vec = table[key]
                if key in used:         # reused pool text: perturb so vectors stay distinct
                    vec = vec + nrng.normal(0, 0.004, vec.shape).astype(np.float32)
                    vec /= np.linalg.norm(vec)
                used.add(key)
                batch_vecs.append(vec)
            batch.append(example)
            if len(batch_vecs) + 3 > limit or n == size - 1:
                memory.write(batch, np.stack(batch_vecs))
                written += len(batch)
                batch, batch_vecs = [], []
                _progress(f"[{size}] inserting examples", written, size, start)
        print(file=sys.stderr)
        fill_s = time.perf_counter() - start
        records = memory.collection.count()

        # single adds with embedding, after filling
        add_times = []
        for n in range(adds):
            utts = [_fill(rng.choice(REQUESTS), rng) + f" #{n}"] + \
                [_fill(rng.choice(FOLLOW_UPS), rng) for _ in range(rng.choice((0, 1, 2)))]
            text = transcript_for(utts, rng)
            t0 = time.perf_counter()
            memory.add(text, "learned", origin="bench-add")
            add_times.append(time.perf_counter() - t0)

        # queries: fresh utterances the model has not seen in this process
        qrng = random.Random(seed + 7 * size + 1)
        windows = [[_fill(qrng.choice(REQUESTS), qrng), _fill(qrng.choice(FOLLOW_UPS), qrng),
                    _fill(qrng.choice(REQUESTS), qrng) + f" (query {n})"] for n in range(queries)]
        nexts = [w[1:] + [_fill(qrng.choice(FOLLOW_UPS), qrng) + f" (turn {n})"]
                 for n, w in enumerate(windows)]
        per_scoring = {s: time_queries(memory, windows, nexts, k, s, size, check_recall)
                       for s in scorings}
        disk = sum(os.path.getsize(os.path.join(root, f))
                   for root, _, files in os.walk(directory) for f in files)
        return [{
            "size": size, "records": records, "distinct_utterances": len(texts),
            "embed_pool_s": round(embed_pool_s, 1), "fill_s": round(fill_s, 1),
            "insert_examples_per_s": round(size / fill_s, 1),
            "insert_records_per_s": round(records / fill_s, 1),
            "add_ms": _pct(add_times), "k": k, "disk_mb": round(disk / 1e6, 1),
            "scoring": scoring, **timing} for scoring, timing in per_scoring.items()]
    finally:
        if not keep:
            shutil.rmtree(directory, ignore_errors=True)


def time_queries(memory: ExampleMemory, windows, nexts, k: int, scoring: str, size: int,
                 check_recall: bool) -> dict:
    """Time retrieval with one scoring formula (see the module docstring for the kinds)."""
    from ..core.memory.embedding import embed

    memory.config.scoring = Scoring(scoring)
    memory.retrieve(["warm up the query path"], k)
    cold, turn, store, embed3, returned, results = [], [], [], [], 0, []
    start = time.perf_counter()
    for n, (window, nxt) in enumerate(zip(windows, nexts, strict=False)):
        memory._query_cache.clear()
        t0 = time.perf_counter()
        embed(window)
        embed3.append(time.perf_counter() - t0)
        memory._query_cache.clear()
        t0 = time.perf_counter()
        result = memory.retrieve(window, k)              # 3 new utterances embedded
        cold.append(time.perf_counter() - t0)
        returned += len(result)
        results.append([(ex.id, score) for ex, score in result])
        t0 = time.perf_counter()
        memory.retrieve(window, k)                       # all cached: store + scoring
        store.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        memory.retrieve(nxt, k)                          # next turn: 1 new utterance
        turn.append(time.perf_counter() - t0)
        if (n + 1) % 20 == 0 or n + 1 == len(windows):
            _progress(f"[{size} {scoring}] queries", n + 1, len(windows), start)
    print(file=sys.stderr)
    recall = recall_at_k(memory, windows, results, k) if check_recall else (None, None)
    return {"embed3_ms": _pct(embed3), "retrieve_ms": _pct(cold), "retrieve_turn_ms": _pct(turn),
            "store_ms": _pct(store), "mean_returned": round(returned / max(len(windows), 1), 2),
            "recall_vs_brute_force": recall[0], "score_ratio_vs_brute_force": recall[1]}


def recall_at_k(memory: ExampleMemory, windows: list[list[str]],
                results: list[list[tuple[str, float]]], k: int) -> tuple[float, float]:
    """(share of the exact top k, by brute force over all stored vectors, that retrieve()
    returned (ties with the k-th count as hits), sum of the returned scores / sum of the
    exact top-k scores)."""
    from ..core.memory import retrieval
    from ..core.memory.embedding import embed

    owners, rows = [], []
    offset = 0
    while True:
        got = memory.collection.get(include=["embeddings"], limit=5000, offset=offset)
        if not got["ids"]:
            break
        owners += [rid.rpartition("#")[0] for rid in got["ids"]]
        rows.append(np.asarray(got["embeddings"], dtype=np.float32))
        offset += len(got["ids"])
    matrix = np.concatenate(rows)
    order = np.argsort(owners, kind="stable")
    matrix, owners = matrix[order], [owners[i] for i in order]
    starts = [0] + [i for i in range(1, len(owners)) if owners[i] != owners[i - 1]]
    ids = [owners[i] for i in starts]
    hit = total = 0
    got_sum = want_sum = 0.0
    for window, returned in zip(windows, results, strict=False):
        query = retrieval.query_utterances(window, memory.config.query_utterances)
        vectors = embed(query)
        weights = retrieval.recency_weights(len(query), memory.config.recency_decay)
        if memory.config.scoring is Scoring.REFERENCE:
            scores = np.maximum.reduceat(matrix @ retrieval.mixed_query(vectors, weights),
                                         starts)
        else:
            best = np.maximum.reduceat(matrix @ vectors.T, starts, axis=0)  # examples x utterances
            scores = best @ weights
        want = min(k, len(ids))
        bar = np.partition(scores, -want)[-want] - 1e-5       # ties with the k-th count as hits
        good = {ids[i] for i in np.flatnonzero(scores >= bar)}
        hit += min(len({eid for eid, _ in returned} & good), want)
        total += want
        got_sum += sum(score for _, score in returned)
        want_sum += float(np.sort(scores)[-want:].sum())
    return round(hit / max(total, 1), 4), round(got_sum / max(want_sum, 1e-9), 4)


def _opt(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def _table(results: list[dict]) -> str:
    head = (
        f"{'size':>7} {'scoring':>13} {'records':>8} {'fill s':>7} {'ex/s':>7} {'add p50/p95':>13} "
        f"{'embed3 p50/p95':>15} {'retrieve p50/p95':>17} {'turn p50/p95':>14} "
        f"{'store p50/p95':>14} {'recall':>7} {'score':>6} {'disk MB':>8}"
    )
    rows = [head, "-" * len(head)]
    for r in results:
        pair = lambda d: f"{d['p50']:.1f}/{d['p95']:.1f}"   # noqa: E731
        rows.append(
            f"{r['size']:>7} {r['scoring']:>13} {r['records']:>8} {r['fill_s']:>7.1f} "
            f"{r['insert_examples_per_s']:>7.0f} {pair(r['add_ms']):>13} "
            f"{pair(r['embed3_ms']):>15} {pair(r['retrieve_ms']):>17} "
            f"{pair(r['retrieve_turn_ms']):>14} {pair(r['store_ms']):>14} "
            f"{_opt(r['recall_vs_brute_force']):>7} {_opt(r['score_ratio_vs_brute_force']):>6} "
            f"{r['disk_mb']:>8.1f}"
        )
    rows.append("times in ms; retrieve = retrieve() with 3 new utterances (embedding included), "
                "turn = 1 new + 2 cached utterances, store = all cached (Chroma + scoring only);\n"
                "recall = share of the exact (brute-force) top k that retrieve() returned, "
                "score = their score sum / the exact top k's")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.memory_latency",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--adds", type=int, default=50, help="single adds timed after filling")
    parser.add_argument("--pool", type=int, default=30000,
                        help="at most this many distinct utterances are embedded for real")
    parser.add_argument("-k", type=int, default=16)
    parser.add_argument("--fill-threads", type=int, default=2,
                        help="torch backend only: threads while embedding the pool (queries use 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-recall", action="store_true",
                        help="skip the brute-force check of the retrieved top k")
    parser.add_argument("--scoring", nargs="+", default=list(Scoring), choices=list(Scoring),
                        help="retrieval score formula(s) to time (see core/memory/retrieval.py)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if min(args.sizes) < 1 or args.queries < 1 or args.adds < 0 or args.pool < 10:
        parser.error("sizes and queries must be >= 1, pool >= 10")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    results = []
    for size in args.sizes:
        rows = run_size(size, args.queries, args.adds, args.pool, args.k, args.fill_threads,
                        args.seed, check_recall=not args.no_recall, scorings=tuple(args.scoring))
        results += rows
        if not args.json:
            for r in rows:
                print(f"done {size} {r['scoring']}: turn p95 {r['retrieve_turn_ms']['p95']} ms",
                      file=sys.stderr)
    report = {"benchmark": "memory_latency", "machine": {
        "python": platform.python_version(), "cpus": os.cpu_count(),
        "embed_threads": embedding_settings().threads},
        "results": results}
    print(json.dumps(report, indent=2) if args.json else _table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

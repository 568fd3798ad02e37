"""The two retrieval strategies of the example memory (``memory.scoring``, see
:mod:`.retrieval` for the scores): how the top k examples are found with as few Chroma calls
as possible, yet exactly.

A strategy is a function ``(records, query, k, recency_decay) -> [(Example, score)]``
(query: the utterances, newest first; result: most similar LAST) over the store's I/O with
its caches, seen through the small :class:`Records` protocol (``nearest``, ``record_count``,
key vectors, examples by primary record), so this module never imports the store that calls
it (:class:`~.store.ExampleMemory` implements the protocol). :data:`STRATEGIES` maps each
:class:`Scoring` to its function.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Protocol

import numpy as np

from . import retrieval
from .records import Example, RecordId, example_of, primary_id

EXACT_RECORDS = 1000            # stores up to this many records: exact top k always
CANDIDATES_PER_K = 8            # nearest records asked for per utterance: this many per k,
MIN_CANDIDATES = 32             # at least this many
FETCH_PER_K = 4                 # large stores: key vectors of at most this many examples per k
                                # are fetched per retrieval (the rest is cached or bounded out)


class Scoring(StrEnum):
    REFERENCE = "reference"          # max over keys of cos(sum_i w_i u_i, key) (the paper's)
    PER_UTTERANCE = "per_utterance"  # sum_i w_i max over keys of cos(u_i, key)


class Records(Protocol):
    """The stored records as a strategy reads them (the store's lock held by the caller)."""

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of query utterances (cached)."""

    def nearest(self, probe, n: int) -> tuple[list[list[str]], list[list[float]]]:
        """Ids and cosine distances of the ``n`` records nearest to each probe vector."""

    def record_count(self) -> int:
        """How many records are stored (may be a second old)."""

    def has_key_vectors(self, record_ids: Sequence[str]) -> bool:
        """Whether the key vectors of all these records are cached."""

    def key_vectors(self, record_ids: Sequence[str]) -> list[np.ndarray]:
        """The cached key vectors among these records."""

    def fetch_key_vectors(self, record_ids: Sequence[str]) -> None:
        """Read these records' key vectors into the cache."""

    def examples_by_primary(self, primary_ids: Sequence[str]) -> dict[str, Example]:
        """Examples by id from their primary record ids."""


def reference(store: Records, query: list[str], k: int,
              recency_decay: float) -> list[tuple[Example, float]]:
    """The paper's score: cos of the recency-weighted sum of the query utterances with the
    example's best key. One vector, one nearest-records query: an example's best record
    among the results is its exact score, and records are returned best first, so the
    first k distinct examples are the exact top k (the result list is widened until k
    distinct examples are in it or the store is exhausted)."""
    weights = retrieval.recency_weights(len(query), recency_decay)
    mixed = retrieval.mixed_query(store.embed_query(query), weights)
    per_query = max(CANDIDATES_PER_K * k, MIN_CANDIDATES)
    while True:
        ids, distances = store.nearest([mixed], per_query)
        ids, distances = ids[0], distances[0]
        best: dict[str, tuple[float, str]] = {}
        for record_id, dist in zip(ids, distances, strict=False):
            eid = example_of(record_id)
            if eid not in best:
                best[eid] = (1.0 - float(dist), record_id)
        if len(best) >= k or len(ids) < per_query:
            break
        per_query *= 4
    scores = {eid: sim for eid, (sim, _rid) in best.items()}
    top = retrieval.top_k_ascending(scores, k)
    examples = store.examples_by_primary([primary_id(best[eid][1]) for eid, _ in top])
    return [(examples[eid], score) for eid, score in top if eid in examples]


def per_utterance(store: Records, query: list[str], k: int,
                  recency_decay: float) -> list[tuple[Example, float]]:
    """score(example) = sum_i decay**i * max_j cos(utterance_i, key_j(example)), i = 0 for
    the newest. Candidates: the examples owning one of the max(8k, 32) records
    (CANDIDATES_PER_K, MIN_CANDIDATES) nearest to some utterance or to the utterances'
    weighted mean (one Chroma query). A returned record gives its example's exact best
    similarity for that utterance (records not returned are less similar); the other
    similarities of candidates that may reach the top k come from their key vectors (cached;
    records never change). Scores are exact for the candidates. If an example outside them
    could still reach the top k, a store of at most EXACT_RECORDS records is searched in
    full, so small stores (the usual case) always get the exact top k; in larger ones such
    examples can be missed (the benchmark reports the recall against brute force)."""
    vectors = store.embed_query(query)
    weights = retrieval.recency_weights(len(query), recency_decay)
    probe = vectors
    if len(vectors) > 1:        # + the weighted mean: finds examples fairly close to all
        mean = weights.astype(np.float32) @ vectors
        probe = np.vstack([vectors, mean / max(float(np.linalg.norm(mean)), 1e-9)])
    per_query = max(CANDIDATES_PER_K * k, MIN_CANDIDATES)
    budget: int | None = FETCH_PER_K * k
    hits = None
    while True:
        if hits is None:
            ids, distances = store.nearest(probe, per_query)
            n = len(vectors)
            hits = retrieval.Hits.collect(ids[:n], distances[:n], per_query, extra_ids=ids[n:])
        scores, left_out = _complete_scores(store, hits, vectors, weights, k, budget)
        # exact unless a candidate was left unscored or an example without any returned
        # record (score <= unseen_bound) could still reach the top k
        if not left_out and hits.unseen_bound(weights) < retrieval.kth_best(scores, k):
            break
        if budget is None:
            break
        total = store.record_count()
        if total > EXACT_RECORDS:
            break               # a large store: the best of the candidates scored
        budget = None           # a small store: search it exhaustively
        if total > per_query:
            per_query, hits = total, None
    top = retrieval.top_k_ascending(scores, k)
    seen = dict(zip(hits.ids, hits.seen, strict=False))
    examples = store.examples_by_primary([primary_id(seen[eid]) for eid, _ in top])
    return [(examples[eid], score) for eid, score in top if eid in examples]


def _complete_scores(store: Records, hits: retrieval.Hits, vectors: np.ndarray,
                     weights: np.ndarray, k: int,
                     budget: int | None) -> tuple[dict[str, float], int]:
    """Exact scores of the examples hit for every utterance, and of the others (best upper
    bound first) while their bound can still reach the top k: from cached key vectors, or
    fetched in one call for at most ``budget`` examples (None: no limit). Also returns
    how many candidates that could still reach the top k were left unscored."""
    scores, upper = hits.split(weights)
    if not upper:
        return scores, 0
    seen = dict(zip(hits.ids, hits.seen, strict=False))
    siblings = {eid: RecordId.parse(seen[eid]).siblings() for eid in upper}
    cached = [eid for eid in upper if store.has_key_vectors(siblings[eid])]
    scores.update(_exact_scores(store, cached, siblings, vectors, weights))
    bar = retrieval.kth_best(scores, k)
    wanted = sorted((eid for eid in upper if upper[eid] >= bar and eid not in scores),
                    key=lambda eid: -upper[eid])
    fetch = wanted if budget is None else wanted[:budget]
    if fetch:
        store.fetch_key_vectors([rid for eid in fetch for rid in siblings[eid]])
        scores.update(_exact_scores(store, fetch, siblings, vectors, weights))
    bar = retrieval.kth_best(scores, k)
    return scores, sum(1 for eid in wanted[len(fetch):] if upper[eid] >= bar)


def _exact_scores(store: Records, example_ids: Sequence[str],
                  siblings: Mapping[str, list[str]], vectors: np.ndarray,
                  weights: np.ndarray) -> dict[str, float]:
    """Scores from the cached key vectors of the examples."""
    keys = {}
    for eid in example_ids:
        rows = store.key_vectors(siblings[eid])
        if rows:
            keys[eid] = rows
    return retrieval.score_examples(vectors, weights, keys)


Strategy = Callable[[Records, list[str], int, float], list[tuple[Example, float]]]
STRATEGIES: dict[Scoring, Strategy] = {Scoring.REFERENCE: reference,
                                       Scoring.PER_UTTERANCE: per_utterance}

__all__ = ["Scoring", "Records", "STRATEGIES", "reference", "per_utterance", "EXACT_RECORDS",
           "CANDIDATES_PER_K", "MIN_CANDIDATES", "FETCH_PER_K"]

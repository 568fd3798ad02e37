"""Scoring of stored examples against the latest user utterances (pure numpy, no I/O).

An example is indexed under each of its user utterances (its keys). For the query
utterances u_0 (newest), u_1, ... with weights w_i = decay**i, two scores are offered
(``memory.scoring``):

    reference (default, the paper's code):
        score(example) = max_j cos(sum_i w_i u_i, key_j(example))
    per_utterance:
        score(example) = sum_i w_i * max_j cos(u_i, key_j(example))

In both an example that matches the newest utterance well beats one that only matches an
older one, and an example with several matching utterances still counts once. The reference
score needs one nearest-records query; per_utterance one per utterance (and candidates
scored from their key vectors). ``bench/memory_latency.py`` measures both.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .records import example_of


def query_utterances(utterances: Sequence[str], count: int) -> list[str]:
    """The latest ``count`` non-empty utterances, NEWEST FIRST (the input has the newest last)."""
    texts = [u for u in utterances if isinstance(u, str) and u.strip()]
    if count <= 0:
        return []
    return list(reversed(texts[-count:]))


def recency_weights(n: int, decay: float) -> np.ndarray:
    """``decay**i`` for i = 0 (newest) .. n-1."""
    return np.power(float(decay), np.arange(n, dtype=np.float64))


def mixed_query(query: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The reference score's query: the unit vector of sum_i w_i u_i."""
    mixed = np.asarray(weights, dtype=np.float32) @ np.asarray(query, dtype=np.float32)
    return mixed / max(float(np.linalg.norm(mixed)), 1e-9)


def score_examples(query: np.ndarray, weights: np.ndarray,
                   keys: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Score each example given the unit query vectors (rows, newest first), their weights
    and, per example id, the unit vectors of all its keys (rows)."""
    items = [(eid, np.asarray(v, dtype=np.float32)) for eid, v in keys.items() if len(v)]
    if not items or not len(query):
        return {}
    matrix = np.concatenate([v for _, v in items])
    starts = np.cumsum([0] + [len(v) for _, v in items[:-1]])
    best = np.maximum.reduceat(matrix @ np.asarray(query, dtype=np.float32).T, starts, axis=0)
    scores = best.astype(np.float64) @ weights
    return {eid: float(s) for (eid, _), s in zip(items, scores, strict=False)}


@dataclass
class Hits:
    """Nearest-record query results, per example.

    ``best[e, i]``: the best similarity of example e to utterance i among the returned
    records, NaN if none of its records was returned for i. A returned record gives the
    EXACT best similarity of its example for that utterance, since every record not returned
    is less similar. ``floor[i]``: the lowest returned similarity for utterance i when its
    list was full (records not returned are at most that similar), -inf when the list held
    every record. ``seen[e]``: one record id of example e."""

    ids: list[str]
    seen: list[str]
    best: np.ndarray
    floor: np.ndarray

    @classmethod
    def collect(cls, ids: Sequence[Sequence[str]], distances: Sequence[Sequence[float]],
                per_query: int, extra_ids: Sequence[Sequence[str]] = ()) -> Hits:
        """From one query per utterance (cosine distances, record ids ``<example>#...``);
        ``extra_ids``: further result lists whose examples become candidates without known
        similarities."""
        n = len(ids)
        index: dict[str, int] = {}
        examples: list[str] = []
        seen: list[str] = []
        rows: list[int] = []
        cols: list[int] = []
        sims: list[float] = []
        floor = np.full(n, -np.inf)
        for i, (row_ids, row_dist) in enumerate(zip(ids, distances, strict=False)):
            for record_id, dist in zip(row_ids, row_dist, strict=False):
                eid = example_of(record_id)
                row = index.get(eid)
                if row is None:
                    row = index[eid] = len(examples)
                    examples.append(eid)
                    seen.append(record_id)
                rows.append(row)
                cols.append(i)
                sims.append(1.0 - float(dist))
            if len(row_ids) >= per_query:
                floor[i] = 1.0 - float(row_dist[-1])
        for row_ids in extra_ids:
            for record_id in row_ids:
                eid = example_of(record_id)
                if eid not in index:
                    index[eid] = len(examples)
                    examples.append(eid)
                    seen.append(record_id)
        best = np.full((len(examples), n), -np.inf)
        if rows:
            np.maximum.at(best, (np.asarray(rows), np.asarray(cols)), np.asarray(sims))
        best[np.isneginf(best)] = np.nan
        return cls(examples, seen, best, floor)

    def split(self, weights: np.ndarray) -> tuple[dict[str, float], dict[str, float]]:
        """(exact scores of the examples hit for every utterance, upper bounds of the others)."""
        if not self.ids:
            return {}, {}
        missing = np.isnan(self.best)
        floor = np.where(np.isfinite(self.floor), self.floor, -1.0)   # -inf: nothing missing
        bounded = np.where(missing, floor[None, :], self.best) @ weights
        complete = ~missing.any(axis=1)
        exact = {eid: float(s) for eid, s, c in zip(self.ids, bounded, complete, strict=False) if c}
        upper = {
            eid: float(s) for eid, s, c in zip(self.ids, bounded, complete, strict=False) if not c
        }
        return exact, upper

    def unseen_bound(self, weights: np.ndarray) -> float:
        """The highest score an example without any returned record can have."""
        return float(self.floor @ weights) if np.isfinite(self.floor).all() else -np.inf


def kth_best(scores: Mapping[str, float], k: int) -> float:
    """The k-th highest score, -inf if there are fewer than k."""
    if k <= 0 or len(scores) < k:
        return -np.inf
    return float(np.partition(np.fromiter(scores.values(), dtype=np.float64), -k)[-k])


def top_k_ascending(scores: Mapping[str, float], k: int) -> list[tuple[str, float]]:
    """The ``k`` best (id, score) pairs, returned with the best LAST. Ties: smaller id wins."""
    if k <= 0:
        return []
    best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
    return best[::-1]

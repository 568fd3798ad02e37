"""The prompt layout of the examples (``memory.order``).

The default, ``seed_block``: every seed example in one fixed order (the most central first,
:func:`seed_block`, within ``memory.seed_tokens``), then the top k LEARNED examples (retrieved
among the non-seed examples only) in the order of ``memory.learned_order``: by default in the
order they were stored, the most similar once more at the end (:func:`learned_order`). The seed
block is the same for every request, so a local model evaluates it once; the lessons after it
are in an order the query does not change either, so their state is prepared when a lesson is
stored, and a request evaluates only its nearest lesson again (issue 26). Once the store holds
more lessons than k, no head of lessons is shared by every request: the head is the seed
block, and a request is shown its nearest lessons within ``memory.tail_tokens``
(:func:`nearest_within`), so the first statement does not grow with the lessons (issue 43:
50 lessons, 10 of them shown in stored order, 33.7 s).

The paper's layout, ``similarity``: the top k over seeds and lessons together, most similar
last. ``stable`` puts those k in a fixed order (:func:`stable_order`), so two retrieved sets
share the prompt up to the first example one of them lacks; ``stable_nearest`` adds the most
similar example once more at the end.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum

import numpy as np

from ..llm.usage import estimate_tokens
from .records import Example


class Order(StrEnum):
    SEED_BLOCK = "seed_block"            # all seeds, fixed; then the top k learned, nearest last
    STABLE_NEAREST = "stable_nearest"    # the fixed order + the most similar again last
    STABLE = "stable"                    # the fixed order only
    SIMILARITY = "similarity"            # most similar last (the paper's)

    @property
    def fixed(self) -> bool:
        """The order starts with the query-independent part."""
        return self is not Order.SIMILARITY


class LearnedOrder(StrEnum):
    """The order of the learned examples after the seed block (``memory.learned_order``)."""

    STORED_NEAREST = "stored_nearest"   # oldest first, then the most similar again last
    SIMILARITY = "similarity"           # most similar last (issue 26's first layout)


def stable_order(examples: Iterable[Example],
                 centrality: Mapping[str, float] | None = None) -> list[Example]:
    """Seed examples first, the most central ones (``centrality`` by origin: those retrieved
    for many requests) first, ties and unknown ones by file name; then the others (learned,
    ...) oldest first. The order does not depend on the query, so two retrieved sets share
    the prompt up to the first example one of them lacks, and a local model's state for it
    is reused; central examples first make that shared part long. The newest lessons come
    last, nearest to the current interaction."""
    centrality = centrality or {}
    return sorted(examples, key=lambda ex: (0, -centrality.get(ex.origin, 0.0), ex.origin, 0.0,
                                            ex.id) if ex.source == "seed"
                  else (1, 0.0, "", ex.created, ex.id))


def seed_centrality(keys: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Per seed example (by origin): the mean over the other seed examples of the best cosine
    between their index keys (unit rows). Examples like many others are retrieved often."""
    names = list(keys)
    out = {}
    for name in names:
        others = [float(np.max(keys[name] @ keys[o].T)) for o in names if o != name]
        out[name] = float(np.mean(others)) if others else 0.0
    return out


def seed_block(seeds: Iterable[Example], centrality: Mapping[str, float] | None,
               budget: int, size: Callable[[str], int] = estimate_tokens) -> list[Example]:
    """The seed examples of every prompt: in :func:`stable_order` (the most central first),
    those that fit into ``budget`` tokens (``size`` of their transcripts) taken most central
    first, a seed that does not fit skipped. Query-independent: never a per-request choice."""
    block, used = [], 0
    for example in stable_order(seeds, centrality):
        cost = size(example.transcript)
        if used + cost <= budget:
            block.append(example)
            used += cost
    return block


def learned_order(found: Sequence[Example], order: LearnedOrder) -> list[Example]:
    """The retrieved learned examples (``found``: most similar last) in the prompt's ``order``.

    ``stored_nearest``: oldest first (:func:`stable_order`), then the most similar one again
    unless it is last already. Every request that retrieves the same lessons shares the prompt
    up to that repeat, so what a request evaluates after the prepared state is one lesson and
    the interaction, not every lesson (measured: three lessons in similarity order, 10.8 s to
    the first statement), and the nearest lesson is still the one right before the
    interaction, as the paper has it."""
    if order is LearnedOrder.SIMILARITY or not found:
        return list(found)
    ordered = stable_order(found)
    return ordered if ordered[-1].id == found[-1].id else ordered + [found[-1]]


def nearest_within(texts: Sequence[str], learned: Sequence[bool], budget: int,
                   size: Callable[[str], int] = estimate_tokens) -> tuple[list[str], list[bool]]:
    """The prompt's examples (``texts``, the lessons most similar last; ``learned`` marks
    them) with the seeds and, of the lessons, the nearest and those right before it while all
    fit into ``budget`` tokens (``size``): the part of a request's prompt after the prefilled
    head once the store holds more lessons than the head (``memory.tail_tokens``)."""
    keep = [not mine for mine in learned]
    used = 0
    for i in reversed(range(len(texts))):
        if not learned[i]:
            continue
        cost = size(texts[i])
        if used and used + cost > budget:
            break
        keep[i], used = True, used + cost
    return ([t for t, k in zip(texts, keep, strict=True) if k],
            [m for m, k in zip(learned, keep, strict=True) if k])


def prompt_order(found: Sequence[Example], order: Order,
                 centrality: Mapping[str, float] | None = None) -> list[Example]:
    """The retrieved examples (``found``: most similar last) in the prompt's ``order``."""
    if order is Order.SIMILARITY or not found:
        return list(found)
    ordered = stable_order(found, centrality)
    return ordered + list(found[-1:]) if order is Order.STABLE_NEAREST else ordered


__all__ = ["Order", "LearnedOrder", "stable_order", "seed_centrality", "seed_block",
           "learned_order", "nearest_within", "prompt_order"]

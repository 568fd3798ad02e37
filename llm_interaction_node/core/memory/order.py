"""The prompt order of retrieved examples (``memory.order``).

The paper puts the retrieved examples in similarity order, the most similar last. A fixed
order (:func:`stable_order`) does not depend on the query, so two retrieved sets share the
prompt up to the first example one of them lacks and a local model's evaluated state for it
is reused; ``stable_nearest`` adds the most similar example once more at the end, so the
nearest one still comes right before the interaction.
"""
from __future__ import annotations

from enum import StrEnum
from typing import Iterable, Mapping, Sequence

import numpy as np

from .records import Example


class Order(StrEnum):
    STABLE_NEAREST = "stable_nearest"    # the fixed order + the most similar again last
    STABLE = "stable"                    # the fixed order only
    SIMILARITY = "similarity"            # most similar last (the paper's)

    @property
    def fixed(self) -> bool:
        """The order starts with the query-independent part."""
        return self is not Order.SIMILARITY


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


def prompt_order(found: Sequence[Example], order: Order,
                 centrality: Mapping[str, float] | None = None) -> list[Example]:
    """The retrieved examples (``found``: most similar last) in the prompt's ``order``."""
    if order is Order.SIMILARITY or not found:
        return list(found)
    ordered = stable_order(found, centrality)
    return ordered + list(found[-1:]) if order is Order.STABLE_NEAREST else ordered


__all__ = ["Order", "stable_order", "seed_centrality", "prompt_order"]

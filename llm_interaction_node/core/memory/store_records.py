"""The records' I/O the retrieval strategies call on the example store
(:class:`.strategies.Records`), with its caches of key vectors and examples:
:class:`StrategyRecords`, a base of :class:`.store.ExampleMemory`, which holds the
collection and the caches."""
from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from .records import Example, example_from_metadata

VECTOR_CACHE_SIZE = 20000       # stored key vectors kept (records are immutable: ids carry a
EXAMPLE_CACHE_SIZE = 2000       # digest of the transcript) ... and examples


class StrategyRecords:
    """The stored records as the strategies read them, over ``collection`` and the caches
    ``_count_cache``, ``_vectors``, ``_example_cache`` of :class:`.store.ExampleMemory`."""

    # ------------------------------------ I/O for the strategies (lock held; .strategies.Records)
    def nearest(self, probe, n: int) -> tuple[list[list[str]], list[list[float]]]:
        """Ids and cosine distances of the ``n`` records nearest to each probe vector."""
        result = self.collection.query(query_embeddings=probe, n_results=n,
                                       include=["distances"])
        return result["ids"], result["distances"]

    def record_count(self) -> int:
        """collection.count(), reused for a second (it only decides exact vs. candidate search)."""
        now = time.monotonic()
        if self._count_cache is None or now - self._count_cache[0] > 1.0:
            self._count_cache = (now, self.collection.count())
        return self._count_cache[1]

    def has_key_vectors(self, record_ids: Sequence[str]) -> bool:
        """Whether the key vectors of all these records are cached."""
        return all(rid in self._vectors for rid in record_ids)

    def key_vectors(self, record_ids: Sequence[str]) -> list[np.ndarray]:
        """The cached key vectors among these records (most recently used kept longest)."""
        rows = []
        for rid in record_ids:
            vec = self._vectors.get(rid)
            if vec is not None:
                self._vectors.move_to_end(rid)
                rows.append(vec)
        return rows

    def fetch_key_vectors(self, record_ids: Sequence[str]) -> None:
        """Read these records' key vectors into the cache."""
        for start in range(0, len(record_ids), self.max_batch_size):
            got = self.collection.get(ids=list(record_ids[start:start + self.max_batch_size]),
                                      include=["embeddings"])
            for rid, vec in zip(got["ids"], got["embeddings"], strict=False):
                self._vectors[rid] = np.asarray(vec, dtype=np.float32)
        while len(self._vectors) > VECTOR_CACHE_SIZE:
            self._vectors.popitem(last=False)

    def examples_by_primary(self, primary_ids: Sequence[str]) -> dict[str, Example]:
        """Examples by id from their primary record ids (cached: records never change)."""
        missing = [rid for rid in primary_ids if rid not in self._example_cache]
        if missing:
            got = self.collection.get(ids=missing, include=["metadatas"])
            for rid, meta in zip(got["ids"], got["metadatas"], strict=False):
                self._example_cache[rid] = example_from_metadata(meta)
        out = {}
        for rid in primary_ids:
            if rid in self._example_cache:
                self._example_cache.move_to_end(rid)
                example = self._example_cache[rid]
                out[example.id] = example
        while len(self._example_cache) > EXAMPLE_CACHE_SIZE:
            self._example_cache.popitem(last=False)
        return out

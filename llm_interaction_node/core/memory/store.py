"""The example memory M: console transcripts in ChromaDB, retrieved by user utterances.

This module is the store's Chroma I/O with its caches; the pieces it uses are each in a
module of their own: opening Chroma and its outages (:mod:`.connection`), the records' format
and the making of an Example (:mod:`.records`), the retrieval strategies (:mod:`.strategies`,
scores in :mod:`.retrieval`; the records' I/O for them: :mod:`.store_records`), the prompt
order (:mod:`.order`), seed and YAML files (:mod:`.interchange`).

Layout (one Chroma collection per API set, ``examples_<api>``, cosine space):

* every example is stored as ``n`` records, one per index key: its distinct user utterances
  (what ``wait_for_trigger()``/``ask()`` returned in the transcript) or, if it has none, its
  first statement. The record's document is the key, its embedding the key's MiniLM vector;
  ids and metadata as :mod:`.records` describes.
* all records of an example are written by ONE ``collection.add`` call. Chroma appends
  that call's records to its write-ahead log (the ``embeddings_queue`` table of its SQLite
  file) in one transaction, so after a crash an example is either fully there or absent
  (``test/test_memory_server.py`` kills writers with SIGKILL to check this).

With ``MemoryConfig.host`` set, the same layout lives on a Chroma server
(``chroma run --path DIR --port P``) so several robots share what they learned.
"""
from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from . import interchange, retrieval
from .config import MemoryConfig
from .connection import (
    _TRANSPORT_ERRORS,
    MemoryServerUnreachable,
    MemoryStoreError,
    connect,
    server_errors,
)
from .fleet import Provenance
from .order import LearnedOrder, Order, learned_order, prompt_order, seed_centrality, stable_order
from .order import seed_block as choose_seed_block
from .records import (
    LESSONS,
    NOT_PROMPTED,
    Example,
    RecordId,
    check_source,
    collection_name,
    digest,
    example_from_metadata,
    new_example,
    record_metadata,
    sibling_ids,
)
from .store_records import (  # noqa: F401 - importable from here too
    EXAMPLE_CACHE_SIZE,
    VECTOR_CACHE_SIZE,
    StrategyRecords,
)
from .strategies import STRATEGIES

QUERY_CACHE_SIZE = 256          # query utterance embeddings kept per ExampleMemory

Embedder = Callable[[list[str]], np.ndarray]


def _locked(method):
    """Run the method under the memory's lock: writers (learning, the memory service) and
    readers (retrieval in the agent's thread) share the collection and the caches. Server
    outages become MemoryServerUnreachable (:func:`.connection.server_errors`)."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return server_errors(run)


class ExampleMemory(StrategyRecords):
    """Example transcripts of one API set, indexed by the user utterances they contain.

    Thread-safe: every public operation on the collection or the caches holds one RLock
    (re-entrant: forget() deletes, seed_from() lists and writes under the same lock)."""

    def __init__(self, api: str, config: MemoryConfig | None = None, *,
                 embedder: Embedder | None = None, provenance: Provenance | None = None,
                 later: bool = False, on_open: Callable[[ExampleMemory], object] | None = None):
        self.api = api
        self.config = config or MemoryConfig()
        self.name = collection_name(api)
        self._embedder = embedder
        self.provenance = provenance       # stamped on each lesson (.fleet)
        self._on_open = on_open
        self._max_batch: int | None = None
        self._query_cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._example_cache: OrderedDict[str, Example] = OrderedDict()
        self._count_cache: tuple[float, int] | None = None
        self._centrality: tuple[tuple, list[Example], dict[str, float]] | None = None
        self._seed_block: tuple[tuple, list[Example]] | None = None
        self._lock = threading.RLock()
        self.client, self._collection = None, None
        self.location = f"chroma server {self.config.host}:{self.config.port}" \
            if self.config.host else str(Path(self.config.path).expanduser())
        self.error: MemoryServerUnreachable | None = None    # why it is not open (later)
        try:
            self._open()
        except MemoryServerUnreachable as exc:
            if not (later and self.config.host):
                raise
            # a fleet's server that is down when the robot starts (issue 61): every use
            # connects again, and raises MemoryServerUnreachable until it answers
            self.error = exc

    def __repr__(self) -> str:
        return f"ExampleMemory({self.api!r}, {self.location})"

    def _open(self) -> None:
        """Connect and open this API's collection (then ``on_open``, once)."""
        from .embedding import MiniLMEmbedding  # registers the embedding function by name

        client, self.location = connect(self.config)
        try:
            collection = client.get_or_create_collection(
                self.name, embedding_function=MiniLMEmbedding(),
                configuration={"hnsw": {"space": "cosine"}})
        except MemoryStoreError:
            raise
        except _TRANSPORT_ERRORS as exc:
            raise MemoryServerUnreachable(f"the Chroma server at {self.location} does not "
                                          f"answer ({type(exc).__name__}: {exc})") from exc
        except Exception as exc:  # noqa: BLE001
            raise MemoryStoreError(f"cannot open collection {self.name} at {self.location}: "
                                   f"{exc}") from exc
        self.client, self._collection = client, collection
        if self._on_open is not None:
            opened, self._on_open = self._on_open, None
            opened(self)

    @property
    def collection(self):
        """The Chroma collection; a server that was down when the memory was made (``later``)
        is connected to at the first use after it answers (MemoryServerUnreachable until
        then)."""
        if self._collection is None:
            with self._lock:
                if self._collection is None:
                    self._open()
        return self._collection

    @property
    def connected(self) -> bool:
        """Whether the collection has been opened (a server down since the start: not yet)."""
        return self._collection is not None

    # ---------------------------------------------------------------- embedding / batches
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._embedder is not None:
            return np.asarray(self._embedder(list(texts)), dtype=np.float32)
        from .embedding import embed
        return embed(list(texts))

    @property
    @_locked
    def max_batch_size(self) -> int:
        if self._max_batch is None:
            try:
                self._max_batch = int(self.client.get_max_batch_size())
            except Exception:  # noqa: BLE001 - older servers
                self._max_batch = 5000
        return self._max_batch

    # ---------------------------------------------------------------- writing
    @_locked
    def add(self, transcript: str, source: str, origin: str = "", problem: str | None = None,
            improvement: str | None = None, reading: str | None = None,
            author: str | None = None, scope: str | None = None,
            edit: str | None = None) -> Example:
        """Store one example; it is indexed under every user utterance it contains."""
        example = self.make_example(transcript, source, origin, problem, improvement,
                                    reading=reading, author=author, scope=scope, edit=edit)
        self.write([example])
        return example

    def make_example(self, transcript: str, source: str, origin: str = "",
                     problem: str | None = None, improvement: str | None = None,
                     example_id: str | None = None, created: float | None = None,
                     reading: str | None = None, author: str | None = None,
                     scope: str | None = None, edit: str | None = None) -> Example:
        """:func:`.records.new_example`: an Example (not stored yet) with the transcript
        normalised and its keys found; a lesson (a source of ``LESSONS``) made with a
        ``provenance`` records the robot, its world and the names of that world it uses
        (:mod:`.fleet`)."""
        robot = world = None
        needs: tuple[str, ...] = ()
        if self.provenance is not None and source in LESSONS:
            robot, world = self.provenance.robot, self.provenance.world
            needs = self.provenance.needs(transcript, edit)
        return new_example(transcript, source, origin, problem, improvement, example_id,
                           created, reading, author, scope, edit, robot=robot, world=world,
                           needs=needs)

    @_locked
    def write(self, examples: Sequence[Example], vectors: np.ndarray | None = None) -> None:
        """Store prepared examples. Each chroma ``add`` call holds whole examples only (one
        call per example unless several fit into one batch), so none is ever half-written.
        ``vectors``: optional precomputed key embeddings, rows in the order of the keys."""
        if not examples:
            return
        all_keys = [key for ex in examples for key in ex.keys]
        if vectors is None:
            unique = list(dict.fromkeys(all_keys))
            table = dict(zip(unique, self.embed(unique), strict=False))
            vectors = np.stack([table[key] for key in all_keys])
        if len(vectors) != len(all_keys):
            raise ValueError("one vector per index key is needed")
        batch: dict[str, list] = {"ids": [], "embeddings": [], "documents": [], "metadatas": []}
        row = 0
        for ex in examples:
            n = len(ex.keys)
            if n > self.max_batch_size:
                raise ValueError(f"example {ex.id} has {n} index keys, more than chroma's "
                                 f"batch limit {self.max_batch_size}")
            if len(batch["ids"]) + n > self.max_batch_size:
                self._add(batch)
                batch = {key: [] for key in batch}
            ex_digest = digest(ex.transcript)
            for rec, key in enumerate(ex.keys):
                batch["ids"].append(str(RecordId(ex.id, rec, n, ex_digest[:8])))
                batch["embeddings"].append(vectors[row])
                batch["documents"].append(key)
                batch["metadatas"].append(record_metadata(ex, rec, ex_digest))
                row += 1
        self._add(batch)

    def _add(self, batch: dict[str, list]) -> None:
        if batch["ids"]:
            self.collection.add(ids=batch["ids"], embeddings=np.asarray(batch["embeddings"]),
                                documents=batch["documents"], metadatas=batch["metadatas"])

    # ---------------------------------------------------------------- reading
    def _primaries(self, example_ids: Sequence[str], include: list[str]) -> dict:
        """The primary records of the given examples (missing ones are left out)."""
        out: dict[str, list] = {"ids": [], "metadatas": []}
        ids = list(dict.fromkeys(example_ids))
        for start in range(0, len(ids), 1000):
            chunk = ids[start:start + 1000]
            where = {"$and": [{"rec": 0}, {"example_id": {"$in": chunk}}]} if len(chunk) > 1 \
                else {"$and": [{"rec": 0}, {"example_id": chunk[0]}]}
            got = self.collection.get(where=where, include=include)
            out["ids"] += got["ids"]
            out["metadatas"] += got["metadatas"] or [None] * len(got["ids"])
        return out

    @_locked
    def get(self, example_id: str) -> Example:
        found = self._primaries([str(example_id)], ["metadatas"])
        if not found["ids"]:
            raise KeyError(f"no example with id {example_id!r} in {self.name} "
                           f"at {self.location}")
        return example_from_metadata(found["metadatas"][0])

    @_locked
    def has(self, example_id: str) -> bool:
        return bool(self._primaries([str(example_id)], [])["ids"])

    @_locked
    def present(self, example_ids: Sequence[str]) -> set[str]:
        """Which of these examples are stored."""
        ids = [str(e) for e in example_ids]
        return {RecordId.parse(rid).example_id for rid in self._primaries(ids, [])["ids"]} \
            if ids else set()

    @staticmethod
    def _primary_filter(source: str | tuple[str, ...] | None) -> dict:
        if source is None:
            return {"rec": 0}
        if isinstance(source, tuple):
            return {"$and": [{"rec": 0}, {"source": {"$in": [check_source(s) for s in source]}}]}
        return {"$and": [{"rec": 0}, {"source": check_source(source)}]}

    @_locked
    def list(self, source: str | None = None) -> list[Example]:
        """All examples (optionally of one source), oldest first."""
        found = self.collection.get(where=self._primary_filter(source), include=["metadatas"])
        examples = [example_from_metadata(meta) for meta in found["metadatas"]]
        return sorted(examples, key=lambda ex: (ex.created, ex.id))

    @_locked
    def count(self, source: str | tuple[str, ...] | None = None) -> int:
        """How many examples (of one source, or of any of a tuple of sources)."""
        return len(self.collection.get(where=self._primary_filter(source), include=[])["ids"])

    def __len__(self) -> int:
        return self.count()

    @_locked
    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of query utterances, with a small cache: during an interaction the
        older utterances of the query window were embedded by the previous retrieval."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._query_cache]
        if missing:
            for text, vec in zip(missing, self.embed(missing), strict=False):
                self._query_cache[text] = vec
        for text in texts:
            self._query_cache.move_to_end(text)
        while len(self._query_cache) > QUERY_CACHE_SIZE:
            self._query_cache.popitem(last=False)
        return np.stack([self._query_cache[t] for t in texts])

    @server_errors
    def retrieve(
        self, utterances: Sequence[str], k: int | None = None
    ) -> list[tuple[Example, float]]:
        """The top-k unique examples for the latest utterances (newest = last element),
        sorted by score ASCENDING: the most similar example comes LAST. Scored and searched
        by the strategy of ``config.scoring`` (:mod:`.strategies`)."""
        k = self.config.k if k is None else int(k)
        query = retrieval.query_utterances(utterances, self.config.query_utterances)
        if k <= 0 or not query:
            return []
        strategy = STRATEGIES[self.config.scoring]
        with self._lock:                # the caches are shared by the calling threads
            return strategy(self, query, k, self.config.recency_decay)

    @server_errors
    def prompt_examples(self, utterances: Sequence[str], k: int | None = None,
                        beyond: bool | None = None) -> list[Example]:
        """The examples for the prompt, in the configured layout (``config.order``).

        ``seed_block`` (the default): :meth:`seed_block`, then the top k learned examples
        (:meth:`retrieve_learned`) in ``config.learned_order`` (:func:`.order.learned_order`:
        by default oldest first, the most similar again last). ``similarity`` (the paper's),
        ``stable`` and ``stable_nearest``: the top k of the whole store, in that order
        (:func:`.order.prompt_order`).

        With no utterance yet (the start-up prefill of a local model, and its prefill after a
        lesson was stored): the head that does not depend on the query. ``seed_block``: the
        seed block, which every request's prompt starts with, and with ``stored_nearest`` the
        first k learned examples in the order they were stored (every lesson while there are
        at most k; none beyond, :meth:`beyond_head`), so a model that evaluated it before
        the user spoke evaluates only the nearest lesson again and the interaction.
        ``stable``/``stable_nearest``: the first k
        examples of the whole store in :func:`.order.stable_order`, which a request's prompt
        shares up to the first of them it did not retrieve. ``similarity``: []. Either way the
        embedding model is loaded now, not when the user has spoken.

        ``beyond``: :meth:`beyond_head` for this k where the caller asked it already (the
        example source asks once per request and reads it too: each asking counts the
        store twice); None: asked here where the layout needs it."""
        k = self.config.k if k is None else int(k)
        order = self.config.order
        if not retrieval.query_utterances(utterances, self.config.query_utterances):
            self.embed_query(["warm up the embedding model"])   # the first request is on time
            if order is Order.SEED_BLOCK:
                return self.seed_block() + self.learned_head(k, beyond)
            if k <= 0 or not order.fixed:
                return []
            return stable_order(self.list(), self.seed_centrality())[:k]
        if order is Order.SEED_BLOCK:
            found = self.retrieve_learned(utterances, k)
            if self.beyond_head(k) if beyond is None else beyond:
                return self.seed_block() + found  # the source keeps the nearest within tail_tokens
            return self.seed_block() + learned_order(found, self.config.learned_order)
        found = [example for example, _score in self.retrieve(utterances, k)
                 if example.source != "habit"]
        return prompt_order(found, order, self.seed_centrality()
                            if order.fixed and found else None)

    @server_errors
    def retrieve_learned(self, utterances: Sequence[str], k: int | None = None) -> list[Example]:
        """The top-k non-seed examples (learned, raw, episodes) for the utterances, scored as
        :meth:`retrieve` scores, most similar LAST. Exact: they are the non-seed ones among the
        top k + (number of seeds) of the whole store."""
        k = self.config.k if k is None else int(k)
        if k <= 0:
            return []
        with self._lock:
            seeds = len(self._seed_set()[1])
        n = k + seeds
        while True:     # habits are never shown: retrieve past them (none: one retrieval)
            found = self.retrieve(utterances, n)
            shown = [ex for ex, _score in found if ex.source not in NOT_PROMPTED]
            hidden = sum(ex.source == "habit" for ex, _score in found)
            if len(shown) >= k or len(found) < n or not hidden:
                return shown[-k:]
            n += hidden

    def learned_head(self, k: int | None = None, beyond: bool | None = None) -> list[Example]:
        """The learned examples every ``seed_block`` prompt starts its lessons with, whatever
        the query (``learned_order`` ``stored_nearest``): the first k non-seed examples in the
        order they were stored; none with ``similarity``. ``beyond``: as
        :meth:`prompt_examples` takes it."""
        k = self.config.k if k is None else int(k)
        if k <= 0 or self.config.learned_order is LearnedOrder.SIMILARITY or \
                (self.beyond_head(k) if beyond is None else beyond):
            return []
        return stable_order(ex for ex in self.list() if ex.source not in NOT_PROMPTED)[:k]

    def beyond_head(self, k: int | None = None) -> bool:
        """More lessons stored than the head every request shares holds (k; layout
        ``seed_block`` with ``stored_nearest``, ``tail_tokens`` > 0): the head is then the seed
        block alone, and a request's prompt its top k lessons, most similar last, of which
        the example source shows the nearest within ``tail_tokens``
        (:func:`.order.nearest_within`)."""
        k = self.config.k if k is None else int(k)
        config = self.config
        if config.order is not Order.SEED_BLOCK or k <= 0 or config.tail_tokens <= 0 or \
                config.learned_order is not LearnedOrder.STORED_NEAREST:
            return False
        return self.count() - self.count(NOT_PROMPTED) > k

    @_locked
    def seed_block(self) -> list[Example]:
        """:func:`.order.seed_block` of the stored seed examples (``config.seed_tokens``):
        the seed examples every prompt of the ``seed_block`` layout starts with."""
        signature, seeds, centrality = self._seed_set()
        budget = self.config.seed_tokens
        if self._seed_block is None or self._seed_block[0] != (signature, budget):
            self._seed_block = ((signature, budget), choose_seed_block(seeds, centrality, budget))
        return list(self._seed_block[1])

    @_locked
    def seed_centrality(self) -> dict[str, float]:
        """:func:`seed_centrality` of the seed examples, recomputed when the seed set changes."""
        return self._seed_set()[2]

    def _seed_set(self) -> tuple[tuple, list[Example], dict[str, float]]:
        """(signature, seed examples, centrality), read again when the seed set changed
        (lock held)."""
        # called per prompt: ids alone tell whether the seed set changed; vectors only then
        ids = self.collection.get(where={"source": "seed"}, include=[])["ids"]
        signature = tuple(sorted(ids))
        if self._centrality is None or self._centrality[0] != signature:
            found = self.collection.get(ids=list(ids), include=["embeddings", "metadatas"]) \
                if ids else {"embeddings": [], "metadatas": []}
            keys: dict[str, list] = {}
            primaries = {}
            for vec, meta in zip(found["embeddings"], found["metadatas"], strict=False):
                keys.setdefault(meta["example_id"], []).append(vec)
                if meta.get("rec") == 0:
                    primaries[meta["example_id"]] = example_from_metadata(meta)
            by_origin = {primaries[e].origin: np.asarray(v, dtype=np.float32)
                         for e, v in keys.items() if e in primaries}
            seeds = sorted(primaries.values(), key=lambda ex: (ex.created, ex.id))
            self._centrality = (signature, seeds, seed_centrality(by_origin))
        return self._centrality

    # ---------------------------------------------------------------- removing
    @_locked
    def delete(self, example_ids: Iterable[str]) -> int:
        """Remove examples (all their records, in one call per example batch); returns how
        many of them existed."""
        wanted = [str(e) for e in dict.fromkeys(example_ids)]
        if not wanted:
            return 0
        found = self._primaries(wanted, [])
        record_ids = []
        for rid in found["ids"]:
            record_ids += sibling_ids(rid)
        for start in range(0, len(record_ids), self.max_batch_size):
            self.collection.delete(ids=record_ids[start:start + self.max_batch_size])
        return len(found["ids"])

    @_locked
    def forget(
        self, topic: str, threshold: float = 0.5, include_seed: bool = False
    ) -> list[Example]:
        """Remove the learned (and raw/episode) examples about ``topic``: those whose index
        keys, problem or improvement have cosine similarity >= threshold to the topic. Seed
        examples only with ``include_seed``. Returns the removed examples."""
        if not isinstance(topic, str) or not topic.strip():
            raise ValueError("forget needs a non-empty topic")
        where = None if include_seed else {"source": {"$ne": "seed"}}
        records = self.collection.get(where=where, include=["embeddings", "metadatas"])
        if not records["ids"]:
            return []
        topic_vec = self.embed([topic])[0]
        best: dict[str, float] = {}
        primaries: dict[str, Example] = {}
        for vec, meta in zip(records["embeddings"], records["metadatas"], strict=False):
            eid = meta["example_id"]
            best[eid] = max(best.get(eid, -1.0), float(np.dot(vec, topic_vec)))
            if meta["rec"] == 0:
                primaries[eid] = example_from_metadata(meta)
        texts = [(ex.id, t) for ex in primaries.values() for t in (ex.problem, ex.improvement) if t]
        if texts:
            sims = self.embed([t for _, t in texts]) @ topic_vec
            for (eid, _), sim in zip(texts, sims, strict=False):
                best[eid] = max(best[eid], float(sim))
        doomed = [
            primaries[eid] for eid, sim in best.items() if sim >= threshold and eid in primaries
        ]
        self.delete(ex.id for ex in doomed)
        return sorted(doomed, key=lambda ex: (ex.created, ex.id))

    @_locked
    def reset(self) -> None:
        """Empty this API's store (the collection itself stays, so other handles keep working)."""
        while True:
            ids = self.collection.get(limit=self.max_batch_size, include=[])["ids"]
            if not ids:
                return
            self.collection.delete(ids=ids)

    # ---------------------------------------------------------------- files
    @_locked
    def seed_from(self, directory: str | Path) -> int:
        """:func:`.interchange.seed_from`: add the seed transcripts of ``directory`` not
        stored yet; returns how many."""
        return interchange.seed_from(self, directory)

    @_locked
    def export_yaml(self, path: str | Path, sources: Sequence[str] | None = None) -> int:
        """:func:`.interchange.export_yaml` (``sources``: only these); returns how many."""
        return interchange.export_yaml(self, path, sources)

    @_locked
    def import_yaml(self, path: str | Path) -> int:
        """:func:`.interchange.import_yaml`: add the file's examples not present; how many."""
        return interchange.import_yaml(self, path)

"""The example memory M: console transcripts in ChromaDB, retrieved by user utterances.

Layout (one Chroma collection per API set, ``examples_<api>``, cosine space):

* every example is stored as ``n`` records, one per index key: its distinct user utterances
  (what ``wait_for_trigger()``/``ask()`` returned in the transcript) or, if it has none, its
  first statement. The record's document is the key, its embedding the key's MiniLM vector.
* record ids are ``<example id>#<j>/<n>/<tag>`` (j = 0..n-1, tag = the first 8 hex digits
  of the transcript's sha1), so a query that returns only ids and distances already tells
  which example a hit belongs to and which other records it has, and a record id always
  names the same content (the process-local caches rely on that). Record 0, the PRIMARY record, carries all fields (transcript, origin, problem,
  improvement, utterances); every record carries ``example_id``, ``source``, ``rec`` (= j),
  ``n_rec``, ``created`` and ``digest`` (sha1 of the transcript), so a partial example
  would be detectable.
* all records of an example are written by ONE ``collection.add`` call. Chroma appends
  that call's records to its write-ahead log (the ``embeddings_queue`` table of its SQLite
  file) in one transaction, so after a crash an example is either fully there or absent
  (``test/test_memory_server.py`` kills writers with SIGKILL to check this).

With ``MemoryConfig.host`` set, the same layout lives on a Chroma server
(``chroma run --path DIR --port P``) so several robots share what they learned.
"""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ..transcript import Transcript
from . import retrieval
from .config import MemoryConfig

log = logging.getLogger(__name__)

SOURCES = ("seed", "learned", "corrected", "raw", "episode")
COLLECTION_PREFIX = "examples_"
QUERY_CACHE_SIZE = 256          # query utterance embeddings kept per ExampleMemory
VECTOR_CACHE_SIZE = 20000       # stored key vectors kept (records are immutable: ids carry a
EXAMPLE_CACHE_SIZE = 2000       # digest of the transcript) ... and examples
EXACT_RECORDS = 1000            # stores up to this many records: exact top k always
CANDIDATES_PER_K = 8            # nearest records asked for per utterance: this many per k,
MIN_CANDIDATES = 32             # at least this many
FETCH_PER_K = 4                 # large stores: key vectors of at most this many examples per k
                                # are fetched per retrieval (the rest is cached or bounded out)

Embedder = Callable[[list[str]], np.ndarray]


class MemoryStoreError(RuntimeError):
    """The example memory cannot be opened or used."""


class MemoryServerUnreachable(MemoryStoreError, ConnectionError):
    """The configured Chroma server does not answer."""


@dataclass
class Example:
    id: str
    transcript: str               # console text as Transcript.render() gives it
    source: str                   # 'seed' | 'learned' | 'corrected' | 'raw' | 'episode'
    origin: str = ""              # seed file name, or the interaction id it was learned from
    problem: str | None = None    # L_improve's one-sentence problem (learned examples)
    improvement: str | None = None
    created: float = 0.0          # unix time
    utterances: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()    # the texts it is indexed under (utterances, else 1st statement)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["utterances"] = list(self.utterances)
        data["keys"] = list(self.keys)
        return data


def collection_name(api: str) -> str:
    """``examples_<api>`` (Chroma names: 3-512 chars of [A-Za-z0-9._-], alphanumeric ends)."""
    if not isinstance(api, str) or not api or not all(c.isalnum() or c in "_-" for c in api) \
            or not api[-1].isalnum():
        raise ValueError(f"API name {api!r} must be letters, digits, '_' or '-', "
                         "ending in a letter or digit")
    return COLLECTION_PREFIX + api


def index_keys(transcript: Transcript) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(distinct user utterances, index keys): the keys are the utterances or, if there are
    none, the first statement (or first input) of the transcript."""
    utterances = tuple(dict.fromkeys(u for u in transcript.user_utterances() if u.strip()))
    if utterances:
        return utterances, utterances
    statements = [s for s in transcript.statements() if s.strip()]
    first = statements[0] if statements else transcript.entries[0].source
    return (), (first,)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def _record_id(example_id: str, rec: int, n_rec: int, tag: str) -> str:
    return f"{example_id}#{rec}/{n_rec}/{tag}"


def _parse_record_id(record_id: str) -> tuple[str, int, int, str]:
    """(example id, rec, n_rec, tag) of a record id."""
    example_id, _, tail = record_id.rpartition("#")
    rec, n_rec, tag = tail.split("/")
    return example_id, int(rec), int(n_rec), tag


def _sibling_ids(record_id: str) -> list[str]:
    """All record ids of the example that owns ``record_id``."""
    example_id, _, n_rec, tag = _parse_record_id(record_id)
    return [_record_id(example_id, j, n_rec, tag) for j in range(n_rec)]


def _check_id(example_id: str) -> str:
    if not isinstance(example_id, str) or not example_id \
            or not all(c.isalnum() or c in "-_." for c in example_id):
        raise ValueError(f"bad example id {example_id!r} (letters, digits, '-', '_', '.')")
    return example_id


def _transport_errors() -> tuple[type[BaseException], ...]:
    """What the Chroma HTTP client raises when its server does not answer (httpx wraps most
    httpcore errors, not all)."""
    errors: list[type[BaseException]] = [ConnectionError]
    try:
        import httpx
        errors.append(httpx.TransportError)
    except ImportError:
        pass
    try:
        import httpcore
        errors += [httpcore.NetworkError, httpcore.TimeoutException]
    except ImportError:
        pass
    return tuple(errors)


_TRANSPORT_ERRORS = _transport_errors()


def _server_errors(method):
    """A Chroma server that stopped answering is a MemoryServerUnreachable (a
    ConnectionError), so callers can go on without the memory instead of failing."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except MemoryServerUnreachable:
            raise
        except _TRANSPORT_ERRORS as exc:
            if not self.config.host:
                raise
            raise MemoryServerUnreachable(
                f"the Chroma server at {self.config.host}:{self.config.port} does not answer "
                f"({type(exc).__name__}: {exc})") from exc
    return run


def _locked(method):
    """Run the method under the memory's lock: writers (learning, the memory service) and
    readers (retrieval in the agent's thread) share the collection and the caches. Server
    outages become MemoryServerUnreachable (:func:`_server_errors`)."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return _server_errors(run)


def _connect(config: MemoryConfig):
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    if config.host:
        try:
            client = chromadb.HttpClient(host=config.host, port=config.port, settings=settings)
            client.heartbeat()
        except Exception as exc:  # noqa: BLE001 - chroma raises ValueError/httpx errors
            raise MemoryServerUnreachable(
                f"cannot reach the Chroma server at {config.host}:{config.port} ({exc}). "
                f"Start one with `chroma run --path DIR --port {config.port}` on that host, "
                "or unset memory.host to use a local store.") from exc
        return client, f"chroma server {config.host}:{config.port}"
    path = Path(config.path).expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
        client = chromadb.PersistentClient(path=str(path), settings=settings)
    except Exception as exc:  # noqa: BLE001
        raise MemoryStoreError(f"cannot open the example memory at {path}: {exc}") from exc
    return client, str(path)


class ExampleMemory:
    """Example transcripts of one API set, indexed by the user utterances they contain.

    Thread-safe: every public operation on the collection or the caches holds one RLock
    (re-entrant: forget() deletes, seed_from() lists and writes under the same lock)."""

    def __init__(self, api: str, config: MemoryConfig | None = None, *,
                 embedder: Embedder | None = None):
        from .embedding import MiniLMEmbedding     # registers the embedding function by name

        self.api = api
        self.config = config or MemoryConfig()
        self.name = collection_name(api)
        self._embedder = embedder
        self.client, self.location = _connect(self.config)
        try:
            self.collection = self.client.get_or_create_collection(
                self.name, embedding_function=MiniLMEmbedding(),
                configuration={"hnsw": {"space": "cosine"}})
        except MemoryStoreError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise MemoryStoreError(f"cannot open collection {self.name} at {self.location}: "
                                   f"{exc}") from exc
        self._max_batch: int | None = None
        self._query_cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._example_cache: OrderedDict[str, Example] = OrderedDict()
        self._count_cache: tuple[float, int] | None = None
        self._centrality: tuple[tuple, dict[str, float]] | None = None
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"ExampleMemory({self.api!r}, {self.location})"

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
            improvement: str | None = None) -> Example:
        """Store one example; it is indexed under every user utterance it contains."""
        example = self.make_example(transcript, source, origin, problem, improvement)
        self.write([example])
        return example

    def make_example(self, transcript: str, source: str, origin: str = "",
                     problem: str | None = None, improvement: str | None = None,
                     example_id: str | None = None, created: float | None = None) -> Example:
        """An Example (not stored yet) with the transcript normalised and its keys found."""
        if source not in SOURCES:
            raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
        if not isinstance(transcript, str):
            raise TypeError("transcript must be console text (str)")
        parsed = Transcript.parse(transcript)
        if not parsed.entries:
            raise ValueError("the transcript holds no console input (lines starting with '>>> ')")
        example_id = _check_id(example_id or uuid.uuid4().hex[:16])
        utterances, keys = index_keys(parsed)
        return Example(id=example_id, transcript=parsed.render(), source=source,
                       origin=str(origin or ""), problem=problem, improvement=improvement,
                       created=round(time.time(), 3) if created is None else float(created),
                       utterances=utterances, keys=keys)

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
            table = dict(zip(unique, self.embed(unique)))
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
            digest = _digest(ex.transcript)
            for rec, key in enumerate(ex.keys):
                meta: dict[str, Any] = {"example_id": ex.id, "source": ex.source, "rec": rec,
                                        "n_rec": n, "digest": digest, "created": ex.created}
                if rec == 0:
                    meta.update(transcript=ex.transcript, origin=ex.origin,
                                utterances=json.dumps(list(ex.utterances)),
                                keys=json.dumps(list(ex.keys)))
                    if ex.problem is not None:
                        meta["problem"] = ex.problem
                    if ex.improvement is not None:
                        meta["improvement"] = ex.improvement
                batch["ids"].append(_record_id(ex.id, rec, n, digest[:8]))
                batch["embeddings"].append(vectors[row])
                batch["documents"].append(key)
                batch["metadatas"].append(meta)
                row += 1
        self._add(batch)

    def _add(self, batch: dict[str, list]) -> None:
        if batch["ids"]:
            self.collection.add(ids=batch["ids"], embeddings=np.asarray(batch["embeddings"]),
                                documents=batch["documents"], metadatas=batch["metadatas"])

    # ---------------------------------------------------------------- reading
    @staticmethod
    def _example(meta: Mapping[str, Any]) -> Example:
        return Example(id=meta["example_id"], transcript=meta.get("transcript", ""),
                       source=meta.get("source", ""), origin=meta.get("origin", ""),
                       problem=meta.get("problem"), improvement=meta.get("improvement"),
                       created=float(meta.get("created", 0.0)),
                       utterances=tuple(json.loads(meta.get("utterances", "[]"))),
                       keys=tuple(json.loads(meta.get("keys", "[]"))))

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
        return self._example(found["metadatas"][0])

    @_locked
    def has(self, example_id: str) -> bool:
        return bool(self._primaries([str(example_id)], [])["ids"])

    @staticmethod
    def _primary_filter(source: str | None) -> dict:
        if source is None:
            return {"rec": 0}
        if source not in SOURCES:
            raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
        return {"$and": [{"rec": 0}, {"source": source}]}

    @_locked
    def list(self, source: str | None = None) -> list[Example]:
        """All examples (optionally of one source), oldest first."""
        found = self.collection.get(where=self._primary_filter(source), include=["metadatas"])
        examples = [self._example(meta) for meta in found["metadatas"]]
        return sorted(examples, key=lambda ex: (ex.created, ex.id))

    @_locked
    def count(self, source: str | None = None) -> int:
        return len(self.collection.get(where=self._primary_filter(source), include=[])["ids"])

    def __len__(self) -> int:
        return self.count()

    @_locked
    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of query utterances, with a small cache: during an interaction the
        older utterances of the query window were embedded by the previous retrieval."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._query_cache]
        if missing:
            for text, vec in zip(missing, self.embed(missing)):
                self._query_cache[text] = vec
        for text in texts:
            self._query_cache.move_to_end(text)
        while len(self._query_cache) > QUERY_CACHE_SIZE:
            self._query_cache.popitem(last=False)
        return np.stack([self._query_cache[t] for t in texts])

    @_server_errors
    def retrieve(self, utterances: Sequence[str], k: int | None = None) -> list[tuple[Example, float]]:
        """The top-k unique examples for the latest utterances (newest = last element),
        sorted by score ASCENDING: the most similar example comes LAST.

        score(example) = sum_i decay**i * max_j cos(utterance_i, key_j(example)), i = 0 for
        the newest. Candidates: the examples owning one of the max(8k, 32) records
        (CANDIDATES_PER_K, MIN_CANDIDATES) nearest to some utterance or to the utterances'
        weighted mean (one Chroma query). A returned
        record gives its example's exact best similarity for that utterance (records not
        returned are less similar); the other similarities of candidates that may reach the
        top k come from their key vectors (cached; records never change). Scores are exact
        for the candidates. If an example outside them could still reach the top k, a store
        of at most EXACT_RECORDS records is searched in full, so small stores (the usual
        case) always get the exact top k; in larger ones such examples can be missed (the
        benchmark reports the recall against brute force)."""
        k = self.config.k if k is None else int(k)
        query = retrieval.query_utterances(utterances, self.config.query_utterances)
        if k <= 0 or not query:
            return []
        with self._lock:                # the caches are shared by the calling threads
            if self.config.scoring == "reference":
                return self._retrieve_reference(query, k)
            return self._retrieve(query, k)

    @_server_errors
    def prompt_examples(self, utterances: Sequence[str], k: int | None = None) -> list[Example]:
        """The examples for the prompt, in the configured order (``config.order``): the
        paper's (most similar last), a fixed one, or the fixed one followed by the most
        similar example again (the default: the fixed part is the same for every request, so
        a local model evaluates it once; the nearest example still comes right before the
        interaction, as in the paper).

        With no utterance yet, a store of at most k examples gives all of them (retrieval
        would pick every one): their prompt prefix can be evaluated before the user speaks.
        Otherwise nothing is known yet and [] is returned. Either way the embedding model is
        loaded now, not when the user has spoken."""
        k = self.config.k if k is None else int(k)
        fixed = self.config.order in ("stable", "stable_nearest")
        if not retrieval.query_utterances(utterances, self.config.query_utterances):
            self.embed_query(["warm up the embedding model"])   # the first request is on time
            if k <= 0 or not fixed or self.count() > k:
                return []
            return stable_order(self.list(), self.seed_centrality())
        found = [example for example, _score in self.retrieve(utterances, k)]
        if self.config.order == "similarity" or not found:
            return found
        ordered = stable_order(found, self.seed_centrality())
        return ordered + found[-1:] if self.config.order == "stable_nearest" else ordered

    @_locked
    def seed_centrality(self) -> dict[str, float]:
        """:func:`seed_centrality` of the seed examples, recomputed when the seed set changes."""
        # called per prompt: ids alone tell whether the seed set changed; vectors only then
        ids = self.collection.get(where={"source": "seed"}, include=[])["ids"]
        signature = tuple(sorted(ids))
        if self._centrality is None or self._centrality[0] != signature:
            found = self.collection.get(ids=list(ids), include=["embeddings", "metadatas"]) \
                if ids else {"embeddings": [], "metadatas": []}
            keys: dict[str, list] = {}
            origin = {}
            for vec, meta in zip(found["embeddings"], found["metadatas"]):
                keys.setdefault(meta["example_id"], []).append(vec)
                if meta.get("rec") == 0:
                    origin[meta["example_id"]] = meta.get("origin", "")
            by_origin = {origin[e]: np.asarray(v, dtype=np.float32) for e, v in keys.items()
                         if e in origin}
            self._centrality = (signature, seed_centrality(by_origin))
        return self._centrality[1]

    def _retrieve_reference(self, query: list[str], k: int) -> list[tuple[Example, float]]:
        """The paper's score: cos of the recency-weighted sum of the query utterances with the
        example's best key. One vector, one nearest-records query: an example's best record
        among the results is its exact score, and records are returned best first, so the
        first k distinct examples are the exact top k (the result list is widened until k
        distinct examples are in it or the store is exhausted)."""
        weights = retrieval.recency_weights(len(query), self.config.recency_decay)
        mixed = retrieval.mixed_query(self.embed_query(query), weights)
        per_query = max(CANDIDATES_PER_K * k, MIN_CANDIDATES)
        while True:
            result = self.collection.query(query_embeddings=[mixed], n_results=per_query,
                                           include=["distances"])
            ids, distances = result["ids"][0], result["distances"][0]
            best: dict[str, tuple[float, str]] = {}
            for record_id, dist in zip(ids, distances):
                eid = record_id.rpartition("#")[0]
                if eid not in best:
                    best[eid] = (1.0 - float(dist), record_id)
            if len(best) >= k or len(ids) < per_query:
                break
            per_query *= 4
        scores = {eid: sim for eid, (sim, _rid) in best.items()}
        top = retrieval.top_k_ascending(scores, k)
        examples = self._examples([_sibling_ids(best[eid][1])[0] for eid, _ in top])
        return [(examples[eid], score) for eid, score in top if eid in examples]

    def _retrieve(self, query: list[str], k: int) -> list[tuple[Example, float]]:
        vectors = self.embed_query(query)
        weights = retrieval.recency_weights(len(query), self.config.recency_decay)
        probe = vectors
        if len(vectors) > 1:        # + the weighted mean: finds examples fairly close to all
            mean = weights.astype(np.float32) @ vectors
            probe = np.vstack([vectors, mean / max(float(np.linalg.norm(mean)), 1e-9)])
        per_query = max(CANDIDATES_PER_K * k, MIN_CANDIDATES)
        budget: int | None = FETCH_PER_K * k
        hits = None
        while True:
            if hits is None:
                result = self.collection.query(query_embeddings=probe, n_results=per_query,
                                               include=["distances"])
                n = len(vectors)
                hits = retrieval.Hits.collect(result["ids"][:n], result["distances"][:n],
                                              per_query, extra_ids=result["ids"][n:])
            scores, left_out = self._complete_scores(hits, vectors, weights, k, budget)
            # exact unless a candidate was left unscored or an example without any returned
            # record (score <= unseen_bound) could still reach the top k
            if not left_out and hits.unseen_bound(weights) < retrieval.kth_best(scores, k):
                break
            if budget is None:
                break
            total = self._record_count()
            if total > EXACT_RECORDS:
                break               # a large store: the best of the candidates scored
            budget = None           # a small store: search it exhaustively
            if total > per_query:
                per_query, hits = total, None
        top = retrieval.top_k_ascending(scores, k)
        seen = dict(zip(hits.ids, hits.seen))
        examples = self._examples([_sibling_ids(seen[eid])[0] for eid, _ in top])
        return [(examples[eid], score) for eid, score in top if eid in examples]

    def _record_count(self) -> int:
        """collection.count(), reused for a second (it only decides exact vs. candidate search)."""
        now = time.monotonic()
        if self._count_cache is None or now - self._count_cache[0] > 1.0:
            self._count_cache = (now, self.collection.count())
        return self._count_cache[1]

    def _complete_scores(self, hits: "retrieval.Hits", vectors: np.ndarray, weights: np.ndarray,
                         k: int, budget: int | None) -> tuple[dict[str, float], int]:
        """Exact scores of the examples hit for every utterance, and of the others (best upper
        bound first) while their bound can still reach the top k: from cached key vectors, or
        fetched in one call for at most ``budget`` examples (None: no limit). Also returns
        how many candidates that could still reach the top k were left unscored."""
        scores, upper = hits.split(weights)
        if not upper:
            return scores, 0
        seen = dict(zip(hits.ids, hits.seen))
        siblings = {eid: _sibling_ids(seen[eid]) for eid in upper}
        cached = [eid for eid in upper if all(rid in self._vectors for rid in siblings[eid])]
        scores.update(self._exact_scores(cached, siblings, vectors, weights))
        bar = retrieval.kth_best(scores, k)
        wanted = sorted((eid for eid in upper if upper[eid] >= bar and eid not in scores),
                        key=lambda eid: -upper[eid])
        fetch = wanted if budget is None else wanted[:budget]
        if fetch:
            self._fetch_vectors([rid for eid in fetch for rid in siblings[eid]])
            scores.update(self._exact_scores(fetch, siblings, vectors, weights))
        bar = retrieval.kth_best(scores, k)
        return scores, sum(1 for eid in wanted[len(fetch):] if upper[eid] >= bar)

    def _fetch_vectors(self, record_ids: Sequence[str]) -> None:
        for start in range(0, len(record_ids), self.max_batch_size):
            got = self.collection.get(ids=list(record_ids[start:start + self.max_batch_size]),
                                      include=["embeddings"])
            for rid, vec in zip(got["ids"], got["embeddings"]):
                self._vectors[rid] = np.asarray(vec, dtype=np.float32)
        while len(self._vectors) > VECTOR_CACHE_SIZE:
            self._vectors.popitem(last=False)

    def _exact_scores(self, example_ids: Sequence[str], siblings: Mapping[str, list[str]],
                      vectors: np.ndarray, weights: np.ndarray) -> dict[str, float]:
        """Scores from the cached key vectors of the examples."""
        keys = {}
        for eid in example_ids:
            rows = []
            for rid in siblings[eid]:
                vec = self._vectors.get(rid)
                if vec is not None:
                    self._vectors.move_to_end(rid)
                    rows.append(vec)
            if rows:
                keys[eid] = rows
        return retrieval.score_examples(vectors, weights, keys)

    def _examples(self, primary_ids: Sequence[str]) -> dict[str, Example]:
        """Examples by id from their primary record ids (cached: records never change)."""
        missing = [rid for rid in primary_ids if rid not in self._example_cache]
        if missing:
            got = self.collection.get(ids=missing, include=["metadatas"])
            for rid, meta in zip(got["ids"], got["metadatas"]):
                self._example_cache[rid] = self._example(meta)
        out = {}
        for rid in primary_ids:
            if rid in self._example_cache:
                self._example_cache.move_to_end(rid)
                example = self._example_cache[rid]
                out[example.id] = example
        while len(self._example_cache) > EXAMPLE_CACHE_SIZE:
            self._example_cache.popitem(last=False)
        return out

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
            record_ids += _sibling_ids(rid)
        for start in range(0, len(record_ids), self.max_batch_size):
            self.collection.delete(ids=record_ids[start:start + self.max_batch_size])
        return len(found["ids"])

    @_locked
    def forget(self, topic: str, threshold: float = 0.5, include_seed: bool = False) -> list[Example]:
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
        for vec, meta in zip(records["embeddings"], records["metadatas"]):
            eid = meta["example_id"]
            best[eid] = max(best.get(eid, -1.0), float(np.dot(vec, topic_vec)))
            if meta["rec"] == 0:
                primaries[eid] = self._example(meta)
        texts = [(ex.id, t) for ex in primaries.values() for t in (ex.problem, ex.improvement) if t]
        if texts:
            sims = self.embed([t for _, t in texts]) @ topic_vec
            for (eid, _), sim in zip(texts, sims):
                best[eid] = max(best[eid], float(sim))
        doomed = [primaries[eid] for eid, sim in best.items() if sim >= threshold and eid in primaries]
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
        """Add the ``*.txt`` transcripts of ``directory`` whose file name is not yet the
        origin of a seed example. Returns how many were added (0 on a second call)."""
        directory = Path(directory)
        if not directory.is_dir():
            raise FileNotFoundError(f"no transcript folder {directory}")
        present = {ex.origin for ex in self.list("seed")}
        added = []
        for file in sorted(directory.glob("*.txt")):
            if file.name in present:
                continue
            try:
                added.append(self.make_example(file.read_text(encoding="utf-8"), "seed",
                                               origin=file.name))
            except ValueError as exc:
                log.warning("skipping %s: %s", file, exc)
        for example in added:          # one write per example
            self.write([example])
        return len(added)

    @_locked
    def export_yaml(self, path: str | Path, sources: Sequence[str] | None = None) -> int:
        """Write the examples (only those of ``sources``, e.g. ('learned', 'raw'), if given)
        to a YAML file that :meth:`import_yaml` reads; returns how many."""
        import yaml

        examples = [ex for ex in self.list() if sources is None or ex.source in sources]
        data = {"api": self.api, "exported": time.time(),
                "examples": [{k: v for k, v in ex.to_dict().items() if k != "keys"}
                             for ex in examples]}
        text = yaml.dump(data, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)
        Path(path).write_text(text, encoding="utf-8")
        return len(examples)

    @_locked
    def import_yaml(self, path: str | Path) -> int:
        """Add the examples of an exported file whose ids are not present. Returns how many."""
        import yaml

        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ValueError(f"{path} is not valid YAML: {exc}") from exc
        items = data.get("examples") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise ValueError(f"{path}: expected a mapping with a list 'examples'")
        prepared = []
        for n, item in enumerate(items, 1):
            if not isinstance(item, dict) or not isinstance(item.get("transcript"), str):
                raise ValueError(f"{path}: example {n} needs at least 'transcript' (text)")
            unknown = set(item) - {f.name for f in fields(Example)}
            if unknown:
                raise ValueError(f"{path}: example {n} has unknown field(s) "
                                 f"{', '.join(sorted(map(str, unknown)))}")
            try:
                prepared.append(self.make_example(
                    item["transcript"], item.get("source", "learned"), item.get("origin") or "",
                    item.get("problem"), item.get("improvement"),
                    example_id=str(item["id"]) if item.get("id") is not None else None,
                    created=item.get("created")))
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{path}: example {n}: {exc}") from exc
        if len({ex.id for ex in prepared}) != len(prepared):
            raise ValueError(f"{path}: duplicate example ids")
        present = {_parse_record_id(rid)[0]
                   for rid in self._primaries([ex.id for ex in prepared], [])["ids"]} \
            if prepared else set()
        new = [ex for ex in prepared if ex.id not in present]
        for example in new:
            self.write([example])
        return len(new)


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


try:
    import yaml as _yaml

    class _BlockDumper(_yaml.SafeDumper):
        """Multi-line strings (transcripts) as ``|`` block scalars."""

    def _str(dumper, value: str):
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    _BlockDumper.add_representer(str, _str)
except ImportError:  # pragma: no cover - PyYAML is a dependency
    _BlockDumper = None  # type: ignore[assignment]

"""What the example memory stores: the :class:`Example` and the format of its Chroma records.

Every example is stored as ``n`` records, one per index key (:func:`index_keys`). A record id
is ``<example id>#<j>/<n>/<tag>`` (:class:`RecordId`; j = 0..n-1, tag = the first 8 hex digits
of the transcript's sha1), so a query that returns only ids and distances already tells which
example a hit belongs to and which other records it has, and a record id always names the
same content (the store's process-local caches rely on that). Record 0 is the PRIMARY record.
This module is the only place that writes or reads that format.
"""
from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

from ..transcript.transcript import Transcript

# where an example came from: the predefined transcripts, L_improve, the corrected mode, the
# raw interaction, a successful benchmark episode (HELPER / Dynamic CaP), a habit (an edit of
# the program under a condition, core/reading/edit.py: applied by the code, never shown to
# the model as an example: NOT_PROMPTED)
SOURCES = ("seed", "learned", "final", "corrected", "raw", "episode", "habit")
LESSONS = ("learned", "final", "corrected", "raw", "habit")      # what a user taught
NOT_PROMPTED = ("seed", "habit")     # not among the learned examples a prompt shows
COLLECTION_PREFIX = "examples_"


@dataclass
class Example:
    id: str
    transcript: str               # console text as Transcript.render() gives it
    source: str                   # one of SOURCES
    origin: str = ""              # seed file name, or the interaction id it was learned from
    problem: str | None = None    # L_improve's one-sentence problem (learned examples)
    improvement: str | None = None
    created: float = 0.0          # unix time
    utterances: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()    # the texts it is indexed under (utterances, else 1st statement)
    reading: str | None = None    # a lesson: the reading of its request (reading/record.py JSON)
    author: str | None = None     # a lesson: who wrote its program (model, attempt, reading, ...)
    scope: str | None = None      # a lesson: "rule" (held in changed scenes) or "scene" (its own)
    edit: str | None = None       # a habit: its edit (reading/edit.py JSON)
    robot: str | None = None      # a lesson: the robot that was taught it (memory.robot_id)
    world: str | None = None      # a lesson: the world it was taught in (the world file's name)
    needs: tuple[str, ...] = ()   # a lesson: the things and places of that world it names
    #                               (.fleet.names_used); a robot whose world lacks one does
    #                               not follow it as stored (.fleet.lacking)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["utterances"] = list(self.utterances)
        data["keys"] = list(self.keys)
        data["needs"] = list(self.needs)
        return data


class RecordId(NamedTuple):
    """One record's id, ``<example id>#<rec>/<n_rec>/<tag>``."""

    example_id: str
    rec: int
    n_rec: int
    tag: str

    @classmethod
    def parse(cls, record_id: str) -> RecordId:
        example_id, _, tail = record_id.rpartition("#")
        rec, n_rec, tag = tail.split("/")
        return cls(example_id, int(rec), int(n_rec), tag)

    def __str__(self) -> str:
        return f"{self.example_id}#{self.rec}/{self.n_rec}/{self.tag}"

    def siblings(self) -> list[str]:
        """All record ids of this record's example, the primary first."""
        return [str(self._replace(rec=j)) for j in range(self.n_rec)]


def example_of(record_id: str) -> str:
    """The example id a record id belongs to."""
    return RecordId.parse(record_id).example_id


def primary_id(record_id: str) -> str:
    """The id of the primary record (record 0) of the example that owns ``record_id``."""
    return str(RecordId.parse(record_id)._replace(rec=0))


def sibling_ids(record_id: str) -> list[str]:
    """All record ids of the example that owns ``record_id``, the primary first."""
    return RecordId.parse(record_id).siblings()


def digest(text: str) -> str:
    """The transcript digest kept in every record (its first 8 digits are the id's tag)."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def check_id(example_id: str) -> str:
    if not isinstance(example_id, str) or not example_id \
            or not all(c.isalnum() or c in "-_." for c in example_id):
        raise ValueError(f"bad example id {example_id!r} (letters, digits, '-', '_', '.')")
    return example_id


def check_source(source: str) -> str:
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    return source


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


def new_example(transcript: str, source: str, origin: str = "", problem: str | None = None,
                improvement: str | None = None, example_id: str | None = None,
                created: float | None = None, reading: str | None = None,
                author: str | None = None, scope: str | None = None,
                edit: str | None = None, robot: str | None = None, world: str | None = None,
                needs: tuple[str, ...] = ()) -> Example:
    """An Example (not stored yet) with the transcript normalised and its keys found; a new
    random id unless ``example_id``, the current time unless ``created``."""
    check_source(source)
    if not isinstance(transcript, str):
        raise TypeError("transcript must be console text (str)")
    parsed = Transcript.parse(transcript)
    if not parsed.entries:
        raise ValueError("the transcript holds no console input (lines starting with '>>> ')")
    example_id = check_id(example_id or uuid.uuid4().hex[:16])
    utterances, keys = index_keys(parsed)
    return Example(id=example_id, transcript=parsed.render(), source=source,
                   origin=str(origin or ""), problem=problem, improvement=improvement,
                   created=round(time.time(), 3) if created is None else float(created),
                   utterances=utterances, keys=keys, reading=reading, author=author,
                   scope=scope, edit=edit, robot=robot, world=world,
                   needs=tuple(dict.fromkeys(needs)))


def record_metadata(example: Example, rec: int, transcript_digest: str) -> dict[str, Any]:
    """The metadata of record ``rec`` of ``example``: every record carries ``example_id``,
    ``source``, ``rec``, ``n_rec``, ``created`` and ``digest`` (so a partial example would be
    detectable); the primary record also all other fields."""
    meta: dict[str, Any] = {"example_id": example.id, "source": example.source, "rec": rec,
                            "n_rec": len(example.keys), "digest": transcript_digest,
                            "created": example.created}
    if rec == 0:
        meta.update(transcript=example.transcript, origin=example.origin,
                    utterances=json.dumps(list(example.utterances)),
                    keys=json.dumps(list(example.keys)))
        if example.problem is not None:
            meta["problem"] = example.problem
        if example.improvement is not None:
            meta["improvement"] = example.improvement
        if example.reading is not None:
            meta["reading"] = example.reading
        if example.author is not None:
            meta["author"] = example.author
        if example.scope is not None:
            meta["scope"] = example.scope
        if example.edit is not None:
            meta["edit"] = example.edit
        if example.robot is not None:
            meta["robot"] = example.robot
        if example.world is not None:
            meta["world"] = example.world
        if example.needs:
            meta["needs"] = json.dumps(list(example.needs))
    return meta


def example_from_metadata(meta: Mapping[str, Any]) -> Example:
    """The example a primary record's metadata describes."""
    return Example(id=meta["example_id"], transcript=meta.get("transcript", ""),
                   source=meta.get("source", ""), origin=meta.get("origin", ""),
                   problem=meta.get("problem"), improvement=meta.get("improvement"),
                   created=float(meta.get("created", 0.0)),
                   utterances=tuple(json.loads(meta.get("utterances", "[]"))),
                   keys=tuple(json.loads(meta.get("keys", "[]"))),
                   reading=meta.get("reading"), author=meta.get("author"),
                   scope=meta.get("scope"), edit=meta.get("edit"), robot=meta.get("robot"),
                   world=meta.get("world"), needs=tuple(json.loads(meta.get("needs", "[]"))))


__all__ = [
    "SOURCES",
    "NOT_PROMPTED",
    "Example",
    "RecordId",
    "example_of",
    "primary_id",
    "sibling_ids",
    "digest",
    "check_id",
    "check_source",
    "collection_name",
    "index_keys",
    "new_example",
    "record_metadata",
    "example_from_metadata",
    "COLLECTION_PREFIX",
]

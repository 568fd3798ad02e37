"""A reading as it is stored with a lesson: JSON of its clauses, in the scene's own names.

A lesson keeps the reading of the request it was taught for (issue 43: a lesson is a reading
and a program), so a later request is matched by what it means, not by its words
(:mod:`..memory.meaning`). The text is plain JSON, so the memory's metadata and the outbox keep
it as a string; a record that is not a reading of this form reads back as None."""
from __future__ import annotations

import json
import logging
from dataclasses import asdict

from .structure import Clause, Reading, Selection, Target

log = logging.getLogger(__name__)


def reading_to_json(reading: Reading) -> str:
    return json.dumps({"utterance": reading.utterance,
                       "clauses": [asdict(c) for c in reading.clauses]}, sort_keys=True)


def reading_from_json(text: str | None) -> Reading | None:
    """The reading ``text`` holds; None for no text or one that is not a stored reading."""
    if not text:
        return None
    try:
        data = json.loads(text)
        return Reading(data["utterance"], tuple(_clause(c) for c in data["clauses"]))
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("a stored reading that does not read back (%s): %.80r", exc, text)
        return None


def _clause(data: dict) -> Clause:
    def selection(d):
        return None if d is None else Selection(d["how"], tuple(d.get("names") or ()),
                                                d.get("kind"), d.get("side"),
                                                d.get("reference"), d.get("nth"))
    where = data.get("where")
    route = data.get("route")
    return Clause(data["kind"], selection(data.get("objects")),
                  None if where is None else Target(where["how"], where.get("name")),
                  None if route is None else (route[0], route[1]), data.get("hand"),
                  selection(data.get("companion")))


__all__ = ["reading_to_json", "reading_from_json"]

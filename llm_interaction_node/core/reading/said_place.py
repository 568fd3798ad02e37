"""The place a reading sends things to is one the user said, where the words name one.

The grammar offers every name of the scene at a ``<where>``, and the model's likeliest name is
not always the one said. Measured (household probe of session 62, 1e8c966, the embedded model):
"put the apple next to the book" was read ``do: apple -> bookshelf`` ("book" and then the
likelier "shelf"), and "put the milk next to the juice" ``do: milk carton -> milk carton`` (the
thing next to itself). Where the user did not say a move clause's named place whole, or it is
one of the things the clause moves, and the user said exactly one other name of the scene whole
(a thing or a place, not one the reading gives its things by: "book"), that name is the place:
the words the user said pick among the scene's own names. The code changes nothing where they
pick none or several ("on the table" in a room of two tables), a name said in part ("the juice"
for the mango juice: a word such as "place" in "place the sponge" is part of "handover place"
too), nor a place said in other words than its name ("over here", "where the milk is": a name
the model gave, no name said). Measured on the reading bench at 90301d5 (139/156, was 141):
"move the cube left of the blue bowl over to the top edge" went to the blue bowl, the name the
relation was read with; such names are left out since.
"""
from __future__ import annotations

import logging
from dataclasses import replace

from .other_names import words_of
from .structure import Clause, Reading, Target, names_said
from .vocabulary import ReadingVocabulary

log = logging.getLogger(__name__)


def _said_instead(clause: Clause, said: set[str], joined: str, used: set[str],
                  v: ReadingVocabulary) -> str | None:
    """The one scene name the words said give as ``clause``'s place, where its own place is
    not said (or is what it moves); None where it is said or the words give none or several.
    ``used``: the names the reading gives things by (what the words said went to already)."""
    where = clause.where
    if where is None or where.how != "named" or where.name is None:
        return None
    if where.name not in names_said(clause.objects) and \
            _said_whole(v.spoken(where.name), said, joined):
        return None
    named = [name for form, name in v.targets.items()       # what it moves is in ``used``
             if name not in used and name != where.name and set(words_of(form)) <= said]
    return named[0] if len(named) == 1 else None


def _said_whole(form: str, said: set[str], joined: str) -> bool:
    """Whether every word of ``form`` was said, or its words run together ("book shelf" said,
    "bookshelf" read)."""
    words = words_of(form)
    return set(words) <= said or "".join(words) in joined


def places_said(reading: Reading | None, v: ReadingVocabulary) -> Reading | None:
    """``reading`` with each move clause's place the name the user's words give (see the
    module); the same reading where none changes."""
    if reading is None or not reading.moves:
        return reading
    said = set(words_of(reading.utterance))
    joined = "".join(words_of(reading.utterance))
    used = {name for c in reading.clauses if c.objects is not None
            for name in (*c.objects.names, c.objects.reference) if name}

    def as_said(clause: Clause) -> Clause:
        name = _said_instead(clause, said, joined, used, v)
        if name is None:
            return clause
        log.info("%r names the %s, not the %s", reading.utterance[:60], v.spoken(name),
                 v.spoken(clause.where.name))
        return replace(clause, where=Target("named", name))
    return reading.with_moves(as_said)


__all__ = ["places_said"]

"""The model is asked whether a household request says where its things go, where the reading
sends them to the user or to a room (the handover place, the room centre).

Measured on the development pool (reading bench at 0b17927) and the teach-once bench: greedy,
the 1.5B model gives a put-away request a destination nobody said: "could you tidy up the
apple?" -> ``do: apple -> me``, "put the book away" -> ``do: book -> handover place``. A place
the user did not say is the lesson's to give (:mod:`..learning.taught_place`: "from now on, put
the book on the sideboard"), so a request read with one is another shape than the lesson and
does not follow it. Asked about every place of a request in the slot check's prompt (session
53), the model denied three said places and the new examples moved the replies' checks; here
the question has a prompt of its own and is asked only of ``me`` and of a room, the places a
person rarely names when putting a thing away. A denied place becomes ``none``. No rule over
the user's words decides.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..settings.config_files import config_path
from .check import NO, answer
from .structure import Reading
from .vocabulary import ReadingVocabulary

GIVEN = "the user wants it given to them"


def prompt_file() -> str:
    """The question's prompt (``config/reading/asked_place.yaml``), in the slot check's format:
    :func:`.check.prefix`, :func:`.check.build` and :func:`.check.answer` take it as ``path``."""
    return str(config_path("reading", "asked_place.yaml"))


def claim(clause, vocabulary: ReadingVocabulary) -> str | None:
    """The claim asked of a request's move line: ``me`` or a room (a navigation location the
    move function also takes, as the humanoid's ``handover_to_human``); None for any other
    place, a surface (not asked)."""
    where = clause.where
    if clause.kind != "do" or where is None:
        return None
    if where.how == "me":
        return GIVEN
    if where.how == "named" and where.name in set(vocabulary.locations.values()):
        return f"it goes to the {vocabulary.spoken(where.name)}"
    return None


@dataclass
class AskedPlaceCheck:
    """``ask(prompt, grammar)`` -> the model's text (the reader's LLM call); ``path``: another
    prompt file. A request's ``me`` or room the model denies becomes ``none``."""

    ask: Callable[[str, str], str]
    path: str = field(default_factory=prompt_file)

    def __call__(self, reading: Reading, said: str, vocabulary: ReadingVocabulary,
                 reply: bool) -> Reading:
        if reply:
            return reading
        clauses = list(reading.clauses)
        for i, clause in enumerate(clauses):
            text = claim(clause, vocabulary)
            if text is None:
                continue
            if answer(self.ask, said, text, self.path) == NO:
                clauses[i] = replace(clause, where=None)
        return Reading(reading.utterance, tuple(clauses))


__all__ = ["AskedPlaceCheck", "claim", "prompt_file", "GIVEN"]

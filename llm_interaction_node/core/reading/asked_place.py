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

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

import yaml

from ..config_files import config_path
from .structure import Reading
from .vocabulary import ReadingVocabulary

log = logging.getLogger(__name__)

YES, NO = "yes", "no"
GRAMMAR = f'root ::= " " ("{YES}" | "{NO}")'
END = "answer:"
GIVEN = "the user wants it given to them"


@lru_cache(maxsize=4)
def load(path: str | None = None) -> tuple[str, tuple[tuple[str, str, str], ...]]:
    """(header, (said, claim, answer) examples) of the prompt (default
    ``config/reading/asked_place.yaml``)."""
    source = path or str(config_path("reading", "asked_place.yaml"))
    with open(source, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    examples = tuple((str(e["said"]), str(e["claim"]), str(e["answer"]))
                     for e in data.get("examples", ()))
    if any(a not in (YES, NO) for _, _, a in examples):
        raise ValueError(f"{source}: an example's answer is not {YES!r} or {NO!r}")
    return str(data.get("header", "")).strip(), examples


def prefix(path: str | None = None) -> str:
    """The part of every prompt before the sentence (the same for every question)."""
    header, examples = load(path)
    return header + "\n\n" + "".join(f"said: {s}\nclaim: {c}\n{END} {a}\n\n"
                                     for s, c, a in examples)


def build(said: str, claim: str, path: str | None = None) -> str:
    return prefix(path) + f"said: {said}\nclaim: {claim}\n{END}"


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
    path: str | None = None

    def __call__(self, reading: Reading, said: str, vocabulary: ReadingVocabulary,
                 reply: bool) -> Reading:
        if reply:
            return reading
        clauses = list(reading.clauses)
        for i, clause in enumerate(clauses):
            text = claim(clause, vocabulary)
            if text is None:
                continue
            answer = self.ask(build(said, text, self.path), GRAMMAR).strip()
            log.info("asked whether %r says %r: %s", said[:60], text, answer or "nothing")
            if answer == NO:
                clauses[i] = replace(clause, where=None)
        return Reading(reading.utterance, tuple(clauses))


__all__ = ["AskedPlaceCheck", "claim", "prefix", "build", "load", "GRAMMAR", "GIVEN"]

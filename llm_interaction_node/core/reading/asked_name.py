"""The model is asked whether a request names a thing its reading gave by a name the user did
not say.

Measured on the teach-once bench (7c59f73): "I'd like the glass", in a scene with a tumbler
and a coffee cup, was read ``do: coffee cup -> me`` (the grammar offers only the scene's
names, and at the slot a name is likelier than ``none``); the ask-first lesson taught for the
coffee cup then applied to a request that never asked for it. Asked of a request's move line
whose named thing shares no word with what was said (a name the user said is never asked:
the model denied "the sponge" in "I wanted the sponge" 3 times of 3, check.py), in a prompt of
its own (``config/reading/asked_name.yaml``, the slot check's format), the model reads the
sentence again; a thing it denies is left out (none left: ``none``, the console model and the
user sort it out). The model decides; the code only chooses what to ask.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..settings.config_files import config_path
from .check import NO, answer
from .structure import Reading
from .vocabulary import ReadingVocabulary

_WORD = re.compile(r"[a-z0-9]+")


def prompt_file() -> str:
    """The question's prompt (``config/reading/asked_name.yaml``), in the slot check's format:
    :func:`.check.prefix`, :func:`.check.build` and :func:`.check.answer` take it as ``path``."""
    return str(config_path("reading", "asked_name.yaml"))


def words_of(text: str) -> set[str]:
    """The words of ``text``, lower case (letters and digits)."""
    return set(_WORD.findall(text.lower()))


def unsaid(name: str, said: str, spoken: Callable[[str], str]) -> bool:
    """Whether no word of ``name``'s spoken form is a word of ``said``."""
    return not words_of(spoken(name)) & words_of(said)


def claim(name: str, spoken: Callable[[str], str]) -> str:
    return f"the user names the {spoken(name)}"


@dataclass
class AskedNameCheck:
    """``ask(prompt, grammar)`` -> the model's text (the reader's LLM call); ``path``: another
    prompt file. A request's named thing with no word said is asked; denied, it is left out.
    A reply is never asked (what it names is an answer to what the robot did)."""

    ask: Callable[[str, str], str]
    path: str = field(default_factory=prompt_file)

    def __call__(self, reading: Reading, said: str, vocabulary: ReadingVocabulary,
                 reply: bool) -> Reading:
        if reply:
            return reading
        clauses = list(reading.clauses)
        for i, clause in enumerate(clauses):
            objects = clause.objects
            if clause.kind != "do" or objects is None or objects.how != "named":
                continue
            kept = tuple(n for n in objects.names
                         if not unsaid(n, said, vocabulary.spoken)
                         or answer(self.ask, said, claim(n, vocabulary.spoken), self.path) != NO)
            if kept != objects.names:
                clauses[i] = replace(clause, objects=replace(objects, names=kept) if kept else None)
        return Reading(reading.utterance, tuple(clauses))


__all__ = ["AskedNameCheck", "claim", "prompt_file", "unsaid", "words_of"]

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

The model confirms "the glass" as the coffee cup and as the tumbler alike (probed at 2e3b254),
so before the question the names people use for the scene's things are looked at
(:mod:`.other_names`, the model's own knowledge: a tumbler is called "glass, bottle, cup"):
where exactly one movable thing with no word of its name said is called by words the user
said, that thing is the one named (the reading's own, kept without a question; another,
put in its place); otherwise (none, or several) the question decides as before. A reply's
things are looked at the same way, without the question (household correction bench at
2c3c378: "You forgot the glass." was read as the coffee cup, and the robot brought the cup).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..settings.config_files import config_path
from .check import NO, answer
from .other_names import OtherNames, called_by
from .other_names import words_of as words_in_order
from .structure import Reading
from .vocabulary import ReadingVocabulary

log = logging.getLogger(__name__)


def prompt_file() -> str:
    """The question's prompt (``config/reading/asked_name.yaml``), in the slot check's format:
    :func:`.check.prefix`, :func:`.check.build` and :func:`.check.answer` take it as ``path``."""
    return str(config_path("reading", "asked_name.yaml"))


def words_of(text: str) -> set[str]:
    """The words of ``text``, lower case (letters and digits)."""
    return set(words_in_order(text))


def unsaid(name: str, said: str, spoken: Callable[[str], str]) -> bool:
    """Whether no word of ``name``'s spoken form is a word of ``said``."""
    return not words_of(spoken(name)) & words_of(said)


def claim(name: str, spoken: Callable[[str], str]) -> str:
    return f"the user names the {spoken(name)}"


@dataclass
class AskedNameCheck:
    """``ask(prompt, grammar)`` -> the model's text (the reader's LLM call); ``path``: another
    prompt file; ``names``: the things' other names (:class:`.other_names.OtherNames`, kept by
    the reader; None: not looked at). A request's named thing with no word said is the thing
    the user's words call (see the module), else asked; denied, it is left out. A reply's
    is only looked at, never asked (the model denied "the sponge" in "Not that one, I wanted
    the sponge." 3 times of 3: what a reply names answers what the robot did)."""

    ask: Callable[[str, str], str]
    path: str = field(default_factory=prompt_file)
    names: OtherNames | None = None

    def __call__(self, reading: Reading, said: str, vocabulary: ReadingVocabulary,
                 reply: bool) -> Reading:
        clauses = list(reading.clauses)
        for i, clause in enumerate(clauses):
            objects = clause.objects
            if clause.kind != "do" or objects is None or objects.how != "named":
                continue
            kept: list[str] = []
            for name in objects.names:
                meant = self._meant(name, said, vocabulary, reply)
                if meant is not None and meant not in kept:
                    kept.append(meant)
            kept = tuple(kept)
            if kept != objects.names:
                clauses[i] = replace(clause, objects=replace(objects, names=kept) if kept else None)
        return Reading(reading.utterance, tuple(clauses))

    def _meant(self, name: str, said: str, vocabulary: ReadingVocabulary,
               reply: bool) -> str | None:
        """The thing the user's words name where the reading has ``name`` (None: none)."""
        if not unsaid(name, said, vocabulary.spoken):
            return name
        called = self._called(said, vocabulary)
        if len(called) == 1:
            if called[0] != name:
                log.info("%r names the %s, not the %s (what people call it)", said[:60],
                         vocabulary.spoken(called[0]), vocabulary.spoken(name))
            return called[0]
        if reply:
            return name
        return name if answer(self.ask, said, claim(name, vocabulary.spoken),
                              self.path) != NO else None

    def _called(self, said: str, vocabulary: ReadingVocabulary) -> list[str]:
        """The movable things with no word of their name said that ``said`` calls by one of
        their other names (none where the names are not looked at)."""
        if self.names is None:
            return []
        forms = [f for f, n in vocabulary.movers.items() if unsaid(n, said, vocabulary.spoken)]
        return [vocabulary.movers[f] for f in called_by(said, forms, self.names.of)]


__all__ = ["AskedNameCheck", "claim", "prompt_file", "unsaid", "words_of"]

"""The model is asked whether a reply speaks about this time only or about every time from
now on, where its reading is approval or a way of doing things and has no ``learn``.

Measured on the development pool (reading bench at 0b17927, 135 of 156): greedy, the 1.5B
model ends a reading after its first line where the user went on to ask that it be kept:
"use your left hand for the orange juice from now on" was read ``hand: left``, "you can drive
faster to the kitchen counter next time" ``faster: anywhere -> kitchen counter``, "Good job.
Next time do it like this right away." ``done``. Asked before as a yes or no claim of the check
prompt for every reply ("the user asks to remember this", ba748ad, :mod:`.omission`), the
model said yes to thanks and look-alikes. Here it chooses between two answers ("this time",
"every time") after examples of both, and only for the readings that can be a lesson by what
they say how to do (``done``, ``hand``, ``faster``, ``slower``; where habits can be kept, also
a reply no kind names and a move, :data:`HABIT`): a complaint (``wrong object``, ``retry``, a
move on the tabletop) is never asked, so it never becomes a learn request. No rule over the
user's words decides.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from ..settings.config_files import config_path
from .prompt_file import load_prompt_file
from .structure import SPEEDS, Clause, Reading

log = logging.getLogger(__name__)

NOW, ALWAYS = "this time", "every time"
GRAMMAR = f'root ::= " " ("{NOW}" | "{ALWAYS}")'
END = "answer:"
ASKED = ("done", "hand") + SPEEDS
# where habits can be kept (a scene the user is handed things in: the household, not the
# tabletop), a reply no kind names may teach one (learning/habit.py), and so may a move said
# with a rule (measured, issue 59 held-out habits: "never hand me the water bottle, leave it on
# the sideboard" and "drive slowly when you carry the mango juice, it spills" were read as a
# move and never asked, so the rule was done once and forgotten)
HABIT = ("other", "do")
NOT_ASKED = ("learn", "forget", "stop", "question", "wrong object", "retry")
NOT_ASKED_TABLETOP = ("do",)


def asks(reading: Reading, reply: bool, habits: bool = False) -> bool:
    """Whether ``reading`` is asked about: a reply with a kind of :data:`ASKED` (and, with
    ``habits``, :data:`HABIT`) and none of :data:`NOT_ASKED` (without ``habits``, nor a
    move: a correction of the tabletop is never a rule)."""
    kinds = set(reading.kinds)
    asked = set(ASKED) | (set(HABIT) if habits else set())
    never = set(NOT_ASKED) | (set() if habits else set(NOT_ASKED_TABLETOP))
    return reply and bool(kinds & asked) and not kinds & never


@lru_cache(maxsize=4)
def load(path: str | None = None) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(header, (said, answer) examples) of the prompt (default
    ``config/reading/lasting.yaml``)."""
    source = path or str(config_path("reading", "lasting.yaml"))
    header, examples = load_prompt_file(source, ("said", "answer"))
    if any(a not in (NOW, ALWAYS) for _, a in examples):
        raise ValueError(f"{source}: an example's answer is not {NOW!r} or {ALWAYS!r}")
    return header, examples


def prefix(path: str | None = None) -> str:
    """The part of every prompt before the sentence (the same for every question)."""
    header, examples = load(path)
    return header + "\n\n" + "".join(f"said: {s}\n{END} {a}\n\n" for s, a in examples)


def build(said: str, path: str | None = None) -> str:
    return prefix(path) + f"said: {said}\n{END}"


@dataclass
class LastingCheck:
    """``ask(prompt, grammar)`` -> the model's text (the reader's LLM call); ``path``: another
    prompt file. Adds ``learn`` to a reading the model says speaks about every time."""

    ask: Callable[[str, str], str]
    path: str | None = None

    def __call__(self, reading: Reading, said: str, reply: bool,
                 habits: bool = False) -> Reading:
        if not asks(reading, reply, habits):
            return reading
        answer = self.ask(build(said, self.path), GRAMMAR).strip()
        log.info("asked whether %r speaks about every time: %s", said[:60], answer or "nothing")
        if answer != ALWAYS:
            return reading
        return Reading(reading.utterance, reading.clauses + (Clause("learn"),))


__all__ = ["LastingCheck", "asks", "prefix", "build", "load", "GRAMMAR", "NOW", "ALWAYS"]

"""The model is asked whether a request says which hand to use, where its reading has a hand.

Measured on the development pool (reading bench at 79a9a25) and the teach-once bench: greedy,
the 1.5B model adds a hand to a request nobody gave one: "clear away the sponge, please" ->
``do: kitchen sponge -> none`` and ``hand: left``; "could you tidy up the banana?" was read
with ``hand: left`` (session 50), which made the lesson taught for it another shape than the
request that should use it (a hand said in a request is a slot of its lesson, and the robot
grasps with it). Here the question has a prompt of its own (``config/reading/asked_hand.yaml``,
the slot check's format), so it moves no other reading, and is asked only of a request's hand:
a reply's hand ("use the other hand", "from now on your left hand") is what the reply is about.
A denied hand is left out. No rule over the user's words decides.

A reply is asked one thing: whether its ``hand: both`` says both hands. Measured on the
teach-once bench (7c59f73): "from now on, bring the sponge along with the cleaning spray" was
read ``hand: both; learn`` (two things together read as two hands), so no plan edit was
learned. Where the model, asked, says the reply does not say both hands, the reading is begun
again with ``- also:`` under the grammar of one ``also`` line of one thing with one thing
(:func:`.grammar.also_rest_gbnf`, ``along``; turned round where the model wrote what the robot
brought first, :func:`.attempt.oriented`); a line with two different things takes the hand's
place, anything else leaves the reading as it was (a denial alone never drops what the reply
is about).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..settings.config_files import config_path
from .check import NO, answer
from .structure import Clause, Reading, names_said


def prompt_file() -> str:
    """The question's prompt (``config/reading/asked_hand.yaml``), in the slot check's format:
    :func:`.check.prefix`, :func:`.check.build` and :func:`.check.answer` take it as ``path``."""
    return str(config_path("reading", "asked_hand.yaml"))


def claim(clause: Clause) -> str | None:
    """The claim asked of a request's ``hand`` clause (None for any other clause)."""
    if clause.kind != "hand" or not clause.hand:
        return None
    if clause.hand == "both":
        return "the user says to use both hands"
    if clause.hand == "other":
        return "the user says to use the other hand"
    return f"the user says to use the {clause.hand} hand"


def _along_with(clause: Clause | None) -> bool:
    """An ``also`` line of two different named things."""
    if clause is None or clause.kind != "also" or clause.objects is None or \
            clause.companion is None:
        return False
    things, company = names_said(clause.objects), names_said(clause.companion)
    return bool(things) and bool(company) and not set(things) & set(company)


@dataclass
class AskedHandCheck:
    """``ask(prompt, grammar)`` -> the model's text (the reader's LLM call); ``path``: another
    prompt file. A request's hand the model denies is left out. A reply's ``hand: both`` the
    model denies is replaced by the ``also`` line ``along(rest)`` writes after the rest of the
    reading (None: no ``along``, or it wrote none of two things: the reading stands)."""

    ask: Callable[[str, str], str]
    path: str = field(default_factory=prompt_file)
    along: Callable[[Reading], Clause | None] | None = None

    def __call__(self, reading: Reading, said: str, reply: bool) -> Reading:
        if reply:
            return self._reply(reading, said)
        kept = []
        for clause in reading.clauses:
            text = claim(clause)
            if text is not None and answer(self.ask, said, text, self.path) == NO:
                continue
            kept.append(clause)
        return Reading(reading.utterance, tuple(kept))

    def _reply(self, reading: Reading, said: str) -> Reading:
        both = [c for c in reading.clauses if c.kind == "hand" and c.hand == "both"]
        if self.along is None or not both or reading.of_kind("also") or \
                answer(self.ask, said, claim(both[0]), self.path) != NO:
            return reading
        rest = Reading(reading.utterance, tuple(c for c in reading.clauses if c not in both))
        clause = self.along(rest)
        if not _along_with(clause):
            return reading
        return Reading(reading.utterance, (clause,) + rest.clauses)


__all__ = ["AskedHandCheck", "claim", "prompt_file"]

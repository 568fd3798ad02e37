"""The model checks what it filled in: a slot the words may leave empty is kept only where the
model, asked, says the user said it.

Measured on the development pool (issue 42, reading bench at 6ae51f2): where a clause has a
slot the user often leaves out, the 1.5B model fills it with a name of the scene. "You are too
slow, drive faster." was read ``faster: dining table -> dishwasher`` (no place was said), "you
can drive faster to the kitchen counter next time" with a start nobody named, and "Wrong cube."
as ``wrong object`` with the one meant made up (``do: the block number 1 from the right``). Each
reading is greedy: at the slot, a name was likelier than ``anywhere``. Asked afterwards, as a
yes or no question about one claim (``claims``), the same model tells a said thing from a
guessed one far better than it leaves a slot empty while writing. No rule over the user's words
decides: the model reads the sentence again and answers (:class:`SlotCheck`).

What is checked (:func:`claims`): the named ends of a route (``faster`` / ``slower``); in a
reply, the objects of a ``do`` clause beside ``wrong object`` where a relation selects them
(the one the user meant; measured at b936f7e, asked about a named one, "Not that one, I wanted
the sponge.", the model denied it 3 times of 3, and the invented ones were relations); the
named place of a reply's ``do`` clause (measured at e6f1465: "You left the blue block on the
table near the middle." and "Why did you take the yellow block? I said the orange block." read
with the request's bowl; asked, reading bench 134 -> 135 of 156: three such places left, two
said ones denied, "the orange block didn't make it in the green bowl"). A
``learn`` read beside a complaint is not asked about: tried (b936f7e), the model denied "from
now on, put the banana on the sideboard" and the teach-once lesson was lost.
A claim the model denies leaves its slot: a route end becomes ``anywhere``; the one meant is
dropped (``wrong object`` alone: "another one"); a place becomes ``none``. A route whose start
the model confirmed and whose end it denied (or left) is asked once more, whether the way goes
to that place: the model writes the one place said first, whichever end it is.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

from ..settings.config_files import config_path
from .prompt_file import load_prompt_file
from .structure import SPEEDS, Clause, Reading

log = logging.getLogger(__name__)

YES, NO = "yes", "no"
GRAMMAR = f'root ::= " " ("{YES}" | "{NO}")'
END = "answer:"


@dataclass(frozen=True)
class Claim:
    """That clause ``index`` of a reading has slot ``slot`` (``from``, ``to``, ``objects``;
    ``destination``: its start is where the way goes, :func:`destination_claim`), as the check
    asks it (``text``: "the way starts at the long table")."""

    index: int
    slot: str
    text: str


def claims(reading: Reading, spoken: Callable[[str], str], reply: bool) -> list[Claim]:
    """The slots of ``reading`` the words may have left empty, that the model filled."""
    out: list[Claim] = []
    for i, clause in enumerate(reading.clauses):
        if clause.kind in SPEEDS and clause.route is not None:
            start, end = clause.route
            if start is not None:
                out.append(Claim(i, "from", f"the way starts at the {spoken(start)}"))
            if end is not None:
                out.append(Claim(i, "to", f"the way goes to the {spoken(end)}"))
        elif reply and clause.kind == "do" and reading.rejects_choice \
                and clause.objects is not None and clause.objects.how != "named":
            meant = clause.objects.render(spoken)
            meant = meant if meant.startswith("the ") else "the " + meant
            out.append(Claim(i, "objects", f"the one wanted is {meant}"))
        if reply and clause.kind == "do" and clause.where is not None \
                and clause.where.how == "named":
            out.append(Claim(i, "where", f"the user wants it to go to the "
                                         f"{spoken(clause.where.name)}"))
    return out


def destination_claim(reading: Reading, start: Claim, spoken: Callable[[str], str]) -> Claim:
    """The claim that the start ``start`` names is where the way goes (measured: "that takes
    forever. go faster to the dining table" was read ``faster: dining table -> kitchen
    counter``; the check denied the kitchen counter and confirmed the dining table as the
    start: the model writes the one place said first, whichever end it is)."""
    place = reading.clauses[start.index].route[0]
    return Claim(start.index, "destination", f"the way goes to the {spoken(place)}")


def without(reading: Reading, denied: list[Claim], ends: list[Claim] = ()) -> Reading:
    """``reading`` with the slots of the ``denied`` claims left empty (see the module) and the
    start of each route in ``ends`` (confirmed as where the way goes) made its end."""
    if not denied and not ends:
        return reading
    clauses: list[Clause | None] = list(reading.clauses)
    for claim in sorted(denied, key=lambda c: c.slot != "where"):   # a place first
        clause = clauses[claim.index]
        if clause is None:
            continue
        if claim.slot in ("from", "to"):
            start, end = clause.route or (None, None)
            route = (None, end) if claim.slot == "from" else (start, None)
            clauses[claim.index] = replace(clause, route=route)
        elif claim.slot == "objects" and clause.where is None:
            clauses[claim.index] = None                     # "another one": the code computes
        elif claim.slot == "objects":
            clauses[claim.index] = replace(clause, objects=None)
        elif claim.slot == "where":
            clauses[claim.index] = replace(clause, where=None)
    for claim in ends:
        start = reading.clauses[claim.index].route[0]
        clauses[claim.index] = replace(clauses[claim.index], route=(None, start))
    return Reading(reading.utterance, tuple(c for c in clauses if c is not None))


@dataclass(frozen=True)
class CheckExample:
    said: str
    claim: str
    answer: str

    def render(self) -> str:
        return f"said: {self.said}\nclaim: {self.claim}\n{END} {self.answer}"


@lru_cache(maxsize=4)
def load_checks(path: str | None = None) -> tuple[str, tuple[CheckExample, ...]]:
    """(header, examples) of the check prompt (default ``config/reading/checks.yaml``)."""
    source = path or str(config_path("reading", "checks.yaml"))
    header, fields = load_prompt_file(source, ("said", "claim", "answer"))
    examples = tuple(CheckExample(*f) for f in fields)
    if any(e.answer not in (YES, NO) for e in examples):
        raise ValueError(f"{source}: an example's answer is not {YES!r} or {NO!r}")
    return header, examples


def prefix(path: str | None = None) -> str:
    """The part of every check prompt before the sentence (the same for every check)."""
    header, examples = load_checks(path)
    return header + "\n\n" + "\n\n".join(e.render() for e in examples) + "\n\n"


def build(said: str, claim: str, path: str | None = None) -> str:
    return prefix(path) + f"said: {said}\nclaim: {claim}\n{END}"


@dataclass
class SlotCheck:
    """Asks the model about each claim of a reading (``ask(prompt, grammar)`` -> the text the
    model wrote; the reader's LLM call) and leaves the denied slots empty. ``path``: another
    check prompt file."""

    ask: Callable[[str, str], str]
    path: str | None = None

    def __call__(self, reading: Reading, said: str, spoken: Callable[[str], str],
                 reply: bool) -> Reading:
        asked = claims(reading, spoken, reply)
        denied = [c for c in asked if not self._says(said, c)]
        ends = []
        for start in asked:      # a way said only by where it goes, read as its start
            if start.slot != "from" or start in denied or any(
                    c.index == start.index and c.slot == "to" and c not in denied
                    for c in asked):
                continue
            if self._says(said, destination_claim(reading, start, spoken)):
                ends.append(start)
        return without(reading, denied, ends)

    def _says(self, said: str, claim: Claim) -> bool:
        return answer(self.ask, said, claim.text, self.path) != NO      # nothing: it stands


def answer(ask: Callable[[str, str], str], said: str, claim: str, path: str | None = None) -> str:
    """The model's yes or no (stripped; empty where it wrote nothing) to whether ``said``
    says ``claim`` (``ask(prompt, grammar)``: the reader's LLM call)."""
    text = ask(build(said, claim, path), GRAMMAR).strip()
    log.info("asked whether %r says %r: %s", said[:60], claim, text or "nothing")
    return text


__all__ = ["Claim", "claims", "destination_claim", "without", "SlotCheck", "answer",
           "load_checks", "prefix", "build", "GRAMMAR", "YES", "NO"]

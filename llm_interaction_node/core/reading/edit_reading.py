"""The model reads a lasting instruction into an edit of the program (one line, under a grammar).

A person teaches habits nobody listed ("tell me when you are done", "never put glasses on the
windowsill", "after you hand me something, drive back to the sofa"). The model reads WHAT TO
CHANGE, the code applies it (:mod:`..learning.edit`): the line it writes names the edit, the
anchor skill, the condition (a thing of the scene, every thing of a kind, any thing, the held
thing; a place) and, for an edit that adds, the one call to add, written as the console writes
calls. The grammar is built from the scene's names (things and places in words, the calls'
names as the console writes them), so every line names what exists; the prompt's examples are
our own (``config/reading/edits.yaml``), in a scene of their own.

    before <skill> of <thing>[ at the <place>]: <call>
    after <skill> of <thing>[ at the <place>]: <call>
    after the request: <call>
    instead of <skill> of <thing>[ at the <place>]: <call>
    set hand to <left|right> on <skill> of <thing>[ at the <place>]
    set speed_factor to <x.y> on move_to of <thing>[ at the <place>]
    never <skill> of <thing>[ at the <place>]
    remove <skill> of <thing>[ at the <place>]
    none                                       (no change of the program can say it)

    <thing>: any thing | the held thing | every <kind> | the <thing in the scene>
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from ..settings.config_files import config_path
from .edit import ANY, HELD, KIND, REQUEST, Condition, Edit
from .prompt_file import load_prompt_file
from .vocabulary import ReadingVocabulary

log = logging.getLogger(__name__)

SKILLS = ("grasp", "handover_object_to_human", "place_object", "move_to", "bring_object_to",
          "receive_object_from_human")
END = "edit:"
MAX_TOKENS = 60
NONE = "none"


@lru_cache(maxsize=4)
def load(path: str | None = None) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """(header, (scene, did, said, edit) examples) of ``config/reading/edits.yaml``."""
    return load_prompt_file(path or str(config_path("reading", "edits.yaml")),
                            ("scene", "did", "said", "edit"))


def prefix(path: str | None = None) -> str:
    """The part of every prompt before the scene (the same for every instruction)."""
    header, examples = load(path)
    shown = "".join(f"scene: {s}\nthe robot did: {d}\nsaid: {u}\n{END} {e}\n\n"
                    for s, d, u, e in examples)
    return f"{header}\n\n{shown}"


def build(vocabulary: ReadingVocabulary, did: str, said: str, path: str | None = None) -> str:
    return prefix(path) + f"scene: {vocabulary.scene_line()}\nthe robot did: {did or 'nothing'}" \
                          f"\nsaid: {said}\n{END}"


def _alternatives(options) -> str:
    quoted = sorted({_q(o) for o in options if o}, key=len, reverse=True)
    return " | ".join(quoted) if quoted else '"-"'


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def grammar(vocabulary: ReadingVocabulary) -> str:
    """The GBNF of one edit line in the scene of ``vocabulary``."""
    things = list(vocabulary.things.values())
    surfaces = list(vocabulary.places.values())
    locations = list(vocabulary.locations.values())
    destinations = surfaces + (["handover_to_human"] if vocabulary.me else [])
    place_words = list(vocabulary.places) + [f for f in vocabulary.locations
                                             if f not in vocabulary.places]
    rules = {
        "root": '" " line',
        "line": '"none" | at | req | set | bare',
        "at": '("before" | "after" | "instead of") " " skill " of " thing place? ": " call',
        "req": '"after the request: " call',
        "set": '"set " setting " on " skill " of " thing place?',
        "bare": '("never" | "remove") " " skill " of " thing place?',
        "skill": _alternatives(SKILLS),
        "thing": '"any thing" | "the held thing" | "every " kind | "the " name',
        "kind": '[a-z]+ (" " [a-z]+)?',
        "name": _alternatives(vocabulary.things),
        "place": '" at the " placeword',
        "placeword": _alternatives(place_words),
        "setting": '"hand to " ("left" | "right") | "speed_factor to " [0-2] "." [0-9]',
        "call": 'speech | act',
        "speech": '("say" | "ask") "(\\"" text "\\")"',
        "text": '[^"\\\\\\n]{1,120}',
        "act": '"move_to(get_location_coordinates(\\"" loc "\\"))" '
               '| "grasp(\\"" obj "\\")" | "handover_object_to_human(\\"" obj "\\")" '
               '| "place_object(\\"" obj "\\", \\"" surface "\\")" '
               '| "bring_object_to(\\"" obj "\\", \\"" dest "\\")"',
        "obj": _alternatives(things),
        "surface": _alternatives(surfaces),
        "dest": _alternatives(destinations),
        "loc": _alternatives(locations),
    }
    return "\n".join(f"{name} ::= {body}" for name, body in rules.items())


_PLACE = r"(?: at the (?P<place>[a-z0-9 \-]+?))?"
_LINE = re.compile(
    r"^(?:(?P<op>before|after|instead of|never|remove) (?P<skill>\w+) of (?P<thing>.+?)"
    + _PLACE + r"(?:: (?P<call>.+))?"
    r"|after the request: (?P<rcall>.+)"
    r"|set (?P<arg>hand|speed_factor) to (?P<value>left|right|\d\.\d) on (?P<sskill>\w+) of "
    r"(?P<sthing>.+?)" + _PLACE.replace("place", "splace") + r")$")


class EditReadingError(ValueError):
    """The model's line is no edit the code can apply (said why)."""


def parse(line: str, vocabulary: ReadingVocabulary, said: str = "") -> Edit | None:
    """The edit of ``line`` (as the model wrote it after ``edit:``); None for ``none``.
    Raises :class:`EditReadingError` for a line that names what the scene lacks."""
    text = " ".join(line.split())
    if text in ("", NONE):
        return None
    m = _LINE.match(text)
    if m is None:
        raise EditReadingError(f"not an edit line: {text!r}")
    if m["rcall"]:
        return Edit("after", Condition(REQUEST), (m["rcall"],), said=said)
    if m["arg"]:
        value = m["value"] if m["arg"] == "hand" else float(m["value"])
        when = _condition(m["sskill"], m["sthing"], m["splace"], vocabulary)
        return Edit("set", when, argument=m["arg"], value=value, said=said,
                    taught=_taught(when))
    op = "instead" if m["op"] == "instead of" else m["op"]
    when = _condition(m["skill"], m["thing"], m["place"], vocabulary)
    statements = (m["call"],) if m["call"] else ()
    if op in ("before", "after", "instead") and not statements:
        raise EditReadingError(f"an edit {op!r} with no call: {text!r}")
    if op in ("never", "remove") and statements:
        raise EditReadingError(f"an edit {op!r} adds no call: {text!r}")
    try:
        return Edit(op, when, statements, said=said, taught=_taught(when))
    except ValueError as exc:
        raise EditReadingError(str(exc)) from exc


def _taught(when: Condition) -> str | None:
    return when.thing if not when.general else None


def _condition(skill: str, thing: str, place: str | None,
               vocabulary: ReadingVocabulary) -> Condition:
    if skill not in SKILLS:
        raise EditReadingError(f"no skill {skill!r}")
    if thing == "any thing":
        what = ANY
    elif thing == "the held thing":
        what = HELD
    elif thing.startswith(KIND):
        what = KIND + thing[len(KIND):].strip()
    elif thing.startswith("the ") and thing[4:] in vocabulary.things:
        what = vocabulary.things[thing[4:]]
    else:
        raise EditReadingError(f"no thing {thing!r} in the scene")
    where = None
    if place:
        where = vocabulary.places.get(place) or vocabulary.locations.get(place)
        if where is None:
            raise EditReadingError(f"no place {place!r} in the scene")
    return Condition(skill, what, where)


@dataclass
class EditReader:
    """``ask(prompt, grammar)`` -> the model's text (one short grammar-constrained call)."""

    ask: Callable[[str, str], str]
    path: str | None = None
    last_failure: str | None = None

    def __call__(self, said: str, vocabulary: ReadingVocabulary, did: str = "") -> Edit | None:
        """The edit ``said`` asks for, the robot having done ``did`` (its calls, in words);
        None where the model reads none or a line the scene cannot hold
        (:attr:`last_failure` says which)."""
        text = self.ask(build(vocabulary, did, said, self.path), grammar(vocabulary))
        line = text.strip().splitlines()[0] if text.strip() else ""
        log.info("read the lasting instruction %r as the edit %r", said[:80], line)
        try:
            edit = parse(line, vocabulary, said)
        except EditReadingError as exc:
            self.last_failure = str(exc)
            log.warning("no edit in %r: %s", line, exc)
            return None
        self.last_failure = None if edit is not None else "the model read no change of the program"
        return edit


__all__ = ["EditReader", "EditReadingError", "parse", "grammar", "build", "prefix", "load",
           "SKILLS"]

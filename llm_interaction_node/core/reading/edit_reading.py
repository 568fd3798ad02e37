"""The model reads a lasting instruction into an edit of the program (a short form, under a
grammar).

A person teaches habits nobody listed ("tell me when you are done", "never put glasses on the
windowsill", "after you hand me something, drive back to the sofa"). The model reads WHAT TO
CHANGE, the code applies it (:mod:`.edit`). The model fills a form of four lines, each a choice
in words the grammar offers (measured, issue 59: asked for one line of the compact language
below, the 1.5B model read 12 of 32 development habits right; it chose the skill from the API's
names badly - "give me" as a grasp - and added a place nobody said):

    when: after you hand it over          one of :data:`WHEN` (the edit and its anchor skill)
    things: anything                      anything | whatever you carry | the <name>
                                          | every <kind> (a word the user said)
    where: anywhere                       anywhere | the <place>
    do: say("Careful, it is hot.")        a call as the console writes it | use your left hand
                                          | drive at speed 0.5 | nothing

The grammar is built from the scene's names (things and places in words, the calls' names as
the console writes them), so every form names what exists; the prompt's examples are our own
(``config/reading/edits.yaml``), in a scene of their own. The compact line language of an
edit, which the bench's habit files use to say what a right reading is (:func:`parse`):

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

from ..settings.config_files import config_path
from .edit import ANY, HELD, KIND, REQUEST, THING_FIRST, Condition, Edit
from .prompt_file import load_prompt_file
from .vocabulary import ReadingVocabulary

log = logging.getLogger(__name__)

SKILLS = ("grasp", "handover_object_to_human", "place_object", "move_to", "bring_object_to",
          "receive_object_from_human")
END = "when:"
MAX_TOKENS = 90
STOP = ("\n\n",)
NONE = "none"
NOTHING = "nothing to learn"
# what the model writes after "when:" -> (the edit, its anchor skill). A manner (a hand, a
# speed) is what ``do`` says, not a moment: the edit is then ``set`` on the skill it is a
# manner of (measured: with a moment "when you take it" for a hand, the 1.5B model chose it
# for four habits of other kinds, 14/32 read right)
WHEN = {
    "before you take it": ("before", "grasp"),
    "after you take it": ("after", "grasp"),
    "never take it": ("never", "grasp"),
    "before you hand it over": ("before", "handover_object_to_human"),
    "after you hand it over": ("after", "handover_object_to_human"),
    "instead of handing it over": ("instead", "handover_object_to_human"),
    "never hand it over": ("never", "handover_object_to_human"),
    "before you put it down": ("before", "place_object"),
    "after you put it down": ("after", "place_object"),
    "instead of putting it down": ("instead", "place_object"),
    "never put it down": ("never", "place_object"),
    "never bring it": ("never", "bring_object_to"),
    "while you drive": ("set", "move_to"),
    "never drive there": ("never", "move_to"),
    "skip the drive": ("remove", "move_to"),
    "when the request is done": ("after", REQUEST),
}
# the anchors a place can be said of (where a thing is put down, brought, driven to)
PLACED = ("place_object", "bring_object_to", "move_to")
HANDS = {"use your left hand": "left", "use your right hand": "right"}
SPEEDS = ("0.3", "0.5", "0.7", "1.5", "2.0")
DRIVE_AT = "drive at speed "


FIELDS = ("scene", "did", "said", "when", "things", "where", "do")


@lru_cache(maxsize=4)
def load(path: str | None = None) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """(header, (scene, did, said, when, things, where, do) examples) of
    ``config/reading/edits.yaml``."""
    return load_prompt_file(path or str(config_path("reading", "edits.yaml")), FIELDS)


def form_text(when: str, things: str = "", where: str = "", do: str = "") -> str:
    """The form's lines after ``when:`` as the model writes them."""
    if when == NOTHING:
        return f" {NOTHING}"
    return f" {when}\nthings: {things}\nwhere: {where}\ndo: {do}"


def prefix(path: str | None = None) -> str:
    """The part of every prompt before the scene (the same for every instruction)."""
    header, examples = load(path)
    shown = "".join(f"scene: {s}\nthe robot did: {d}\nsaid: {u}\n{END}{form_text(*rest)}\n\n"
                    for s, d, u, *rest in examples)
    return f"{header}\n\n{shown}"


def build(vocabulary: ReadingVocabulary, did: str, said: str, path: str | None = None) -> str:
    return prefix(path) + f"scene: {vocabulary.scene_line()}\nthe robot did: {did or 'nothing'}" \
                          f"\nsaid: {said}\n{END}"


def _alternatives(options) -> str:
    quoted = sorted({_q(o) for o in options if o}, key=len, reverse=True)
    return " | ".join(quoted) if quoted else '"-"'


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def kind_words(said: str, vocabulary: ReadingVocabulary | None = None) -> list[str]:
    """The words a kind may be named by: each word the user said (3 letters or more), and
    without a plural's s ("drinks" -> "drink"); not a word of a place of the scene
    (``vocabulary``; measured, held-out habits: "whenever you have put something on the
    sideboard, ..." was read for "every sideboard", and no thing was one)."""
    words = [w for w in re.findall(r"[a-z]+", said.lower()) if len(w) >= 3]
    words = list(dict.fromkeys(words + [w[:-1] for w in words if w.endswith("s")
                                        and not w.endswith("ss")]))
    if vocabulary is None:
        return words
    places = {w for name in [*vocabulary.places, *vocabulary.locations]
              for w in re.findall(r"[a-z]+", name.lower())}
    return [w for w in words if w not in places]


def grammar(vocabulary: ReadingVocabulary, said: str = "") -> str:
    """The GBNF of the form (after ``when:``) in the scene of ``vocabulary``; a kind is one of
    the words ``said`` (:func:`kind_words`: the kind a habit is about is one the user
    named)."""
    things = list(vocabulary.things.values())
    surfaces = list(vocabulary.places.values())
    locations = list(vocabulary.locations.values())
    destinations = surfaces + (["handover_to_human"] if vocabulary.me else [])
    place_words = list(vocabulary.places) + [f for f in vocabulary.locations
                                             if f not in vocabulary.places]
    kinds = kind_words(said, vocabulary)
    rules = {
        "root": f'" " ({_q(NOTHING)} | when "\\nthings: " things "\\nwhere: " where '
                '"\\ndo: " do)',
        "when": _alternatives(WHEN),
        "things": '"anything" | "whatever you carry" | "every " kind | "the " name',
        "kind": _alternatives(kinds) if kinds else '[a-z]{3,20}',
        "name": _alternatives(vocabulary.things),
        "where": '"anywhere" | "the " placeword',
        "placeword": _alternatives(place_words),
        "do": f'call | {_alternatives(HANDS)} | "{DRIVE_AT}" ({_alternatives(SPEEDS)}) '
              '| "nothing"',
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


def parse_form(text: str, vocabulary: ReadingVocabulary, said: str = "") -> Edit | None:
    """The edit of the form the model wrote after ``when:``; None for "nothing to learn".
    Raises :class:`EditReadingError` for a form the code cannot apply (a thing or place the
    scene lacks, a ``do`` that does not fit the ``when``)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines or lines[0] == NOTHING:
        return None
    fields = {"when": lines[0]}
    for line in lines[1:]:
        key, sep, value = line.partition(": ")
        if sep and key in ("things", "where", "do"):
            fields[key] = value.strip()
    if fields["when"] not in WHEN or not {"things", "where", "do"} <= set(fields):
        raise EditReadingError(f"not a whole form: {text!r}")
    op, skill = WHEN[fields["when"]]
    do = fields["do"]
    if do in HANDS:                     # a hand is a manner of taking
        op, skill = "set", "grasp"
    elif do.startswith(DRIVE_AT):       # a speed, of driving
        op, skill = "set", "move_to"
    thing = {"anything": "any thing", "whatever you carry": "the held thing"}.get(
        fields["things"], fields["things"])
    place = None if fields["where"] == "anywhere" or skill not in PLACED else \
        fields["where"].removeprefix("the ")
    when = _condition(skill, thing, place, vocabulary) if skill != REQUEST else Condition(REQUEST)
    try:
        if op == "set":
            if do in HANDS:
                return Edit("set", when, argument="hand", value=HANDS[do], said=said,
                            taught=_taught(when))
            if do.startswith(DRIVE_AT):
                return Edit("set", when, argument="speed_factor",
                            value=float(do[len(DRIVE_AT):]), said=said, taught=_taught(when))
            raise EditReadingError(f"{fields['when']!r} needs a hand or a speed, not {do!r}")
        if op in ("never", "remove"):
            return Edit(op, when, said=said, taught=_taught(when))
        if do == "nothing":
            raise EditReadingError(f"{fields['when']!r} needs a call to add, not {do!r}")
        return Edit(op, when, (do,), said=said, taught=_taught(when))
    except ValueError as exc:
        if isinstance(exc, EditReadingError):
            raise
        raise EditReadingError(str(exc)) from exc


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
        what = KIND + thing[len(KIND):].strip() if thing.strip() != "every thing" else ANY
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


ANYTHING = "anything"
KIND_END = "kind:"


@lru_cache(maxsize=4)
def load_kind_said(path: str | None = None) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """(header, (said, kind) examples) of ``config/reading/kind_said.yaml``."""
    return load_prompt_file(path or str(config_path("reading", "kind_said.yaml")),
                            ("said", "kind"))


def kind_prompt(said: str, path: str | None = None) -> str:
    header, examples = load_kind_said(path)
    return header + "\n\n" + "".join(f"said: {s}\n{KIND_END} {k}\n\n" for s, k in examples) \
        + f"said: {said}\n{KIND_END}"


def kind_grammar(said: str, vocabulary: ReadingVocabulary | None = None) -> str:
    """Anything, or one of the words the user said (:func:`kind_words`)."""
    return f'root ::= " " ({_alternatives([ANYTHING, *kind_words(said, vocabulary)])})'


@dataclass
class EditReader:
    """``ask(prompt, grammar)`` -> the model's text (one short grammar-constrained call).

    Where the form read a habit about a thing for anything, a second short question asks
    whether the user spoke of one kind of thing (measured, issue 59: the form's ``things``
    read "anything" for "when you hand me a drink" and "before you take any drink"; a habit
    for anything is said or done for every other thing too)."""

    ask: Callable[[str, str], str]
    path: str | None = None
    last_failure: str | None = None
    names: Callable[[str], Iterable[str]] | None = None   # a thing's other names, as known

    def __call__(self, said: str, vocabulary: ReadingVocabulary, did: str = "") -> Edit | None:
        """The edit ``said`` asks for, the robot having done ``did`` (its calls, in words);
        None where the model reads none or a line the scene cannot hold
        (:attr:`last_failure` says which)."""
        text = self.ask(build(vocabulary, did, said, self.path), grammar(vocabulary, said))
        log.info("read the lasting instruction %r as %r", said[:80], " | ".join(
            text.strip().splitlines()))
        try:
            edit = parse_form(text, vocabulary, said)
        except EditReadingError as exc:
            self.last_failure = str(exc)
            log.warning("no edit in %r: %s", text, exc)
            return None
        self.last_failure = None if edit is not None else \
            "the model read no change of the program"
        if edit is not None and edit.when.thing == ANY and edit.when.skill in THING_FIRST:
            kind = self.ask(kind_prompt(said), kind_grammar(said, vocabulary)).strip()
            log.info("asked whether %r speaks of a kind of thing: %s", said[:80], kind)
            if kind and kind != ANYTHING:
                edit = replace(edit, when=replace(edit.when, thing=one_named(
                    kind, vocabulary, self.names) or KIND + kind))
        return edit


def one_named(word: str, vocabulary: ReadingVocabulary,
              names: Callable[[str], Iterable[str]] | None = None) -> str | None:
    """The one thing of the scene whose spoken name has ``word`` in it ("cup": the coffee cup,
    where no other thing is a cup by its name); where none has, the one whose other names
    (``names``: spoken form -> what people call it, core/reading/other_names.py) have it
    ("glass": the tumbler); None where none or several have it. Measured (five-kind bench):
    "always ask me before you take the cup" was read for every cup, and the model then judged
    the muesli box a cup (seed 28755); "... the glass" for every glass, and the sponge was
    judged a glass (62203)."""
    named = [name for spoken, name in vocabulary.things.items() if word in spoken.split()]
    if not named and names is not None:
        # a name that is the word itself first ("glass" for the tumbler; "empty glass" for
        # the empty mug is another thing's)
        others = {name: tuple(names(spoken)) for spoken, name in vocabulary.things.items()}
        named = [name for name, called in others.items() if word in called] or \
            [name for name, called in others.items() if any(word in c.split() for c in called)]
    return named[0] if len(named) == 1 else None


__all__ = ["EditReader", "one_named", "EditReadingError", "parse", "parse_form", "grammar", "build",
           "kind_prompt", "kind_grammar",
           "prefix", "load", "form_text", "kind_words", "SKILLS", "WHEN", "MAX_TOKENS", "STOP"]

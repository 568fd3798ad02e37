"""The model's reading text back into types: :func:`parse` follows the grammar of
:mod:`.grammar` over the same vocabulary, so what the grammar admits parses, and what an
endpoint without a grammar writes outside it is refused with the reason (:class:`ReadingError`).

This reads the MODEL's output (a closed line language), never the user's words.
"""
from __future__ import annotations

from .grammar import ARTICLES
from .structure import (
    ANYWHERE,
    BARE,
    DISTANCES,
    ELSEWHERE,
    HANDS,
    ME,
    MOVES,
    NONE,
    OTHER_COLOR,
    SAME_COLOR,
    SIDE_WORDS,
    SIDES,
    SPEEDS,
    Clause,
    Reading,
    Selection,
    Target,
)
from .vocabulary import ReadingVocabulary

_RELATIONS = {**{w: ("side", s) for s, w in SIDE_WORDS.items()},
              **{w: (how, None) for how, w in DISTANCES.items()}}


class ReadingError(ValueError):
    """The text is no reading in this scene's vocabulary."""


def _name(text: str, forms: dict[str, str], what: str) -> str:
    """The name ``text`` says (an article before it aside)."""
    if text in forms:
        return forms[text]
    for article in ARTICLES:
        if text.startswith(article) and text[len(article):] in forms:
            return forms[text[len(article):]]
    raise ReadingError(f"{text!r} is no {what} of this scene")


def _split_once(text: str, sep: str) -> tuple[str, str]:
    if sep not in text:
        raise ReadingError(f"{text!r} has no {sep.strip()!r}")
    head, _, tail = text.partition(sep)
    return head, tail


def parse_objects(text: str, v: ReadingVocabulary) -> Selection | None:
    text = text.strip()
    if text == NONE:
        return None
    if text.startswith("every "):
        kind = text[len("every "):]
        if kind not in v.mover_kinds:
            raise ReadingError(f"{kind!r} is no kind of this scene")
        return Selection("every", kind=kind)
    if text.startswith("the ") and not _is_names(text, v):
        rest = text[len("the "):]
        for kind in sorted(v.mover_kinds, key=len, reverse=True):
            if not rest.startswith(kind + " "):
                continue
            tail = rest[len(kind) + 1:]
            if tail.startswith("number "):
                count, _, edge = tail[len("number "):].partition(" from the ")
                if not count.isdigit() or edge not in SIDES:
                    raise ReadingError(f"{text!r}: a count is 'number <n> from the <side>'")
                return Selection("nth", kind=kind, side=edge, nth=int(count))
            for words, (how, side) in _RELATIONS.items():
                if tail.startswith(words + " "):
                    reference = _name(tail[len(words) + 1:], v.things, "thing")
                    return Selection(how, kind=kind, side=side, reference=reference)
        # else: a thing whose spoken form starts with "the" (none do here): fall through
    names = text.split(" and ")
    try:
        return Selection("named", names=tuple(_name(n, v.movers, "thing to move") for n in names))
    except ReadingError:
        if text in v.movers:                  # a name with " and " in it
            return Selection("named", names=(v.movers[text],))
        raise


def _is_names(text: str, v: ReadingVocabulary) -> bool:
    try:
        for name in text.split(" and "):
            _name(name, v.movers, "thing to move")
    except ReadingError:
        return False
    return True


def parse_where(text: str, v: ReadingVocabulary) -> Target | None:
    text = text.strip()
    if text == NONE:
        return None
    if text == ELSEWHERE:
        return Target("elsewhere")
    if text == SAME_COLOR:
        return Target("same color")
    if text == OTHER_COLOR:
        return Target("other color")
    if text == ME and v.me:
        return Target("me")
    return Target("named", _name(text, v.targets, "thing or place"))


def _end(text: str, v: ReadingVocabulary) -> str | None:
    text = text.strip()
    return None if text == ANYWHERE else _name(text, v.locations, "location")


def parse_clause(line: str, v: ReadingVocabulary) -> Clause:
    line = line.strip()
    if line in BARE:
        return Clause(line)
    kind, body = _split_once(line, ": ")
    if kind in MOVES:
        objects, where = _split_once(body, " -> ")
        return Clause(kind, parse_objects(objects, v), parse_where(where, v))
    if kind in ("retry", "forget"):
        return Clause(kind, parse_objects(body, v))
    if kind in SPEEDS:
        a, b = _split_once(body, " -> ")
        return Clause(kind, route=(_end(a, v), _end(b, v)))
    if kind == "hand":
        if body.strip() not in HANDS:
            raise ReadingError(f"{body!r} is no hand")
        return Clause(kind, hand=body.strip())
    if kind == "also":
        objects, companion = _split_once(body, " with ")
        return Clause(kind, parse_objects(objects, v), companion=parse_objects(companion, v))
    raise ReadingError(f"{kind!r} is no kind of clause")


def parse(utterance: str, text: str, v: ReadingVocabulary) -> Reading:
    """The :class:`Reading` of ``text`` (the model's continuation after ``reading:\\n-``)."""
    lines = [ln.strip() for ln in text.strip("\n").split("\n")]
    clauses = []
    for i, line in enumerate(lines):
        if not line:
            break
        if i > 0:
            if not line.startswith("- "):
                break                      # past the reading (an endpoint went on writing)
            line = line[2:]
        clauses.append(parse_clause(line, v))
    if not clauses:
        raise ReadingError("the reading is empty")
    return Reading(utterance, tuple(clauses))


__all__ = ["parse", "parse_clause", "parse_objects", "parse_where", "ReadingError"]

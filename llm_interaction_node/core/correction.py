"""After a correction: which objects and targets the next moves may name.

Measured with the 1.5B embedded model (issue 31): after "in the bottom left corner, not on the
left side" it copies or nudges its rejected arguments (``denormalize_xy([0, 0])`` again); it
reads neither the listing, nor the examples, nor its own outputs. So the help acts where the
model cannot ignore it, in the decoding: in the turn after the user answered an attempt that
moved something, the move function's arguments (:class:`~.registry.MoveSpec`) are limited to
what the user's words name — the objects and places of the instruction and of the reply — and
never a move the rejected attempt made (the same object to the same target). The model still
chooses the call, the object and the order; only what the user just refused is removed, and
coordinates give way to the names of the places (``'left side'``), which the API takes.

:func:`focus_after` builds the :class:`Focus` (None: nothing to restrict); the console's
:class:`~.constraint.Constraint` renders it into the grammar (what the model cannot write
is never refused afterwards: the grammar alone holds it).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .registry import MoveSpec

# words that ask for a point the names cannot give (an offset, a distance, between two things):
# then the target may still be an expression
OFFSET_WORDS = re.compile(r"\b(cm|centimet\w*|millimet\w*|inch\w*|a little|a bit|a lot|further|"
                          r"farther|closer|between|next to|beside|away from|apart)\b")
_SYNONYMS = (("grey", "gray"), ("centre", "middle"), ("center", "middle"))


@dataclass(frozen=True)
class Focus:
    """What the move function may take in this turn.

    ``objects``: the literal objects it may move (None: any movable scene name, or an
    expression);
    ``targets``: the literal targets it may name; ``refused``: (object, target) moves of the
    rejected attempt, never offered again; ``free_targets``: an expression may be the target
    too (the user asked for an offset or a distance)."""

    function: str
    spec: MoveSpec
    objects: tuple[str, ...] | None
    targets: tuple[str, ...]
    refused: frozenset[tuple[str, str]] = frozenset()
    free_targets: bool = False

    def targets_for(self, obj: str | None) -> list[str]:
        """The literal targets allowed for ``obj`` (None: an object given as an expression)."""
        return [t for t in self.targets if t != obj and (obj, t) not in self.refused]


def _normal(text: str) -> str:
    text = " " + " ".join(re.sub(r"[^a-z0-9 ]", " ", text.lower()).split()) + " "
    for word, same in _SYNONYMS:
        text = text.replace(f" {word} ", f" {same} ")
    return text


def _forms(name: str, places: Sequence[str]) -> list[str]:
    """The ways a user names ``name``: itself; a corner without the word corner ("top left");
    a side as an edge; a coloured object as "the red one"."""
    words = _normal(name).split()
    forms = [" ".join(words)]
    if name in places:
        if words[-1] == "corner":
            forms.append(" ".join(words[:-1]))
        elif words[-1] == "side":
            forms.append(" ".join(words[:-1] + ["edge"]))
        elif words == ["middle"]:
            forms.append("middle of the table")
    elif len(words) == 2:
        forms.append(f"{words[0]} one")
    return forms


def mentioned(text: str, names: Iterable[str], places: Sequence[str] = ()) -> list[str]:
    """The names in ``names`` that ``text`` speaks of, in the order given (a name found only
    inside a longer name that was found too is the longer one)."""
    said = _normal(text)
    found = []
    for name in names:
        if any(f" {form} " in said for form in _forms(name, places)):
            found.append(name)
    # a name whose words lie within another found name is that one ("middle" within a
    # "middle bowl", "red block" within "dark red block")
    return [n for n in found if not any(n != m and f" {_normal(n).strip()} " in _normal(m)
                                        for m in found)]


# words before a name that make it a place (where something is or goes), not what to move:
# "the orange block went ON THE yellow block" moves the orange block, never the yellow one
_LOCATION = re.compile(r"\b(on|onto|in|into|to|at|near|beside|next to|towards?|of|from|under|"
                       r"over|behind|above|below) (the )?$")


def _said_before(said: str, name: str, places: Sequence[str]) -> list[str]:
    """For each occurrence of a form of ``name`` in ``said`` (:func:`_normal`'s text), the
    words before it, ending in one blank (what the cue patterns are matched against)."""
    return [said[:m.start() + 1].strip() + " " for form in _forms(name, places)
            for m in re.finditer(f"(?= {re.escape(form)} )", said)]


def spoken_of_as_moved(text: str, names: Iterable[str], places: Sequence[str] = ()) -> list[str]:
    """The names of :func:`mentioned` that ``text`` says at least once as a thing, not only as
    a place (after "on the", "in the", "next to the", ...)."""
    said = _normal(text)
    return [n for n in mentioned(text, names, places)
            if any(not _LOCATION.search(before) for before in _said_before(said, n, places))]


# words before a name that make it a reference for choosing, not a place to go: "the block
# to the left of THE YELLOW BOWL", "the block closest to the green bowl", "a block below the
# yellow bowl" (measured: the wrong block was put into the yellow bowl after "The block you
# picked was a block below the yellow bowl"); "on top of the red block" stays a place
_RELATION = re.compile(r"\b((left|right|top|bottom|side|front|back) of|below|above|under|"
                       r"underneath|beneath|behind|beside|near|nearest to|closest to|close to|"
                       r"farthest from|furthest from|far from|next to|away from|than) (the )?$")
_ON_TOP_OF = re.compile(r"\bon top of (the )?$")


def spoken_of_as_reference(text: str, names: Iterable[str],
                           places: Sequence[str] = ()) -> list[str]:
    """The names of :func:`mentioned` that ``text`` says only as a reference for choosing
    (after "to the left of the", "closest to the", "below the", ...), never as a place."""
    said = _normal(text)
    return [n for n in mentioned(text, names, places)
            if all(_RELATION.search(before) and not _ON_TOP_OF.search(before)
                   for before in _said_before(said, n, places))]


# in a clause of the reply, what makes the names after it where something IS now ("went in
# the blue bowl", "you left it on the table towards the top right") or where it should GO
# ("not in", "instead of", "should be", "I wanted", "go into"): the later cue wins
_WHERE_NOW = re.compile(r"\b(went|is|are|was|were|ended up|sits|lies|lying|left|stayed|"
                        r"standing|landed|got|share)\b")
_WANTED = re.compile(r"\b(not|instead|should|wanted|want|asked|meant|mean|go|goes|belongs?)\b")


def said_as_where(text: str, names: Iterable[str], places: Sequence[str] = ()) -> list[str]:
    """The names of :func:`mentioned` that ``text`` gives only as where something is now,
    never as where it should go: "the orange block went in the blue bowl instead of on the
    top side" -> the blue bowl; "that is in the top right corner, not in the blue bowl" ->
    the top right corner. Per clause, a name takes the side of the last cue before it
    (:data:`_WHERE_NOW` or :data:`_WANTED`); a name with no cue before it is neither."""
    names = list(names)
    where, wanted = set(), set()
    for clause in re.split(r"[.,;!?]+", text):
        said = _normal(clause)
        hits = sorted((m.start(), m.start() + len(form) + 1, name)
                      for name in mentioned(clause, names, places)
                      for form in _forms(name, places)
                      for m in re.finditer(f"(?= {re.escape(form)} )", said))
        side, end = None, 0
        for start, stop, name in hits:
            if start < end:
                continue                     # a shorter form inside a name already read
            span = said[end:start + 1]
            cues = [(m.start(), "where") for m in _WHERE_NOW.finditer(span)]
            cues += [(m.start(), "wanted") for m in _WANTED.finditer(span)]
            if cues:
                side = max(cues)[1]
            (where if side == "where" else wanted if side == "wanted" else set()).add(name)
            end = stop
    return [n for n in names if n in where and n not in wanted]


def focus_after(
    function: str,
    spec: MoveSpec,
    utterances: Sequence[str],
    scene_names: Sequence[str],
    attempt: Iterable[tuple[str, str | None]],
) -> Focus | None:
    """The focus of the turn that answers ``utterances[-1]`` (a reply to an attempt whose
    moves were ``attempt``), with the instruction ``utterances[0]``; None when the words name
    no target (nothing to choose among)."""
    if len(utterances) < 2:
        return None
    words = " ".join(utterances[:1] + utterances[-1:])
    names = list(dict.fromkeys(list(scene_names) + [p for p in spec.places
                                                    if p not in scene_names]))
    said = mentioned(words, names, spec.places)
    # where the reply says a thing lies now is no place to move it to ("went in the blue bowl
    # instead of on the top side": measured, the model put it into the blue bowl first)
    where = set(said_as_where(utterances[-1], names, spec.places)) - set(
        mentioned(utterances[0], names, spec.places))
    references = set(spoken_of_as_reference(words, names, spec.places))
    targets = tuple(n for n in said if n not in where and n not in references)
    if not targets:
        return None
    movable = [n for n in spoken_of_as_moved(" ".join(utterances[-1:]) + " " + utterances[0],
                                             scene_names, spec.places) if spec.movable(n)]
    # where the attempt LEFT each object is refused, not a move a later one replaced
    # (measured: red block -> red bowl, then -> green bowl; "it went in the green bowl instead
    # of in the red bowl" left nothing to offer when every move of the attempt was refused)
    last = {o: t for o, t in attempt}
    refused = frozenset((o, t) for o, t in last.items() if t is not None)
    focus = Focus(function, spec, tuple(movable) or None, targets, refused,
                  bool(OFFSET_WORDS.search(_normal(words))))
    objects = focus.objects if focus.objects is not None else tuple(
        n for n in scene_names if spec.movable(n))
    if not any(focus.targets_for(o) for o in objects):
        return None              # every named target was refused: nothing left to offer
    return focus


__all__ = ["Focus", "focus_after", "mentioned", "spoken_of_as_moved", "said_as_where",
           "spoken_of_as_reference",
           "OFFSET_WORDS"]

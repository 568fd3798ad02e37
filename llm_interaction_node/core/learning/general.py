"""A lesson that moves every object of a kind, written as a loop over the scene's listing.

A ``final`` lesson names the objects of its scene: for "put the blocks in the green bowl" it
puts the red, the green and the yellow block, one statement each. In another scene the blocks
are others and their number differs, and a copying model follows the count it sees.
Measured (issue 30, 0e8cd4a, blocks_in_bowl, embedded 1.5B model): with three such lessons in
the prompt, 2 of the 4 later runs left one block out (the first of the listing in one, the
last in the other), as without lessons. Where the request, as the model read it
(:mod:`..reading`: ``every block``, whatever the words: "the cubes", "tidy up: everything
goes in the bowl"), asks for every object of a kind and the accepted attempt moved exactly the
scene's objects of that kind to one place, the lesson says so in code, the idiom the model
writes itself when it loops::

    block_names = [name for name in get_obj_names() if name.endswith(' block')]
    for name in block_names:
        put_first_on_second(name, 'green bowl')

The loop moves them in the listing's order, not the one the user saw; :mod:`.final` replays
it and compares their end without height, and keeps the literal lesson where it does not work.

Where the request was read ``every block -> the same color bowl`` and the attempt put each
block into the bowl of its own colour, the target is computed the same way for every block
(``put_first_on_second(name, name.replace(' block', ' bowl'))``). Measured (issue 43, seed
48740, matching_bowls): the literal lesson "orange block -> orange bowl, blue block -> blue
bowl" passed the changed-scene check (the copies keep the objects' names) and two later runs
with it in the prompt were not right first time, one of them after moving the green block on
into the orange bowl.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ..reading.structure import Reading
from ..transcript.statements import bare_call
from ..transcript.transcript import Entry, Transcript, listed_names
from .transcripts import move_key

MIN_OBJECTS = 2          # one object is a choice, not "every object of a kind"
# the first statement of :meth:`EveryOfKind.statements`, as a stored lesson shows it
_RULE = re.compile(r"^\w+_names = \[name for name in .+ if name\.endswith\(' [^']+'\)\]$")


@dataclass(frozen=True)
class EveryOfKind:
    """The moves of a lesson as one rule: ``function(name, target)`` for every name the
    ``listing`` call lists that ends with `` kind``; ``moved``: the names the lesson moved."""

    kind: str
    listing: str
    function: str
    target: str
    moved: frozenset[str]

    def statements(self) -> list[Entry]:
        names = f"{identifier(self.kind)}_names"
        return [Entry(f"{names} = [name for name in {self.listing} "
                      f"if name.endswith(' {self.kind}')]"),
                Entry(f"for name in {names}:\n    {self.function}(name, {self.target})")]


def every_of_kind(request: Reading | None, look: Entry,
                  moves: list[Entry]) -> EveryOfKind | None:
    """The rule ``moves`` follow, if the request (its reading) asks for every object of a
    kind and they move exactly the objects of that kind ``look`` listed, each once, with one
    function to one target (the same argument source); else None."""
    scene = listed_names(look.output)
    if scene is None or len(moves) < MIN_OBJECTS:
        return None
    calls = [bare_call(e.source) for e in moves]
    if any(c is None or len(c.args) != 2 or c.keywords or move_key(e.source) is None
           for c, e in zip(calls, moves, strict=True)):
        return None
    functions = {c.func.id for c in calls}
    moved = [c.args[0].value if isinstance(c.args[0], ast.Constant) else None for c in calls]
    if len(functions) != 1 or len(set(moved)) != len(moved) \
            or not all(isinstance(m, str) for m in moved):
        return None
    kinds = {name.rsplit(" ", 1)[-1] for name in moved}
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if set(moved) != {n for n in scene if n.rsplit(" ", 1)[-1] == kind}:
        return None
    targets = {ast.unparse(c.args[1]) for c in calls}
    if len(targets) == 1 and asks_for_every(request, kind):
        target = targets.pop()
    elif (target := _own_color_target(calls, moved, kind)) is None \
            or not asks_for_every(request, kind, where="same color"):
        return None
    return EveryOfKind(kind, look.source.strip(), functions.pop(), target, frozenset(moved))


def _own_color_target(calls, moved: list[str], kind: str) -> str | None:
    """The expression of each object's own-colour target (``name.replace(' block', ' bowl')``)
    where every call sends its object to the ``<its colour> <one kind>`` named alike; else
    None."""
    targets = [c.args[1].value if isinstance(c.args[1], ast.Constant) else None for c in calls]
    if not all(isinstance(t, str) and " " in t for t in targets):
        return None
    target_kinds = {t.rsplit(" ", 1)[-1] for t in targets}
    if len(target_kinds) != 1 or kind in target_kinds:
        return None
    other = target_kinds.pop()
    if any(t != m[: -len(kind)] + other for t, m in zip(targets, moved, strict=True)):
        return None
    return f"name.replace({' ' + kind!r}, {' ' + other!r})"


def is_rule_lesson(lesson: str) -> bool:
    """Whether a stored lesson (its transcript text) holds the loop :class:`EveryOfKind`
    writes (the memory keeps such lessons to requests of their own kind)."""
    return any(_RULE.match(e.source.strip()) for e in Transcript.parse(lesson).entries)


def asks_for_every(request: Reading | None, kind: str, where: str | None = None) -> bool:
    """Whether the request, as the model read it, asks for every object of ``kind`` (with
    ``where``: to a target of that sort, e.g. ``same color``)."""
    return request is not None and any(
        c.objects is not None and c.objects.how == "every" and c.objects.kind == kind
        and (where is None or (c.where is not None and c.where.how == where))
        for c in request.moves)


def identifier(word: str) -> str:
    """A kind word as the start of a Python name (``block`` -> ``block``)."""
    return re.sub(r"\W", "_", word) or "object"


__all__ = ["EveryOfKind", "every_of_kind", "asks_for_every", "is_rule_lesson", "MIN_OBJECTS"]

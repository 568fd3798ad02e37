"""The parts of the ``final`` lesson (core/learning/final.py): the request, the closing
reply, the accepted attempt and the earlier statements it needs, and the forms built
from them (net moves, every statement that worked), without storing or replaying."""
from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from ..reading.structure import Reading
from ..transcript.statements import bare_call
from ..transcript.transcript import Entry, Transcript, output_value
from .at_once import carried_at_once, carried_things, says_both_hands
from .route import undriven_route, with_route_speed
from .transcripts import (
    cut_interaction,
    failed,
    move_key,
    opening,
    reply_of,
)

Read = Callable[[str], Reading | None]


def no_reading(utterance: str) -> Reading | None:
    """A reader that reads nothing (a lesson then follows no rule a reading would show)."""
    return None


def _names(source: str) -> tuple[set[str], set[str]]:
    """(names the input reads before binding them itself, names it binds)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), set()
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, (ast.Store, ast.Del)) else read).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return read - bound, bound


def _binds_only(source: str) -> bool:
    """An assignment or definition, not an action: safe to show again before the last attempt."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return bool(tree.body) and all(isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign,
                                                  ast.FunctionDef, ast.ClassDef))
                                   for s in tree.body)


def needed_bindings(earlier: list[Entry], attempt: list[Entry]) -> list[Entry]:
    """The earlier inputs (assignments and definitions only, in their order) that bind a
    name ``attempt`` reads before binding it, and, transitively, what those read."""
    needed: set[str] = set()
    bound: set[str] = set()
    for entry in attempt:
        read, binds = _names(entry.source)
        needed |= read - bound
        bound |= binds
    keep: list[Entry] = []
    for entry in reversed(earlier):
        if not _binds_only(entry.source):
            continue
        read, binds = _names(entry.source)
        if binds & needed:
            keep.append(entry)
            needed = (needed - binds) | read
    return list(reversed(keep))


def last_moves(entries: list[Entry], later: set[tuple[str, str]] | None = None) -> list[Entry]:
    """``entries`` without the moves that a later move of the same object (in ``entries`` or
    with a key in ``later``) replaces; every other input kept, in order."""
    seen = set(later or ())
    keep: list[Entry] = []
    for entry in reversed(entries):
        key = move_key(entry.source)
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        keep.append(entry)
    return list(reversed(keep))


def is_look(entry: Entry) -> bool:
    """A call without positional arguments that printed something, as a bare expression:
    ``get_obj_names()``, ``list_object_locations(affordance='grasp')`` (a look at the scene;
    an assignment is a binding, :func:`needed_bindings`)."""
    call = bare_call(entry.source)
    return bool(entry.output.strip()) and call is not None and not call.args


@dataclass
class FinalParts:
    """An interaction cut for the ``final`` lesson: ``opening`` (the request, the closing reply
    as a comment), ``earlier`` (the statements before the last correction that worked: no comments,
    no waits, no failures), ``attempt`` (the accepted attempt's statements that did not
    fail, without the model's comments) and ``look`` (the interaction's first look at the scene,
    :func:`is_look`, kept first in every form: a lesson shows the scene its names are from, as
    every seed example does); ``rejected``: the objects of a wrong choice
    (:func:`rejected_choices`), whose moves are not in :attr:`earlier` and whose place the
    replay's end is not compared on; ``piled``: the objects the accepted attempt moved to the
    same place more than once, word for word (:func:`repeated_moves`), whose height in a pile
    the replay's end is not compared on."""

    opening: list[Entry]
    earlier: list[Entry]
    attempt: list[Entry]
    look: list[Entry] = field(default_factory=list)
    rejected: frozenset[str] = frozenset()
    piled: frozenset[str] = frozenset()
    sped: tuple[str, ...] = ()          # the moves given the speed the user asked for
    told: bool = False                  # a reply named a thing to move outright
    at_once: tuple[str, ...] = ()       # the things carried together, one in each hand
    # the route the user asked a speed for where no drive of the attempt went: nothing to store
    undriven: tuple[str | None, str | None] | None = None

    @property
    def bindings(self) -> list[Entry]:
        """The earlier statements the accepted attempt needs bound (:func:`needed_bindings`)."""
        return needed_bindings(self.earlier, self.attempt)

    def net(self) -> FinalParts:
        """The net moves: the attempt with each object's move once (its last), the earlier
        statements without the moves a later one replaces (:func:`last_moves`)."""
        attempt = last_moves(self.attempt)
        keys = {k for k in (move_key(e.source) for e in attempt) if k is not None}
        return FinalParts(self.opening, last_moves(self.earlier, keys), attempt, self.look,
                          self.rejected, self.piled, self.sped, self.told,
                          self.at_once, self.undriven)

    def example(self, earlier: list[Entry], outputs: bool = False) -> Transcript:
        """The opening, ``earlier`` (a selection of :attr:`earlier`, in order), the attempt
        and a bare ``wait_for_trigger()``; outputs left out unless ``outputs`` (the answers to
        ``ask()`` kept: the replay takes them as what the user said)."""
        body = [Entry(e.source, e.output if outputs or e.calls("ask") else "")
                for e in self.look + earlier + self.attempt]     # an answer is the user's
        return Transcript(self.opening + body + [Entry("wait_for_trigger()")])


def final_parts(transcript: Transcript, read: Read = no_reading) -> FinalParts | None:
    """The :class:`FinalParts` of an interaction (the live transcript, so that errors are
    known); None if it holds no request or the last attempt did nothing. ``read``: the
    readings of the user's utterances (a speed on a route, a rejected choice, two things at
    once). What comes along with a thing is a habit (learning/habit.py)."""
    cut = cut_interaction(transcript)
    if cut is None:
        return None
    body = cut.body
    replies = [i for i, e in enumerate(body) if reply_of(e) is not None]
    accepted = replies[-1] + 1 if replies else 0       # the attempt after the last correction
    earlier = [e for e in body[:accepted] if reply_of(e) is None and not e.is_comment
               and not failed(e) and not Entry(e.source).calls("wait_for_trigger")]
    look = earlier[:1] if earlier and earlier[0] is body[0] and is_look(body[0]) else []
    # the model's own comments are left out: unchecked, they were measured wrong ("# red block
    # goes in green bowl instead of red bowl." before putting it in the red bowl) and imitated
    attempt = [e for e in body[accepted:] if not failed(e) and not e.is_comment
               and not Entry(e.source).calls("wait_for_trigger")]
    if not any(not e.is_comment for e in attempt):
        return None
    said = cut.closing_reply
    closing = read(said) if said else None
    if closing is None or not closing.asks_to_learn:
        # the learn call after the change a request to learn came with (the gate's rule
        # "done first"), or an approval honoured as that request ("accepted"): that request
        # says what the lesson is about
        asked = [r for r in (reply_of(e) for e in body) if r is not None
                 and (reading := read(r)) is not None and reading.asks_to_learn]
        if asked:
            said, closing = asked[-1], read(asked[-1])
    sped = with_route_speed(closing, attempt)
    undriven = undriven_route(closing, attempt)
    changed = tuple(e.source for e, was in zip(sped, attempt, strict=True)
                    if e.source != was.source)
    attempt = sped
    at_once: tuple[str, ...] = ()
    if says_both_hands(closing):
        # "next time, both at once": the two trips carried together (learning/at_once.py)
        together = carried_at_once(earlier[len(look):] + attempt)
        if together is not None:
            earlier, attempt = look, together
            at_once = tuple(carried_things(together))
    rejected = rejected_choices(body, accepted, read)
    values = echoed_values(body)
    earlier = [e for e in earlier if moved_object(e.source, values) not in rejected]
    only_learn = closing is not None and closing.only_learn
    return FinalParts(opening(cut.request, said, only_learn), earlier[len(look):],
                      attempt, look, rejected, repeated_moves(attempt), changed,
                      _names_a_thing(body[:accepted], read), at_once, undriven)


def _names_a_thing(entries: list[Entry], read: Read) -> bool:
    """Whether a reply among ``entries`` was read as moving a thing it names outright ("the
    yellow block should be there too"): the user then says which things go where."""
    for entry in entries:
        reply = reply_of(entry)
        reading = read(reply) if reply is not None else None
        if reading is not None and any(c.objects is not None and c.objects.how == "named"
                                       for c in reading.moves):
            return True
    return False


def repeated_moves(entries: list[Entry]) -> frozenset[str]:
    """The objects whose move ``entries`` repeat word for word. Measured (issue 30,
    blocks_on_place run 3): "left side" x 7 for three blocks piled them in an order nobody
    chose; with each block's last put alone the replay piles them in another, the end was
    compared by height, and the seven puts were stored and imitated (a block put in every
    bowl in turn, blocks put twice)."""
    seen: set[str] = set()
    repeated: set[str] = set()
    for entry in entries:
        key = move_key(entry.source)
        if key is None:
            continue
        source = " ".join(entry.source.split())
        if source in seen:
            repeated.add(key[1])
        seen.add(source)
    return frozenset(repeated)


def moved_objects(entries: list[Entry], values: dict[str, str] | None = None) -> set[str]:
    """The objects ``entries`` moved (:func:`moved_object`), failed moves aside."""
    return {o for o in (moved_object(e.source, values or {}) for e in entries if not failed(e))
            if o is not None}


def echoed_values(entries: list[Entry]) -> dict[str, str]:
    """The string each name was shown to hold: ``leftmost`` echoed as ``'yellow block'``."""
    values: dict[str, str] = {}
    for entry in entries:
        source = entry.source.strip()
        if source.isidentifier() and not failed(entry):
            value = output_value(entry.output)
            if isinstance(value, str):
                values[source] = value
    return values


def moved_object(source: str, values: dict[str, str]) -> str | None:
    """The object a move takes: its string literal (:func:`move_key`) or the value a name was
    echoed with (``put_first_on_second(leftmost, 'top side')`` after ``leftmost`` showed
    ``'yellow block'``). Measured (issue 30, seed 1, nth_block_from_direction run 1): the
    wrong block, moved by a name, stayed in the lesson as a move the user rejected."""
    key = move_key(source)
    if key is not None:
        return key[1]
    call = bare_call(source)
    if call is None or len(call.args) < 2 or not isinstance(call.args[0], ast.Name):
        return None
    return values.get(call.args[0].id)


def names_the_choice_only(attempt: list[Entry]) -> bool:
    """Whether every statement of the accepted attempt is a move of an object named by a
    string literal (:func:`.transcripts.move_key`) or a look at the scene: no computation.
    After a rejected choice such a lesson shows which object was right in that scene, not how
    to choose it.
    Measured (issue 30, f09b4f8): with such lessons stored (block_direction_of_bowl,
    "put_first_on_second('yellow block', 'top right corner')" for "the block to the left of
    the yellow bowl"), "pick up the block closest to the ... bowl" put a block named outright
    in 5 of 5 runs, 3 of them the wrong one; without lessons the model computed the closest
    block (a min over the distances) in 5 of 5, right each time."""
    moves = [e for e in attempt if move_key(e.source) is not None]
    return bool(moves) and all(e in moves or is_look(e) for e in attempt)


def rejected_choices(body: list[Entry], accepted: int, read: Read = no_reading) -> frozenset[str]:
    """The objects the user said were the wrong choice: an attempt that moved one object only,
    answered by a reply the model read as "wrong object" (:mod:`..reading`), where the
    accepted attempt (from ``accepted`` on) moves other ones.
    Measured (issue 30, block_direction_of_bowl): "The block you picked was a block below the
    yellow bowl"; the blue block stayed in the corner, the yellow one went there too, and the
    lesson, replayed to end like the live world, moved both."""
    values = echoed_values(body)
    chosen = moved_objects(body[accepted:], values)
    rejected: set[str] = set()
    start = 0
    for i, entry in enumerate(body[:accepted]):
        reply = reply_of(entry)
        if reply is None:
            continue
        moved = moved_objects(body[start:i], values)
        reading = read(reply)
        if len(moved) == 1 and not moved & chosen and reading is not None \
                and reading.rejects_choice:
            rejected |= moved
        start = i + 1
    return frozenset(rejected)


def final_example(transcript: Transcript, outputs: bool = False,
                  read: Read = no_reading) -> Transcript | None:
    """The ``final`` lesson of an interaction: the accepted attempt with the earlier
    bindings it reads; None as :func:`final_parts`. The statements' outputs are left for the
    replay to fill, unless ``outputs`` (no world to replay in: the live outputs are kept)."""
    parts = final_parts(transcript, read)
    return parts.example(parts.bindings, outputs) if parts is not None else None


def worked_example(transcript: Transcript, outputs: bool = False) -> Transcript | None:
    """The fuller form :func:`store_final` falls back to when the accepted attempt alone does
    not end as the live world did: every statement that worked, in order (``corrected``
    without the correction comments); None as :func:`final_parts`."""
    parts = final_parts(transcript)
    return parts.example(parts.earlier, outputs) if parts is not None else None

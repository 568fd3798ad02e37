"""A lesson's request and the request at hand, matched by what they mean (issue 43).

Both are readings (:mod:`..reading`): clauses with the objects meant and where they go. Two
readings have the same **shape** where their clauses are of the same kinds, select objects the
same way (by name, and how many; every object of a kind; on a side of / nearest to / farthest
from a reference; the n-th from an edge) and send them the same way (a named place or object,
the same color bowl, the user, ...). What may differ are the **slots**: the names, the
reference, the side, the count, the place, the hand, a route's ends. Where the shapes agree,
:func:`slot_mapping` says how each slot of the lesson reads in the request at hand ("green
bowl" -> "blue bowl", "left" -> "top", "second" -> "first"); the lesson is then shown and
followed in the request's names (:func:`.adapt.adapted_to`), whatever words either was said in.
Measured before (issue 43): a lesson matched by words was reused for requests with the same
words only ("grab ...", "please ...", "on the right of" got nothing)."""
from __future__ import annotations

from dataclasses import replace
from enum import StrEnum

from ..learning.choice import ORDINALS
from ..reading.structure import CONDITIONS, Clause, Reading, Selection, Target, names_said


class Reuse(StrEnum):
    """How the nearest lesson is matched to the request at hand (``memory.reuse``)."""

    MEANING = "meaning"    # by the readings of the two requests (words only where one is unread)
    WORDS = "words"        # by the words: names only may differ (:func:`.adapt.name_mapping`)


# clauses that say nothing a program does: they do not make a shape
NOT_DONE = ("learn", "done", "question", "other", "stop")

COUNT_WORDS = {n + 1: w for w, n in ORDINALS.items() if n >= 0}     # 1 -> "first", ...


def _selection_shape(s: Selection | None):
    if s is None:
        return None
    return (s.how, len(s.names) if s.how == "named" else 0, s.kind)


def _target_shape(t: Target | None):
    """No place named and "elsewhere" are one shape: the lesson says where (measured, issue 44:
    "put the banana away" read as ``elsewhere`` did not follow the lesson taught for "could
    you tidy up the banana?", read without a place)."""
    return None if t is None or t.how == "elsewhere" else t.how


def _clause_shape(c: Clause):
    return (c.kind, _selection_shape(c.objects), _target_shape(c.where),
            None if c.route is None else tuple(end is None for end in c.route),
            _selection_shape(c.companion))


def acting(reading: Reading | None) -> tuple[Clause, ...]:
    """The clauses of ``reading`` a program acts on (a lesson's conditions aside)."""
    return () if reading is None else tuple(c for c in reading.clauses
                                            if c.kind not in NOT_DONE + CONDITIONS)


def _conditions_hold(lesson: Reading, mapping: dict[str, str]) -> bool:
    """Each ``also`` of the lesson comes with a thing the request at hand names as the
    lesson's request did (the mapping keeps it): the juice comes with the milk, not with
    whatever else is asked for."""
    for clause in lesson.of_kind("also"):
        for name in clause.companion.names if clause.companion is not None else ():
            if mapping.get(name, name) != name:
                return False
    if lesson.of_kind("ask first"):        # asked about the things its request names
        return _keeps_things(lesson, mapping)
    return True


def _keeps_things(lesson: Reading, mapping: dict[str, str]) -> bool:
    """The request at hand names the things the lesson's request names (the mapping keeps
    each)."""
    return all(mapping.get(n, n) == n for c in acting(lesson) for n in names_said(c.objects))


def _hand_holds(lesson: Reading, asked: Reading | None, mapping: dict[str, str]) -> bool:
    """A hand the lesson's reading says and the request at hand does not belongs to the
    lesson's things (taught for them, in a lesson stored before hands were habits; or how
    the lesson was done): the lesson is followed for those things only. Measured (teach-once
    bench at 3759864): the juice's hand lesson was followed for "I'd like the cup", and the
    cup was grasped with the left."""
    if not lesson.of_kind("hand") or (asked is not None and asked.of_kind("hand")):
        return True
    return _keeps_things(lesson, mapping)


def shape(reading: Reading | None) -> tuple:
    """What a reading asks for with its slots left out (empty: nothing to act on)."""
    return tuple(_clause_shape(c) for c in acting(reading))


def _without_hands(reading: Reading | None) -> Reading | None:
    if reading is None:
        return None
    return Reading(reading.utterance, tuple(c for c in reading.clauses if c.kind != "hand"))


def aligned(lesson: Reading | None, asked: Reading | None) -> tuple:
    """The two readings as they are compared: a hand said in only one of them is how that one
    was done, not what it asks (measured, issue 44: "could you tidy up the banana?" was read
    with ``hand: left`` nobody said, and no later request about the banana matched the lesson);
    said in both, the hand is a slot. A request that says no place for the very things a
    lesson sends to a named place leaves the place to the lesson (:func:`_place_left`)."""
    hands = [r is not None and bool(r.of_kind("hand")) for r in (lesson, asked)]
    if hands[0] != hands[1]:
        lesson, asked = _without_hands(lesson), _without_hands(asked)
    return _place_left(lesson, asked), asked


def _place_left(lesson: Reading | None, asked: Reading | None) -> Reading | None:
    """``lesson`` with the named place of each move clause left out where the request at
    hand's clause of the same place in order names the same things and no place ("put the
    banana away" after "from now on, put the banana on the sideboard",
    learning/taught_place.py): the lesson says where those things go. Things of another name
    keep the shapes apart (the apple is not put where the banana was taught to go)."""
    if lesson is None or asked is None:
        return lesson
    theirs, mine = acting(lesson), acting(asked)
    if len(theirs) != len(mine):
        return lesson
    left = {id(a) for a, b in zip(theirs, mine, strict=True)
            if a.kind == b.kind == "do" and a.where is not None and a.where.how == "named"
            and _target_shape(b.where) is None and names_said(a.objects)
            and names_said(a.objects) == names_said(b.objects)}
    if not left:
        return lesson
    return Reading(lesson.utterance, tuple(replace(c, where=None) if id(c) in left else c
                                           for c in lesson.clauses))


def same_shape(a: Reading | None, b: Reading | None) -> bool:
    a, b = aligned(a, b)
    return bool(shape(a)) and shape(a) == shape(b)


class _Slots:
    """The slot pairs of two readings of one shape; ``ok`` False where one slot of the lesson
    would read as two different ones (two names of the lesson meaning one of the request's is
    fine; one meaning two is not)."""

    def __init__(self):
        self.mapping: dict[str, str] = {}
        self.ok = True

    def put(self, old, new) -> None:
        if old is None or new is None:
            self.ok = self.ok and old == new
            return
        if self.mapping.setdefault(old, new) != new:
            self.ok = False

    def selection(self, a: Selection | None, b: Selection | None) -> None:
        if a is None or b is None:
            return
        for old, new in zip(a.names, b.names, strict=True):
            self.put(old, new)
        self.put(a.reference, b.reference)
        self.put(a.side, b.side)
        if a.nth != b.nth:
            self.put(COUNT_WORDS.get(a.nth), COUNT_WORDS.get(b.nth))

    def clause(self, a: Clause, b: Clause) -> None:
        self.selection(a.objects, b.objects)
        self.selection(a.companion, b.companion)
        if a.where is not None and b.where is not None:
            self.put(a.where.name, b.where.name)
        for old, new in zip(a.route or (), b.route or (), strict=True):
            self.put(old, new)
        self.put(a.hand, b.hand)


def slot_mapping(lesson: Reading | None, asked: Reading | None) -> dict[str, str] | None:
    """How each slot of ``lesson`` (the reading of a lesson's request) reads in ``asked``
    (the reading of the request at hand): ``{old: new}`` for the slots that differ (empty:
    the same meaning in other words); None where the shapes differ or a slot would read two
    ways."""
    if not same_shape(lesson, asked):
        return None
    said = (lesson, asked)
    lesson, asked = aligned(lesson, asked)
    slots = _Slots()
    for a, b in zip(acting(lesson), acting(asked), strict=True):
        slots.clause(a, b)
    if not slots.ok or not _conditions_hold(lesson, slots.mapping) \
            or not _hand_holds(*said, slots.mapping):
        return None
    return {old: new for old, new in slots.mapping.items() if old != new}


def names_meant(reading: Reading | None) -> set[str]:
    """Every name a reading says: the objects named, the references, the places."""
    names: set[str] = set()
    for c in (reading.clauses if reading is not None else ()):
        if c.kind in NOT_DONE:
            continue
        for s in (c.objects, c.companion):
            if s is not None:
                names |= set(s.names) | ({s.reference} if s.reference else set())
        if c.where is not None and c.where.name:
            names.add(c.where.name)
        names |= {end for end in (c.route or ()) if end}
    return names


__all__ = ["Reuse", "shape", "same_shape", "aligned", "slot_mapping", "names_meant", "acting",
           "COUNT_WORDS", "CONDITIONS"]

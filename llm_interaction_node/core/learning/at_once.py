"""Two things carried at once, one in each hand: the plan edit a "both hands" lesson asks for.

"Thanks, but next time, can you do this both at once? You have two hands" (the paper's E1)
comes after two trips: the juice fetched and handed over, then the cup. The model reads the
reply as ``hand: both`` with ``learn`` (:mod:`..reading`, asked by
:mod:`..reading.asked_hand`); no attempt carried the two together, so neither the accepted
attempt (``final``) nor, measured, L_improve's rewrite is that lesson: before this the lesson
stored the two trips (or, where the hand was denied, a third thing "along"), and the check
request brought them one after another (section E at 1850688). The model reads; the code
writes the plan (:func:`carried_at_once`): each thing fetched in turn (its drive, its grasp,
each in a free hand), one drive to where both go, both handed over or put there. The lesson is
bound to the request's things (:func:`bound_to_request`: what is carried along comes with what
the request names, as :mod:`.companion`'s lessons), so a request for another thing does not
carry the cup.

Only trips written by steps are rewritten (``move_to`` / ``grasp`` / ``handover_object_to_human``
or ``place_object``); a one-call move (``bring_object_to``) says nothing of where the thing was
fetched, and is left as it is.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..reading.structure import Clause, Reading, Selection, names_said
from ..transcript.statements import bare_call
from ..transcript.transcript import Entry, Transcript
from .hand import ONE_HAND, grasp_hand, opposite, with_grasp_hand
from .transcripts import first_literal

DRIVE = "move_to"
GRASP = "grasp"
DELIVER = ("handover_object_to_human", "place_object")
BOTH = "both"


def says_both_hands(reading: Reading | None) -> bool:
    """The reading says to use both hands (``hand: both``)."""
    return reading is not None and any(c.hand == BOTH for c in reading.of_kind("hand"))


@dataclass
class _Trip:
    thing: str
    fetch: list[Entry] = field(default_factory=list)      # [its drive], its grasp
    deliver: list[Entry] = field(default_factory=list)    # [the drive there], the hand-over
    target: str = ""                                      # where it went, as written


def _name(entry: Entry) -> str | None:
    call = bare_call(entry.source)
    return call.func.id if call is not None else None


def _target(entry: Entry) -> str:
    """A deliver call with its thing left out: two calls of one target read the same."""
    call = bare_call(entry.source)
    return ast.unparse(ast.Call(call.func, call.args[1:], call.keywords))


def _trips(entries: list[Entry]) -> tuple[list[_Trip], list[Entry]] | None:
    """The trips of ``entries`` (a thing's drive and grasp, then the drive and the hand-over or
    placing of that same thing) and the statements that are no part of one, in order; None
    where a thing is grasped while another is held (already carried together) or never
    delivered."""
    trips: list[_Trip] = []
    others: list[Entry] = []
    drive: Entry | None = None
    current: _Trip | None = None
    for entry in entries:
        name = _name(entry)
        thing = first_literal(entry.source)
        if name == DRIVE:
            if drive is not None:
                others.append(drive)          # a drive no grasp or hand-over followed
            drive = entry
            continue
        if name == GRASP and thing is not None:
            if current is not None:
                return None
            current = _Trip(thing, ([drive] if drive is not None else []) + [entry])
            drive = None
            continue
        if name in DELIVER and current is not None and thing == current.thing:
            current.deliver = ([drive] if drive is not None else []) + [entry]
            current.target = _target(entry)
            trips.append(current)
            current, drive = None, None
            continue
        if drive is not None:
            others.append(drive)
            drive = None
        others.append(entry)
    if current is not None:
        return None
    if drive is not None:
        others.append(drive)
    return trips, others


def _other_hand(grasp: Entry, first: Entry) -> Entry:
    """``grasp`` with the other hand where it names the hand ``first`` named."""
    call = bare_call(grasp.source)
    given, was = grasp_hand(call), grasp_hand(bare_call(first.source))
    if not (isinstance(given, ast.Constant) and isinstance(was, ast.Constant)) or \
            given.value != was.value or given.value not in ONE_HAND:
        return grasp
    return Entry(with_grasp_hand(call, opposite(given.value)))


def carried_at_once(entries: list[Entry]) -> list[Entry] | None:
    """``entries`` with two trips to one target carried at once: the two fetches (the second
    drive left out where it goes where the first went), the first trip's drive to the target,
    both hand-overs (or placings); the statements of no trip first, in order. None where
    ``entries`` hold not exactly two such trips of two things to one target."""
    parsed = _trips(entries)
    if parsed is None:
        return None
    trips, others = parsed
    if len(trips) != 2 or trips[0].thing == trips[1].thing or \
            trips[0].target != trips[1].target:
        return None
    one, two = trips
    second = [e for e in two.fetch[:-1] if not one.fetch[:-1] or
              e.source != one.fetch[0].source] + [_other_hand(two.fetch[-1], one.fetch[-1])]
    return others + one.fetch + second + one.deliver + two.deliver[-1:]


def carried_things(entries: Iterable[Entry]) -> list[str]:
    """The things ``entries`` (a lesson's) hand over or put somewhere, in order."""
    out: list[str] = []
    for entry in entries:
        thing = first_literal(entry.source)
        if _name(entry) in DELIVER and thing is not None and thing not in out:
            out.append(thing)
    return out


def bound_to_request(reading: Reading | None, asked: Reading | None,
                     transcript: Transcript) -> Reading | None:
    """The lesson's reading (``reading``: its request's) with what the lesson carries along
    (the things it delivers that the request does not name) as an ``also`` clause with the
    request's named things, where the learn request (``asked``) says both hands: followed where
    a request names those things (:func:`..memory.meaning.slot_mapping`), not for others."""
    if not says_both_hands(asked) or reading is None:
        return reading
    named = [n for c in reading.moves for n in names_said(c.objects)]
    along = [t for t in carried_things(transcript) if t not in named]
    if not named or not along or reading.of_kind("also"):
        return reading
    clause = Clause("also", Selection("named", names=tuple(along)),
                    companion=Selection("named", names=tuple(named)))
    return Reading(reading.utterance, reading.clauses + (clause,))


__all__ = ["bound_to_request", "carried_at_once", "carried_things", "says_both_hands"]

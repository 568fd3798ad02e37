"""A hand the user taught for a thing: "use your left hand for the orange juice from now on".

The model reads the request to learn as ``hand: left`` with ``learn`` (:mod:`..reading`); the
learner stores that hand in the lesson's reading beside the request's clauses
(:meth:`.learner.Learner._request_reading`), and the code makes it the robot's: the stored
lessons' hands (:class:`RememberedHands`) are asked by the humanoid API wherever a call leaves
the hand open (``grasp(x)`` without a hand, the grasp inside ``bring_object_to``), as a taught
route's speed is asked before each drive (:mod:`.route`). A hand the call names is the
model's, or the user's (the agent writes the hand a request asks for), and wins; a taught hand
that is full leaves the choice to the API (any free hand).

Measured before (issue 44, session 51): no code wrote the hand into a lesson or the robot; a
hand lesson was stored as the accepted attempt and the next request grasped with the free hand
the API picks first (the right).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from ..reading.record import reading_from_json
from ..reading.structure import Clause, Reading, names_said
from .hand import asked_hand


def taught(reading: Reading | None) -> dict[str, str]:
    """thing -> hand: each thing the reading's ``do`` clauses name, with the one hand it says
    (left or right, the last said); empty where it says none."""
    hand = asked_hand(reading)
    if hand is None:
        return {}
    return {name: hand for clause in reading.moves for name in names_said(clause.objects)}


def with_taught_hand(request: Reading | None, asked: Reading | None) -> Reading | None:
    """The lesson's reading: ``request`` with the one hand the request to learn (``asked``)
    says (the last said, :func:`.hand.asked_hand`), where the request names no hand itself and
    moves something."""
    hand = asked_hand(asked)
    if request is None or hand is None or request.of_kind("hand") or not request.moves:
        return request
    return Reading(request.utterance, request.clauses + (Clause("hand", hand=hand),))


class RememberedHands:
    """The hands the user taught for things, read from the stored lessons' readings
    (``readings``: their JSON, asked again on each call, so a lesson stored or forgotten counts
    at once); called as the humanoid API's ``hand_for(name)``: the hand of the latest lesson
    that names the thing, else None."""

    def __init__(self, readings: Callable[[], Iterable[str | None]]):
        self.readings = readings
        self._read: dict[str, dict[str, str]] = {}      # a stored reading never changes

    def hands(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for text in self.readings():
            if not text:
                continue
            if text not in self._read:
                self._read[text] = taught(reading_from_json(text))
            found.update(self._read[text])               # oldest first: the latest wins
        return found

    def __call__(self, name: str) -> str | None:
        return self.hands().get(name)


__all__ = ["taught", "with_taught_hand", "RememberedHands"]

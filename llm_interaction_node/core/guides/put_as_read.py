"""Put it where the request was read to put it (``agent.put_where_read``; a request's first
attempt, in an API with ``place_object``): while the robot holds a thing the request's reading
sends to a named surface ("carry the juice over to the dining table": ``do: mango juice ->
dining table``), a drive to the user goes in front of that surface, and a hand-over of the thing
to the user, or a placing of it on another surface, places it there instead. A one-call move of
a thing the reading sends to a named surface or to the user (``bring_object_to``, the API's move
function) goes there. Measured (household probes of session 62, 90301d5): "set the banana down
beside the remote", read ``do: banana -> coffee table`` (the remote lies there), drove to the
coffee table and wrote ``place_object('banana_0', 'inFrontOf_coffee-table_0')`` (a place, no
surface: not run), then ``place_object('banana_0', 'on_sideboard_0')``; "the book should go
next to the glasses" did the same at the windowsill: both failed.

Measured (teach-once bench, built-in wordings, 7988a48): "could you carry the apple over to the
windowsill?" (seed 0) and "could you carry the juice over to the dining table?" (seed 15522):
the console model grasped the thing, drove to the user and handed it over, as most of its
examples do; the speed lesson taught next ("the route from the kitchen counter to the dining
table is safe ...") had no drive on its route and was not learned. The model reads, the code
computes: the reading says where the thing goes; the code writes that place into the drive
and the hand-on, as :mod:`.as_read` writes the named thing into a grasp. Left alone: a thing
the reading hands to the user or sends nowhere, a place that is no surface (a room), a turn
that follows a lesson (:mod:`.where_it_lies` sends its drives where its acts happen), the
tabletop, every turn after the user answered an attempt.

Measured (twelve new household wordings, session 62, 28b5575): "pick up the sponge and give it
to me" was read ``do: kitchen sponge -> me``; the model wrote ``bring_object_to(
'kitchen-sponge_0', 'on_kitchen-counter_0')`` and said "The sponge is on the kitchen counter
now." Before a statement runs: the agent runs what this returns."""
from __future__ import annotations

import logging

from ..apis.humanoid_scene import HANDOVER_LOCATION, SURFACE_PREFIX, furniture_of, in_front_of
from ..learning.hand import holding_of
from ..reading.structure import ME, Reading, names_said
from ..transcript.statements import bare_call
from .as_read import HAND_ON, follows_a_lesson, literal_argument, object_of, with_argument
from .state import GuideState
from .where_it_lies import PLACE, WHERE_ACTS, move_target, with_target

log = logging.getLogger(__name__)

HANDOVER = "handover_object_to_human"


def surfaces_read(reading: Reading | None) -> dict[str, str]:
    """Thing -> the surface a ``do`` clause of ``reading`` sends it to (named outright), for
    the things it names outright."""
    if reading is None:
        return {}
    found: dict[str, str] = {}
    for clause in reading.of_kind("do"):
        where = clause.where
        if where is None or where.how != "named" or not where.name or \
                not where.name.startswith(SURFACE_PREFIX):
            continue
        for name in names_said(clause.objects):
            found.setdefault(name, where.name)
    return found


def destinations_read(reading: Reading | None, to_user: str | None) -> dict[str, str]:
    """:func:`surfaces_read`, and each thing a ``do`` clause hands to the user (``me``) ->
    ``to_user`` (the move's target that hands it on; None: none)."""
    found = surfaces_read(reading)
    if reading is None or to_user is None:
        return found
    for clause in reading.of_kind("do"):
        if clause.where is not None and clause.where.how == ME:
            for name in names_said(clause.objects):
                found.setdefault(name, to_user)
    return found


def moved_as_read(state: GuideState, source: str) -> str | None:
    """``source``, a one-call move (``bring_object_to(thing, where)``) of a thing the reading
    sends elsewhere, with the read destination; None for any other statement."""
    move = state.console.api.move_function()
    call = bare_call(source)
    if move is None or call is None or call.func.id != move[0].name:
        return None
    spec = move[1]
    thing = literal_argument(call, spec.object_param, 0)
    where = literal_argument(call, spec.target_param, 1)
    read = destinations_read(state.readings[0], spec.to_user).get(thing)
    if thing is None or where is None or read is None or \
            furniture_of(where) == furniture_of(read) or follows_a_lesson(state):
        return None
    log.info("the request was read to take the %s to %s: %s goes there instead", thing, read,
             source)
    return with_argument(call, spec.target_param, 1, read)


def put_as_read(state: GuideState, source: str) -> str:
    """``source`` taking a held thing where the request was read to put it (see the module)."""
    api = state.console.api
    if not state.config.put_where_read or PLACE not in api or \
            len(state.task_utterances) != 1 or not state.readings:
        return source
    moved = moved_as_read(state, source)
    if moved is not None:
        return moved
    goes = surfaces_read(state.readings[0])
    if not goes:
        return source
    held = [thing for thing in holding_of(api).values() if thing in goes]
    if len(held) != 1:
        return source                   # nothing read in hand, or two: which first is open
    (thing,) = held
    surface = goes[thing]
    target = move_target(source)
    handed = object_of(source, {HANDOVER: HAND_ON[HANDOVER]}) if HANDOVER in api else None
    placed = object_of(source, {PLACE: HAND_ON[PLACE]})
    elsewhere = placed == thing and _place_of(source) != surface  # or spelled as no surface
    if target != HANDOVER_LOCATION and handed != thing and not elsewhere:
        return source                   # a drive elsewhere (a detour) is the model's
    if follows_a_lesson(state):
        return source
    log.info("the request was read to put the %s on %s: %s goes there instead", thing,
             surface, source)
    if thing in (handed, placed):
        return f"{PLACE}({thing!r}, {surface!r})"
    return with_target(source, in_front_of(surface))


def _place_of(source: str) -> str | None:
    """Where ``source``, a ``place_object`` call, puts its thing (literal), else None."""
    call = bare_call(source)
    if call is None or call.func.id != PLACE:
        return None
    index, param = WHERE_ACTS[PLACE]
    return literal_argument(call, param, index)


__all__ = ["put_as_read", "surfaces_read", "destinations_read", "moved_as_read"]

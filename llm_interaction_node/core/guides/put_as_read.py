"""Put it where the request was read to put it (``agent.put_where_read``; a request's first
attempt, in an API with ``place_object``): while the robot holds a thing the request's reading
sends to a named surface ("carry the juice over to the dining table": ``do: mango juice ->
dining table``), a ``move_to`` elsewhere goes in front of that surface, and a hand-over of the
thing to the user places it there instead.

Measured (teach-once bench, built-in wordings, 7988a48): "could you carry the apple over to the
windowsill?" (seed 0) and "could you carry the juice over to the dining table?" (seed 15522):
the console model grasped the thing, drove to the user and handed it over, as most of its
examples do; the speed lesson taught next ("the route from the kitchen counter to the dining
table is safe ...") had no drive on its route and was not learned. The model reads, the code
computes: the reading says where the thing goes; the code writes that place into the drive
and the hand-on, as :mod:`.as_read` writes the named thing into a grasp. Left alone: a thing
the reading hands to the user or sends nowhere, a place that is no surface (a room), a turn
that follows a lesson (:mod:`.where_it_lies` sends its drives where its acts happen), the
tabletop, every turn after the user answered an attempt. Before a statement runs: the agent
runs what this returns."""
from __future__ import annotations

import logging

from ..apis.humanoid_scene import HANDOVER_LOCATION, SURFACE_PREFIX, in_front_of
from ..learning.hand import holding_of
from ..reading.structure import Reading, names_said
from .as_read import follows_a_lesson, object_of
from .state import GuideState
from .where_it_lies import move_target, with_target

log = logging.getLogger(__name__)

PLACE = "place_object"
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


def put_as_read(state: GuideState, source: str) -> str:
    """``source`` taking a held thing where the request was read to put it (see the module)."""
    api = state.console.api
    if not state.config.put_where_read or PLACE not in api or \
            len(state.task_utterances) != 1 or not state.readings:
        return source
    goes = surfaces_read(state.readings[0])
    if not goes:
        return source
    held = [thing for thing in holding_of(api).values() if thing in goes]
    if len(held) != 1:
        return source                   # nothing read in hand, or two: which first is open
    (thing,) = held
    surface = goes[thing]
    target = move_target(source)
    handed = object_of(source, {HANDOVER: "object_name"}) if HANDOVER in api else None
    if target != HANDOVER_LOCATION and handed != thing:
        return source                   # a drive elsewhere (a detour) is the model's
    if follows_a_lesson(state):
        return source
    log.info("the request was read to put the %s on %s: %s goes there instead", thing,
             surface, source)
    if handed == thing:
        return f"{PLACE}({thing!r}, {surface!r})"
    return with_target(source, in_front_of(surface))


__all__ = ["put_as_read", "surfaces_read"]

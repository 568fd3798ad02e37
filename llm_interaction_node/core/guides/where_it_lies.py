"""Go where the thing lies (``agent.go_where_it_lies``; a request's first attempt, in an API
with ``grasp`` and ``list_object_locations``): with both hands empty, a ``move_to`` to a place
where none of the things the request's reading names lies, while they all lie at one place,
goes to that place.

Measured (teach-once bench, built-in wordings, at 12ea27f): "could I have the cleaning spray?"
was read ``do: cleaning spray -> me``; the model listed the objects without their places, drove
to the kitchen counter, and ``grasp('cleaning-spray_0')`` answered "cleaning spray is on the
long table"; the robot said sorry and waited: the spray never came, and the lesson taught next
("... also bring me the sponge") was refused as never brought. "take the apple to the
windowsill" drove to the windowsill first, with empty hands. The model reads, the code
computes: the reading names the thing, the robot knows where it lies; the code writes that
place into the move, as :mod:`.as_read` writes the named thing into a grasp. Left alone: a
move while the robot holds something (it may be on its way to hand it on), a named thing
that lies nowhere the robot knows (held, on the floor), named things at two places (which
first is the model's), the tabletop, every turn after the user answered an attempt.

A turn that follows a lesson (:mod:`.lessons`, the lesson in the request's names) goes where
the lesson's next act happens, computed in this scene: the next ``grasp`` of a thing, where
that thing lies; the next ``place_object``, in front of its surface. Measured (teach-once
bench, built-in wordings, seed 15522, 7988a48): the lesson of "could you carry the book over
to the sideboard?" (drive to the coffee table, grasp the book, drive to the sideboard, put it
there), read in the words of "take the tea cup to the coffee table", drove to the coffee table
where the book had lain, its grasp of the tea cup (on the kitchen counter) failed, and the
robot drove the taught route fast for a request it was not taught for. Before a statement
runs: the agent runs what this returns.

A grasp where the robot does not stand, or a placing on a surface it does not stand at
(:func:`drive_before`; any turn, the same switch): the agent first drives where the thing lies,
or in front of the surface, as a console input of its own that the model sees. Measured (five
new household wordings, c09a172): "can you grab the screwdriver for me" - the model's first
statement was ``grasp('screwdriver_0')`` from the room centre, "failure: screwdriver_0 is on the
long table; the robot is in the room center", and the robot said sorry and gave up. Left alone:
a thing held, or lying nowhere the robot knows; both hands full."""
from __future__ import annotations

import ast
import logging

from ..apis.humanoid_scene import HANDOVER_LOCATION, SURFACE_PREFIX, furniture_of, in_front_of
from ..learning.hand import holding_of
from ..learning.route import destination
from ..reading.select import object_locations
from ..reading.structure import named_things
from ..transcript.statements import bare_call
from ..transcript.transcript import Entry
from .as_read import lesson_plan, literal_argument
from .state import GuideState

log = logging.getLogger(__name__)

GRASP = "grasp"
MOVE = "move_to"
PLACE = "place_object"
HANDOVER = "handover_object_to_human"
LOCATIONS = "list_object_locations"
COORDINATES = "get_location_coordinates"
LOCATION_NAMES = "list_locations"
SPEECH = ("say", "ask")
LOOKS = ("list_", "get_")                  # the API's queries: the robot stays where it is
# the acts that say where the robot must stand, and the argument that says it
# (which positional argument, its name)
WHERE_ACTS = {GRASP: (0, "object_name"), PLACE: (1, "destination_object_name")}


def move_target(source: str) -> str | None:
    """The location of ``move_to(get_location_coordinates('<location>'), ...)``; None for
    another statement (a move to a variable, coordinates, ...; a ``bring_object_to`` fetches
    its thing itself)."""
    call = bare_call(source)
    return destination(source) if call is not None and call.func.id == MOVE else None


def with_target(source: str, location: str) -> str:
    """``source`` (a move :func:`move_target` reads) going to ``location``."""
    call = bare_call(source)
    call.args[0].args[0] = ast.Constant(location)
    return ast.unparse(call)


def next_act_place(rest, lying: dict[str, str | None]) -> str | None:
    """Where the robot must stand for the first act of ``rest`` (a lesson's statements after
    a move): a grasp's thing, where it lies; a placing, in front of its surface; None where the
    next act is another (a hand-over, a move, a one-call move) or its place is not known."""
    for statement in rest:
        call = bare_call(statement)
        if call is None or call.func.id == MOVE:
            return None
        if call.func.id in SPEECH or call.func.id.startswith(LOOKS):
            continue                       # speech, a question, a look: not where it acts
        return stand_for(call, lying)
    return None


def stand_for(call, lying: dict[str, str | None]) -> str | None:
    """Where the robot must stand for ``call``: a grasp's thing, in front of where it lies
    (``lying``: thing -> its place); a placing, in front of its surface (either spelling);
    None for another call or where that is not known."""
    if call.func.id not in WHERE_ACTS:
        return None
    index, param = WHERE_ACTS[call.func.id]
    named = literal_argument(call, param, index)
    if named is None:
        return None
    if call.func.id == GRASP:
        return in_front_of(lying.get(named))
    return in_front_of(SURFACE_PREFIX + furniture_of(named))


def drive_before(state: GuideState, source: str) -> str | None:
    """The drive to run before ``source``, a ``grasp`` of a thing that lies in front of a
    place the robot's last drive did not reach, or a ``place_object`` on a surface it did not
    reach: ``move_to(get_location_coordinates(<that place>))`` (where no drive reached a place,
    e.g. at the start, the robot drives); a hand-over where the robot does not stand at the
    handover place (measured, held-out habits: after a ``say`` a habit added after the grasp,
    the model wrote the hand-over next, it failed "not at the handover place" and the robot
    gave up); None for any other statement, or where it is not known where the thing lies."""
    api = state.console.api
    if not state.config.go_where_it_lies or any(
            name not in api for name in (GRASP, MOVE, LOCATIONS, COORDINATES, LOCATION_NAMES)):
        return None
    call = bare_call(source)
    if call is not None and call.func.id == HANDOVER and HANDOVER in api:
        place = HANDOVER_LOCATION
        if place == robot_at(api) or not _known_location(api, place):
            return None
        log.info("%s needs the robot at the handover place: it drives there first", source)
        return f"{MOVE}({COORDINATES}({place!r}))"
    if call is None or call.func.id not in WHERE_ACTS:
        return None
    lying: dict[str, str | None] | None = {}
    if call.func.id == GRASP:
        holding = holding_of(api)
        if holding and all(holding.values()):  # both hands full: the grasp says so where it is
            return None
        lying = object_locations(api)
    place = stand_for(call, lying) if lying is not None else None
    if place is None or place == robot_at(api) or not _known_location(api, place):
        return None
    drive = f"{MOVE}({COORDINATES}({place!r}))"
    log.info("%s needs the robot at %s, where it does not stand: %s first", source, place, drive)
    return drive


def _known_location(api, place: str) -> bool:
    """Whether the robot lists ``place`` among the places it drives to (False where it cannot
    say: the model's statement runs as written)."""
    try:
        return place in api[LOCATION_NAMES].fn()
    except Exception as exc:  # noqa: BLE001 - a robot that cannot say: no drive first
        log.warning("the robot's places are unknown (%s): no drive first", exc)
        return False


def robot_at(api) -> str | None:
    """The navigation location the API's last drive reached (None: none, or not known)."""
    owner = getattr(api[MOVE].fn, "__self__", None)
    return getattr(owner, "at", None)


def where_it_lies(state: GuideState, source: str) -> str:
    """``source`` going where the things the request was read with lie (see the module)."""
    api = state.console.api
    if not state.config.go_where_it_lies or GRASP not in api or LOCATIONS not in api or \
            len(state.task_utterances) != 1 or not state.readings:
        return source
    target = move_target(source)
    if target is None:
        return source
    plan = lesson_plan(state)
    if plan is not None:
        return _as_the_lesson_acts(state, source, target, plan)
    read = named_things(state.readings[0])
    if not read:
        return source
    holding = holding_of(api)
    if not holding or any(holding.values()):
        return source
    lying = object_locations(api)            # None: unknown, the model's move stands
    if lying is None or any(name not in lying for name in read):   # or a thing not grasped
        return source
    left = [name for name in read if lying[name] is not None]    # not held, not handed on
    places = {in_front_of(lying[name]) for name in left}
    if not left or None in places or len(places) != 1 or target in places:
        return source
    (place,) = places
    log.info("the request was read as %s, which lies at %s: %s goes there",
             ", ".join(left), place, source)
    return with_target(source, place)


def _as_the_lesson_acts(state: GuideState, source: str, target: str, plan) -> str:
    """In a turn that follows a lesson: ``source`` going where the lesson's next act happens
    in this scene (see the module); as written where the turn left the lesson or that place
    is not known."""
    done = [s for s in state.turn.statements if not Entry(s).is_comment]
    rest = plan.rest_after(done)
    lying = object_locations(state.console.api) if rest is not None else None
    if lying is None:
        return source
    place = next_act_place(rest, lying)
    if place is None or place == target:
        return source
    log.info("the lesson's next act is at %s here: %s goes there", place, source)
    return with_target(source, place)


__all__ = ["where_it_lies", "drive_before", "move_target", "with_target", "next_act_place",
           "stand_for"]

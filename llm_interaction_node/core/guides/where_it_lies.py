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
first is the model's), a turn that follows a lesson, the tabletop, every turn after the user
answered an attempt. Before a statement runs: the agent runs what this returns."""
from __future__ import annotations

import ast
import logging

from ..apis.humanoid_scene import in_front_of
from ..learning.hand import holding_of
from ..learning.route import destination
from ..reading.structure import named_things
from ..transcript.statements import bare_call
from .as_read import follows_a_lesson
from .state import GuideState

log = logging.getLogger(__name__)

GRASP = "grasp"
MOVE = "move_to"
LOCATIONS = "list_object_locations"


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


def where_it_lies(state: GuideState, source: str) -> str:
    """``source`` going where the things the request was read with lie (see the module)."""
    api = state.console.api
    if not state.config.go_where_it_lies or GRASP not in api or LOCATIONS not in api or \
            len(state.task_utterances) != 1 or not state.readings:
        return source
    target = move_target(source)
    read = named_things(state.readings[0])
    if target is None or not read:
        return source
    holding = holding_of(api)
    if not holding or any(holding.values()):
        return source
    try:
        lying = dict(api[LOCATIONS].fn(affordance=GRASP))
    except Exception as exc:  # noqa: BLE001 - a robot that cannot say: the model's move
        log.warning("where the things lie is unknown (%s): the move is left as written", exc)
        return source
    if any(name not in lying for name in read):     # a thing the robot does not grasp
        return source
    left = [name for name in read if lying[name] is not None]    # not held, not handed on
    places = {in_front_of(lying[name]) for name in left}
    if not left or None in places or len(places) != 1 or target in places:
        return source
    if follows_a_lesson(state):
        return source
    (place,) = places
    log.info("the request was read as %s, which lies at %s: %s goes there",
             ", ".join(left), place, source)
    return with_target(source, place)


__all__ = ["where_it_lies", "move_target", "with_target"]

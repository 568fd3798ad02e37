"""The thing the request was read with (``agent.take_what_was_read``; a request's first
attempt, in an API with a ``grasp``): a grasp or a move of a thing the request's reading does
not name and the user did not say takes the one thing the reading names that is not taken
yet.

Measured (teach-once bench at 88a77dd, the unrelated request "I'd like the glass" in the drinks
world): the reading was ``do: tumbler -> me`` (what people call a tumbler, :mod:`..reading.
other_names`), the console model said "Sure, I will bring you the glass." and wrote
``grasp('coffee-cup_0')``: the cup was brought. The model reads, the code computes: where
the reading names the things and the model's call takes another one nobody named, the code
writes the named one into the call, as it writes an asked hand (:mod:`.as_asked`); a later
hand-over or placing of the thing nobody named, while the robot holds the named one and not
that, hands on the named one. Left alone: a thing the user said (``unsaid``), a thing the
robot holds (putting it away is no choice of what to bring), more than one named thing still
to take (which first is the model's), a turn that follows a lesson (what comes along may come
first), the tabletop's one-call moves (no ``grasp``; unmeasured there), every turn after
the user answered an attempt (the correction focus acts there). Before a statement runs:
the agent runs what this returns."""
from __future__ import annotations

import ast
import logging

from ..decoding.constraint import names_to_say
from ..decoding.lesson_follow import LessonPlan, plan_of
from ..learning.hand import holding_of
from ..reading.asked_name import unsaid
from ..reading.structure import named_things
from ..transcript.statements import bare_call
from .state import GuideState

log = logging.getLogger(__name__)

GRASP = "grasp"
# the calls that hand on what the robot holds, and their object parameter
HAND_ON = {"handover_object_to_human": "object_name", "place_object": "object_in_hand_name"}


def object_argument(call: ast.Call, param: str, index: int = 0) -> ast.expr | None:
    """The argument of ``call`` at position ``index`` (default: its object, the first), or
    given as ``param=``."""
    return call.args[index] if len(call.args) > index else next(
        (k.value for k in call.keywords if k.arg == param), None)


def literal_argument(call: ast.Call, param: str, index: int = 0) -> str | None:
    """:func:`object_argument` where it is a string literal, else None."""
    given = object_argument(call, param, index)
    return given.value if isinstance(given, ast.Constant) and isinstance(given.value, str) \
        else None


def object_of(source: str, params: dict[str, str]) -> str | None:
    """The literal object of a statement calling one of ``params`` (function -> its object
    parameter); None for another statement or an expression."""
    call = bare_call(source)
    if call is None or call.func.id not in params:
        return None
    return literal_argument(call, params[call.func.id])


def with_argument(call: ast.Call, param: str, index: int, value: str) -> str:
    """``call`` as source with ``value`` as its argument at position ``index``, or as
    ``param=`` where it is given so (in its place) or not given (added last)."""
    if len(call.args) > index:
        call.args[index] = ast.Constant(value)
    elif any(k.arg == param for k in call.keywords):
        call.keywords = [ast.keyword(param, ast.Constant(value)) if k.arg == param else k
                         for k in call.keywords]
    else:
        call.keywords.append(ast.keyword(param, ast.Constant(value)))
    return ast.unparse(call)


def with_object(source: str, params: dict[str, str], name: str) -> str:
    """``source`` (a call of one of ``params``) with ``name`` as its object."""
    call = bare_call(source)
    return with_argument(call, params[call.func.id], 0, name)


def lesson_plan(state: GuideState) -> LessonPlan | None:
    """The plan of the nearest lesson where the task's first turn follows it
    (:mod:`.lessons`), else None."""
    lesson = state.nearest_lesson()
    if lesson is None:
        return None
    try:
        return plan_of(lesson, state.task_utterances[0], names_to_say(state.console.api))
    except Exception:  # noqa: BLE001 - no scene: no lesson can be followed either
        return None


def follows_a_lesson(state: GuideState) -> bool:
    """The task's first turn follows the nearest lesson: what it takes is the lesson's (a
    thing brought along may come first), not the code's to change."""
    return lesson_plan(state) is not None


def as_read(state: GuideState, source: str) -> str:
    """``source`` taking (or handing on) the thing the request was read with (see the
    module)."""
    api = state.console.api
    if not state.config.take_what_was_read or GRASP not in api or \
            len(state.task_utterances) != 1 or not state.readings:
        return source
    takes = {GRASP: "object_name"}
    move = api.move_function()
    if move is not None:
        takes[move[0].name] = move[1].object_param
    hands_on = {f: p for f, p in HAND_ON.items() if f in api}
    params = {**hands_on, **takes}
    named = object_of(source, params)
    read = named_things(state.readings[0])
    if named is None or not read or named in read:
        return source
    scene = state.request_scene or state.scene()
    if scene is None or named not in scene.vocabulary.things.values() or \
            not unsaid(named, state.task_utterances[0], scene.vocabulary.spoken):
        return source
    if follows_a_lesson(state):
        return source
    held = set(holding_of(api).values()) - {None}
    if named in held:
        return source
    if bare_call(source).func.id in takes:
        before = {object_of(s, takes) for s in state.turn.statements[:-1]}
        left = [n for n in read if n not in held and n not in before]
    else:
        left = [n for n in read if n in held]
    if len(left) != 1:
        return source
    log.info("the request was read as the %s, not the %s: %s takes it",
             scene.vocabulary.spoken(left[0]), scene.vocabulary.spoken(named), source)
    return with_object(source, params, left[0])


__all__ = ["as_read", "object_of", "with_object", "with_argument", "literal_argument",
           "lesson_plan", "follows_a_lesson"]

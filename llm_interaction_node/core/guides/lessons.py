"""Follow lessons (``agent.follow_lessons``): where the nearest lesson's request (in the
request's names: ``memory.adapt_names``) is the request at hand and its statements can run in
this scene, the task's first turn is decoded to follow them, statement by statement, until
one differs (grammar only; :mod:`..decoding.lesson_follow`). Measured: the 1.5B model did not
copy such a lesson."""
from __future__ import annotations

import logging

from ..decoding.constraint import ConsoleVocabulary, names_to_say
from ..decoding.lesson_follow import as_typed, plan_of
from ..transcript.transcript import Entry
from .state import Guidance, GuideState

log = logging.getLogger(__name__)


def lesson_statement(state: GuideState, vocabulary: ConsoleVocabulary) -> str | None:
    """The nearest lesson's next statement, where the first turn of a task follows it
    (``follow_lessons``, :mod:`..decoding.lesson_follow`), as the model types it; else None."""
    lesson = state.nearest_lesson()
    if lesson is None or len(state.task_utterances) != 1 \
            or state.turn_failed:         # the lesson does not work here: the model decides
        return None
    try:
        known = names_to_say(state.console.api, vocabulary.scene_names())
    except Exception as exc:  # noqa: BLE001 - no scene: the model writes freely
        log.warning("the lesson is not followed: the scene's names are unknown (%s)", exc)
        return None
    plan = plan_of(lesson, state.task_utterances[0], known)
    done = [s for s in state.turn.statements if not Entry(s).is_comment]
    statement = plan.next_after(done) if plan is not None else None
    if statement is None:
        return None
    log.info("following the lesson for %r: statement %d of %d", plan.request,
             len(done) + 1, len(plan.statements))
    return as_typed(statement)


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance | None:
    if so_far.required is not None:
        return None
    return Guidance(required=lesson_statement(state, vocabulary))

"""Learn on request (``agent.learn_on_request``): when the reading of the user's reply to an
attempt asks to learn or remember (core/reading), the grammar lets the turn's first statement
be ``learn_from_interaction()`` only. Measured: the 1.5B model did not call it after 2 of 6
such requests, and those lessons were lost; a small model often answered "Now it is correct.
Memorize how you did that." by doing the task again. The learner's gate still judges the call
(its position, the reading). A request to learn said with a change still to make waits until
the user accepts the next attempt (:func:`learn_waits_now`; measured, issue 43 seed 2026:
learned right after "Try once more, please", the rejected attempt was stored as the lesson);
a request to learn whose change this turn's moves made is due then (the robot does it the new
way first, then learns it)."""
from __future__ import annotations

import logging

from ..decoding.constraint import ConsoleVocabulary
from ..reading import Reading
from ..reading.attempt import still_to_do
from .calls import LEARN_CALL
from .state import Guidance, GuideState

log = logging.getLogger(__name__)


def learn_due(state: GuideState) -> bool:
    """The learn call is the next statement: first in a turn that answers a request to
    learn (``learn_on_request``) or an approval of what such a request held back
    (the agent's ``_learn_when_accepted``); later in a turn whose request to learn came with a
    change, once this turn's moves made it (the robot does it the new way first, then
    learns it)."""
    reply = state.reply_reading()
    if not (state.config.learn_on_request and len(state.task_utterances) >= 2
            and reply is not None):
        return False
    if not state.turn.statements:
        return state.learn_now or (reply.asks_to_learn and not state.learn_held)
    entries = state.console.transcript.entries
    if not (state.learn_waits and reply.asks_to_learn) or \
            (entries and entries[-1].source.strip() == LEARN_CALL):
        return False
    done = state.move_log()[state.moves_seen:]
    scene = state.scene()
    return bool(done) and not still_to_do(reply, done, scene.select if scene else None)


def learn_waits_now(state: GuideState, reply: Reading | None) -> bool:
    """The user's reply asks to learn and for a change the attempt did not make ("Try once
    more ... remember that"; a misread correction): the lesson waits until the user
    accepts the next attempt (measured, issue 43 seed 2026: learned right after "Try once
    more, please", the rejected attempt was stored as the lesson)."""
    if reply is None or not reply.asks_to_learn or not state.console.api.move_function():
        return False
    scene = state.scene()
    return bool(still_to_do(reply, state.attempt_moves, scene.select if scene else None))


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance | None:
    """The statement the grammar forces now: ``learn_from_interaction()`` as the first
    statement of a turn whose user reply the model read as a request to learn."""
    if learn_due(state):
        log.info("the user asks to learn: the grammar allows only %s", LEARN_CALL)
        return Guidance(required=LEARN_CALL)
    return None

"""The correction focus (``agent.correction_focus``): in a turn that answers an attempt that
moved something, the move function may only take the objects and targets the readings of the
request and the reply mean, computed in the scene, never a move the attempt made
(:mod:`..decoding.correction`). A move this turn already made is no move to offer again
(measured: the yellow block put on the left side twice, the blue one never)."""
from __future__ import annotations

import logging

from ..decoding.constraint import ConsoleVocabulary
from ..decoding.correction import Focus, focus_from
from .state import Guidance, GuideState

log = logging.getLogger(__name__)


def correction_focus(state: GuideState) -> Focus | None:
    """What the move function may take in this turn (core/decoding/correction.py: from the
    readings of the request and of the reply), or None."""
    move = state.console.api.move_function()
    if move is None or not state.answers_an_attempt():
        return None
    function, spec = move
    scene = state.scene()
    if scene is None:
        return None
    # a move this turn already made is no move to offer again (measured: the yellow block
    # put on the left side twice, the blue one never)
    done = state.move_log()[state.moves_seen:]
    focus = focus_from(function.name, spec, state.readings[0] if state.readings else None,
                       state.reply_reading(), scene, state.attempt_moves, done,
                       state.request_scene)
    if focus is not None:
        log.info("after the correction the move may take %s -> %s (refused: %s)",
                 focus.objects or "any object", list(focus.targets), sorted(focus.refused))
    return focus


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance:
    return Guidance(focus=correction_focus(state))

"""The asked speed and hand (always on; it acts on a reply's reading only): the code writes
them into the model's call. A drive after a reply read as a speed ("you are too slow, drive
faster") goes at that speed (:func:`..learning.route.at_asked_speed`; measured, issue 44: the
household's too-slow corrections were 0 of 4, no drive was faster); a grasp after a reply
read as one hand takes it (:func:`..learning.hand.at_asked_hand`; a reply only: a request's
hand was measured read where nobody said one, "could you tidy up the apple?" -> ``hand:
left``). Before a statement runs: the agent runs what this returns."""
from __future__ import annotations

import logging

from ..learning.hand import at_asked_hand
from ..learning.route import at_asked_speed
from .state import GuideState

log = logging.getLogger(__name__)


def as_asked(state: GuideState, source: str) -> str:
    """``source`` at the speed and with the hand the reply this turn answers asks for."""
    reply = state.reply_reading()
    asked = at_asked_hand(reply, at_asked_speed(reply, source))
    if asked != source:
        log.info("the user asked for another speed or hand: %s runs as %s", source, asked)
    return asked

"""No bare hand-back before the robot acts (``agent.act_on_correction``): where ``must_act``
(:mod:`.act`), the grammar leaves ``wait_for_trigger`` out of the input (after comments) until
the robot acts. Measured: the 1.5B model answered corrections by handing back, turn after
turn, at any temperature."""
from __future__ import annotations

import logging

from ..decoding.constraint import ConsoleVocabulary
from .calls import WAIT, WAIT_FUNCTION
from .state import Guidance, GuideState

log = logging.getLogger(__name__)


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance | None:
    if so_far.must_act:
        log.info("the user's reply asks for more: the grammar leaves out a bare %s", WAIT)
        return Guidance(withheld=frozenset({WAIT_FUNCTION}))
    return None

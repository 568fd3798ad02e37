"""Say what happened (``agent.say_what_happened``): after the console reported that something
did not happen (a learn call that stored nothing, a skill that failed, a name the robot does
not know), ``say()`` may only say the console's own sentence about it, until the robot acts
and that works or the user speaks (grammar and check; :mod:`..decoding.claims`). Measured: "I will
remember that." right after "I stored nothing" (issue 44)."""
from __future__ import annotations

import logging

from ..decoding.constraint import ConsoleVocabulary
from .state import Guidance, GuideState

log = logging.getLogger(__name__)


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance | None:
    report = state.report
    if report is None:
        return None
    log.info("say() keeps to what the console reported: %s", report.what)
    return Guidance(speech=report.sentences, speech_refusal=report.refusal())

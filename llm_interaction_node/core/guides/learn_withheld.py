"""``learn_from_interaction`` only when asked (always on; it acts on readings only): the
grammar leaves the learn call out where the user's last words were read and not as a request
to learn, or as one held back until the user accepts the change it asked for
(:func:`.learn.learn_waits_now`), unless the learn call is due now (:func:`.learn.learn_due`).
The learn gate refuses the call then; measured: "that is the cleaning spray, I asked for the
sponge" answered with it (issue 44)."""
from __future__ import annotations

from ..decoding.constraint import ConsoleVocabulary
from .calls import LEARN_FUNCTION
from .learn import learn_due
from .state import Guidance, GuideState


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance | None:
    latest = state.latest_reading()
    if latest is not None and (not latest.asks_to_learn or state.learn_held) \
            and not learn_due(state):
        return Guidance(withheld=frozenset({LEARN_FUNCTION}))
    return None

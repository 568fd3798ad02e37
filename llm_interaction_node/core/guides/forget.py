"""``forget_learned`` only when asked (always on): the grammar leaves it out unless the user's
last words were read as a request to forget (without a reading: the forget gate's own word
veto, ``builtins.asked_to_forget``). Measured: "you forgot the glass" ->
``forget_learned('glass')``, which its gate refuses, and the turn was lost."""
from __future__ import annotations

from ..console.builtins import asked_to_forget
from ..decoding.constraint import ConsoleVocabulary
from .calls import FORGET_ONLY_ASKED
from .state import Guidance, GuideState


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance:
    said = state.console.builtins.utterances
    latest = state.latest_reading()
    asked = latest.asks_to_forget if latest is not None else \
        bool(said) and asked_to_forget(str(said[-1]))
    return Guidance(withheld=frozenset() if asked else frozenset(FORGET_ONLY_ASKED))

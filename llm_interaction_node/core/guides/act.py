"""Act on a correction (``agent.act_on_correction``): after a user reply to an attempt that
the model read as a correction or a request (core/reading: missing, wrong object, wrong
place, retry, do) the robot acts (an API call, a move) before the grammar lets it hand back
with ``wait_for_trigger()``. Measured: the 1.5B model answered corrections by handing back,
turn after turn, at any temperature; a definition of the model's own that only wraps the
hand-back, then its call, to get around the grammar; "You forgot the sponge." answered by
``say('I will forget about the sponge.')`` and the hand-back (issue 44). This guide decides
``must_act``; the hand-back guide (:mod:`.hand_back`) and the move guide (:mod:`.move_now`)
act on it."""
from __future__ import annotations

from ..decoding import claims
from ..decoding.constraint import ConsoleVocabulary
from ..learning.transcripts import calls_any
from ..reading.attempt import still_to_do
from ..reading.structure import CORRECTIONS
from .calls import WAIT_FUNCTION
from .state import Guidance, GuideState


def must_act(state: GuideState) -> bool:
    """The turn answers an attempt, the robot did not act in it yet (no statement called
    a function of the API that is no query and no speech, nothing moved), and the model
    read the user's reply as a correction or a request (``act_on_correction``; no
    reading: the model decides). Measured: a definition of the model's own that only wraps
    the hand-back, then its call, to get around the grammar; "You forgot the sponge."
    answered by ``say('I will forget about the sponge.')`` and the hand-back (issue 44)."""
    if not state.answers_an_attempt():
        return False
    api = set(state.console.api.names) - state.console.api.queries - claims.SPEECH \
        - {WAIT_FUNCTION}
    if any(calls_any(s, api) for s in state.turn.statements) \
            or len(state.move_log()) > state.moves_seen:
        return False
    reply = state.reply_reading()
    if reply is None:
        return False
    if set(reply.kinds) & {*CORRECTIONS, "do"}:
        return True
    # a reply that only says how ("you are too slow, drive faster") to a request not done
    # yet: its move is still to make (measured, issue 44: the model drove the attempt's
    # legs again, faster, and never on to the place)
    scene = state.scene() if reply.speed is not None else None
    return scene is not None and any(c.where is not None for c in still_to_do(
        state.readings[0], state.attempt_moves, scene.select))


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance:
    return Guidance(must_act=must_act(state))

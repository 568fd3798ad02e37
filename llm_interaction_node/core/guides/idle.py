"""The idle retry (``agent.idle_retries``, at ``agent.idle_temperature_step`` hotter each
time): a user turn answered with nothing but ``wait_for_trigger()`` is asked again; comments
before it do not count. Small models tend to repeat the last statement (the hand-back)
instead of acting on the user's feedback. Measured: the 1.5B model answered five corrections
in a row with '# orange is still missing' and then the hand-back, and the retry never fired.
After the answer: the agent asks again."""
from __future__ import annotations

from ..transcript.transcript import Entry
from .calls import WAIT
from .state import GuideState


def ignores_the_user(state: GuideState, statements: list[str]) -> bool:
    """The first answer to a user turn is wait_for_trigger() alone; comments before it do
    not count (measured: the 1.5B model answered five corrections in a row with
    '# orange is still missing' and then the hand-back, and the retry never fired)."""
    if any(not Entry(s).is_comment for s in state.turn.statements):
        return False
    first = next((s for s in statements if not Entry(s).is_comment), None)
    return first is not None and " ".join(first.split()) == WAIT

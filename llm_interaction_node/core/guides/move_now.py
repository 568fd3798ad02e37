"""Move after a correction (``agent.move_after_correction``): where the robot must act
(:mod:`.act`, ``act_on_correction``) and the correction focus exists (the user's words name
where things go), the first statement is a call of the move function within the focus
(grammar only, ``Constraint.move_now``). Measured: the 1.5B model defined look-alikes of the
hand-back instead of acting."""
from __future__ import annotations

from ..decoding.constraint import ConsoleVocabulary
from .state import Guidance, GuideState


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance:
    return Guidance(move_now=so_far.focus is not None and so_far.must_act)

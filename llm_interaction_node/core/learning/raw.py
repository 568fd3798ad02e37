"""Learning mode ``raw`` (the paper's ablation "w/o improve"): the interaction as the lesson.

No LLM and no replay: the interaction without learn calls and the console's notes, ending
with the robot's last action and a bare ``wait_for_trigger()``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..transcript.transcript import Transcript
from .outcome import LearnOutcome, LearnStatus, Lesson
from .transcripts import interaction_text, without_closing_reply

if TYPE_CHECKING:
    from .mode import ModeLearner


def store_raw(learner: ModeLearner, transcript: Transcript) -> LearnOutcome:
    """Mode ``raw``: the interaction itself."""
    stored = without_closing_reply(interaction_text(transcript))
    return learner.store(Lesson(stored.render(), "raw", learner.interaction_id(),
                                author="interaction"),
                         LearnStatus.STORED_RAW, "Stored this interaction in the memory.",
                         said="Thank you, I will remember this interaction.")


__all__ = ["store_raw"]

"""Restate the correction (``agent.restate_correction``, off by default): a turn that answers
an attempt starts with a comment restating the user's words (a small model reads the
transcript's end, not its middle; a note the learner leaves out). Measured: it halved the
copies without the correction focus, and added nothing beside it, so it ships off
(docs/evaluation.md). Before the grammar: the agent writes the note this returns."""
from __future__ import annotations

from ..transcript.notes import restate_note
from .state import GuideState


def restatement(state: GuideState) -> str | None:
    """Before the first statement of a turn that answers an attempt: the user's words
    again, as a comment; None where none is due (once a turn)."""
    if (state.config.restate_correction and not state.restated and not state.turn.statements
            and state.answers_an_attempt()):
        return restate_note(state.task_utterances[-1])
    return None

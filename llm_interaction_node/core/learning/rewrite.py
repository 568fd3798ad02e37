"""Learning mode ``improve``: L_improve's rewrite stored as the lesson, else nothing.

:func:`rewrite` asks L_improve (:mod:`.improve`: validated, its shape and replay checked),
:func:`store_rewrite` stores a rewrite that passed every check and says the lesson in the
robot's voice, :func:`refuse_rewrite` tells the user why a rewrite was not stored. Mode
``auto`` (:mod:`.auto`) uses the same three.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..llm import LLMError
from ..transcript.transcript import Transcript
from .improve import improve
from .improve_result import ImproveResult, ImproveStatus
from .outcome import SAY_REPLAY_FAILED, LearnOutcome, LearnStatus, Lesson
from .transcripts import interaction_text

if TYPE_CHECKING:
    from .mode import ModeLearner

LEARNED_MESSAGE = "Learned from this interaction: {improvement}"
SAY_LLM_FAILED = "Sorry, I cannot learn from this right now: my language model is not reachable."


def first_person(text: str) -> str:
    """'The robot should ...' -> 'I should ...' for saying it to the user."""
    text = re.sub(r"\bthe robot's\b", "my", text, flags=re.I)
    text = re.sub(r"\bthe robot\b", "I", text, flags=re.I)
    verbs = {"is": "I am", "was": "I was", "has": "I have", "does": "I do"}
    text = re.sub(r"\bI (is|was|has|does)\b", lambda m: verbs[m.group(1)], text)
    text = re.sub(r"\bits (own )?(hands?|arms?|gripper|memory)\b", r"my \1\2", text)
    return text[:1].upper() + text[1:]


def store_improved(learner: ModeLearner, transcript: Transcript) -> LearnOutcome:
    """Mode ``improve``: L_improve's rewrite if it passes every check, else nothing."""
    result = rewrite(learner, transcript)
    return store_rewrite(learner, result) if result.ok else refuse_rewrite(learner, result)


def rewrite(learner: ModeLearner, transcript: Transcript) -> ImproveResult:
    """L_improve's rewrite of the interaction, validated, its shape and replay checked
    (:func:`.improve.improve`); nothing is said or stored."""
    interaction = interaction_text(transcript)
    try:
        return improve(learner.llm, learner.api_listing, interaction, learner.ledger,
                       api_names=learner.api_names, check=learner.check, read=learner.read)
    except LLMError as exc:      # improve() catches these; kept for other callers' LLMs
        return ImproveResult(ImproveStatus.LLM_FAILED, f"the language model failed: {exc}",
                             error=exc)


def refuse_rewrite(learner: ModeLearner, result: ImproveResult) -> LearnOutcome:
    """Nothing stored from a rewrite that failed: tell the user why (status ``llm_failed``:
    the learner lets the same request be tried again)."""
    if result.status == ImproveStatus.LLM_FAILED:
        learner.say(SAY_LLM_FAILED)
        return LearnOutcome(LearnStatus.LLM_FAILED, f"Nothing was learned: {result.reason}",
                            improve=result)
    learner.say(_USER_REASONS.get(result.status, "Sorry, I could not learn from this."))
    status = _REFUSED_REWRITES.get(result.status, LearnStatus.NOTHING_TO_LEARN)
    return LearnOutcome(status, f"Nothing was learned: {result.reason}.", improve=result)


def store_rewrite(learner: ModeLearner, result: ImproveResult,
                  message: str = LEARNED_MESSAGE) -> LearnOutcome:
    """Store a rewrite that passed every check (``result.ok``) and say the lesson;
    ``message``: the console's text ({improvement}: L_improve's second answer)."""
    imp = result.improvement
    # imp.transcript is already in stored form (improve.stored_example)
    lesson = Lesson(imp.transcript, "learned", learner.interaction_id(), imp.problem,
                    imp.improvement, author="model")
    spoken = first_person(imp.improvement).rstrip(". ")
    outcome = learner.store(lesson, LearnStatus.LEARNED,
                            message.format(improvement=imp.improvement),
                            said=f"Thank you, I will remember that. {spoken}." if spoken else
                            "Thank you, I will remember that.")
    outcome.improve = result
    return outcome


_USER_REASONS = {
    ImproveStatus.NO_PROBLEM: "I could not find anything to improve in this interaction, so I "
                              "did not store anything.",
    ImproveStatus.UNCHANGED: "I could not find a better way to do this, so I did not store "
                             "anything.",
    ImproveStatus.INVALID: "Sorry, I could not turn this into a correct example, so I did not "
                           "store anything.",
    ImproveStatus.EMPTY: "There is nothing to learn from yet.",
    ImproveStatus.REPLAY_FAILED: SAY_REPLAY_FAILED,
    ImproveStatus.WRONG_SHAPE: "Sorry, I did not learn this: I could not write down how to do it "
                               "your way from the start, so I stored nothing.",
}
# the status of a refused rewrite (others: nothing to learn)
_REFUSED_REWRITES = {ImproveStatus.REPLAY_FAILED: LearnStatus.REPLAY_FAILED,
                     ImproveStatus.WRONG_SHAPE: LearnStatus.WRONG_SHAPE}


__all__ = ["store_improved", "rewrite", "refuse_rewrite", "store_rewrite", "first_person",
           "LEARNED_MESSAGE", "SAY_LLM_FAILED"]

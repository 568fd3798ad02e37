"""Learning mode ``corrected``: a lesson built from the interaction itself, no LLM.

The paper's "w/o improve" (mode ``raw``) stores the whole interaction, failed attempts
included, and a model that copies examples repeats the failure. ``corrected`` keeps what
worked and what the user said, and drops the rest:

* the user's request (the first ``wait_for_trigger()`` and its reply);
* right after it, the user's closing reply (the one that made the robot learn) as a
  comment, so a copying model reads it before it acts;
* every statement that worked, in order; statements that failed (an error, or a skill that
  printed ``'failure'`` or ``'failure: <why>'``) are left out;
* each later reply of the user (the corrections) as a comment where it was said, without
  the robot's question before it (a ``say``/``ask`` in the same input as the
  ``wait_for_trigger()``);
* a bare ``wait_for_trigger()`` at the end.

It is validated by replay like an improved rewrite: dropping a failed statement can change
what later statements return, and such a lesson is not stored (nor one whose replay does not
end as the live world did).
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..transcript.transcript import Entry, Transcript
from .outcome import SAY_END_DIFFERS, SAY_REPLAY_FAILED, LearnOutcome, LearnStatus, Lesson
from .transcripts import cut_interaction, failed, opening, reply_of

if TYPE_CHECKING:
    from .mode import ModeLearner

log = logging.getLogger(__name__)

CORRECTION_COMMENT = "# The user said: {text!r}"


def corrected_example(transcript: Transcript, read=lambda utterance: None) -> Transcript | None:
    """The ``corrected`` lesson of an interaction (the live transcript, so that errors are
    known), or None if it holds no request; ``read``: the readings of the user's utterances
    (a closing reply that only asks to learn is left out)."""
    cut = cut_interaction(transcript)
    if cut is None:
        return None
    closing = read(cut.closing_reply) if cut.closing_reply else None
    out = opening(cut.request, cut.closing_reply, closing is not None and closing.only_learn)
    for entry in cut.body:
        reply = reply_of(entry)
        if reply is not None:
            out.append(Entry(CORRECTION_COMMENT.format(text=reply)))
        elif Entry(entry.source).calls("wait_for_trigger"):
            continue                       # a wait that got no reply
        elif entry.is_comment or not failed(entry):
            out.append(Entry(entry.source, entry.output))
    return Transcript(out + [Entry("wait_for_trigger()")])


def store_corrected(learner: ModeLearner, transcript: Transcript) -> LearnOutcome:
    """Mode ``corrected``: the request, what worked, the corrections as comments; refused if
    its replay shows other outputs or ends elsewhere than the live world."""
    example = corrected_example(transcript, learner.read)
    if example is None:
        return LearnOutcome(LearnStatus.NOTHING_TO_LEARN,
                            "Nothing was learned: the interaction holds no request.")
    replayed = learner.check(example) if learner.check is not None else None
    if replayed is not None and replayed.mismatch is not None:
        log.info("corrected example refused: replayed in the simulated world, %s",
                 replayed.mismatch)
        learner.say(SAY_REPLAY_FAILED)
        return LearnOutcome(LearnStatus.REPLAY_FAILED,
                            f"Nothing was learned: the example does not match the world: "
                            f"replayed in the simulated world, {replayed.mismatch}.")
    if replayed is not None and replayed.end_differs is not None:
        log.info("corrected example refused: replayed from the start, %s", replayed.end_differs)
        learner.say(SAY_END_DIFFERS)
        return LearnOutcome(LearnStatus.REPLAY_FAILED,
                            f"Nothing was learned: replayed in the simulated world from the "
                            f"start, the example does not end as the world is now: "
                            f"{replayed.end_differs}.")
    return learner.store(
        Lesson(example.render(), "corrected", learner.interaction_id(),
               author="corrections"),
        LearnStatus.STORED_CORRECTED,
        "Stored the request, the statements that worked and the user's corrections in the "
        "memory.",
        said="Thank you, I will remember what worked and what you told me.")


__all__ = ["corrected_example", "store_corrected", "CORRECTION_COMMENT"]

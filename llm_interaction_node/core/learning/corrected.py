"""Learning mode ``corrected``: an example built from the interaction itself, no LLM.

The paper's "w/o improve" (mode ``raw``) stores the whole interaction, failed attempts
included, and a model that copies examples repeats the failure. ``corrected`` keeps what
worked and what the user said, and drops the rest:

* the user's request (the first ``wait_for_trigger()`` and its reply);
* right after it, the user's closing reply (the lesson that made the robot learn) as a
  comment, so a copying model reads it before it acts;
* every statement that worked, in order; statements that failed (an error, or a skill that
  printed ``'failure'`` or ``'failure: <why>'``) are left out;
* each later reply of the user (the corrections) as a comment where it was said, without
  the robot's question before it (a ``say``/``ask`` in the same input as the
  ``wait_for_trigger()``);
* a bare ``wait_for_trigger()`` at the end.

It is validated by replay like an improved rewrite: dropping a failed statement can change
what later statements return, and such an example is not stored.
"""
from __future__ import annotations

import re

from ..transcript import Entry, Transcript
from .improve import LEARN_CALL, _calls_any, without_unanswered_waits

FAILURE_OUTPUT = re.compile(r"""^(['"])failure(: .*)?\1$""", re.S)  # 'failure', 'failure: why'
LESSON_COMMENT = "# The user's lesson for this request: {text!r}"
CORRECTION_COMMENT = "# The user said: {text!r}"


def failed(entry: Entry) -> bool:
    """An input whose statement did not work: the console recorded an error, it printed a
    traceback, or a skill returned 'failure'."""
    output = entry.output.strip()
    return bool(entry.error) or bool(FAILURE_OUTPUT.match(output)) or output.startswith("Traceback")


def reply_of(entry: Entry) -> str | None:
    """The user's text if this input waited for the user and got a reply."""
    if not entry.output or not Entry(entry.source).calls("wait_for_trigger"):
        return None
    said = Transcript([Entry(entry.source, entry.output)]).user_utterances()
    return said[0] if said else None


def request_body_lesson(transcript: Transcript) -> tuple[Entry, list[Entry], str | None] | None:
    """An interaction cut for an example without generation: the request (the first
    ``wait_for_trigger()`` the user answered), the inputs after it (markers, learn calls and
    trailing unanswered waits left out) and the user's closing reply (the lesson, taken off the
    inputs); None if there is no request."""
    from ..console import NEW_TASK_MARKER  # late: keeps this module light to import
    entries = [e for e in transcript.entries
               if e.source.strip() != NEW_TASK_MARKER and not _calls_any(e.source, {LEARN_CALL})]
    start = next((i for i, e in enumerate(entries)
                  if e.source.strip() == "wait_for_trigger()" and reply_of(e) is not None), None)
    if start is None:
        return None
    body = without_unanswered_waits(entries[start + 1:])
    lesson = reply_of(body[-1]) if body else None
    if lesson is not None:
        body.pop()
    return Entry(entries[start].source, entries[start].output), body, lesson


def opening(request: Entry, lesson: str | None) -> list[Entry]:
    """The request, then the lesson as a comment (so a copying model reads it before it acts)."""
    return [request] + ([Entry(LESSON_COMMENT.format(text=lesson))] if lesson else [])


def corrected_example(transcript: Transcript) -> Transcript | None:
    """The ``corrected`` example of an interaction (the live transcript, so that errors are
    known), or None if it holds no request."""
    cut = request_body_lesson(transcript)
    if cut is None:
        return None
    request, body, lesson = cut
    out = opening(request, lesson)
    for entry in body:
        reply = reply_of(entry)
        if reply is not None:
            out.append(Entry(CORRECTION_COMMENT.format(text=reply)))
        elif Entry(entry.source).calls("wait_for_trigger"):
            continue                       # a wait that got no reply
        elif entry.is_comment or not failed(entry):
            out.append(Entry(entry.source, entry.output))
    return Transcript(out + [Entry("wait_for_trigger()")])


__all__ = ["corrected_example", "request_body_lesson", "opening", "failed", "reply_of", "LESSON_COMMENT", "CORRECTION_COMMENT"]

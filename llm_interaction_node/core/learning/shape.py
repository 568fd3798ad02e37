"""The shape of a lesson: the original request answered the improved way in its first turn.

A stored lesson is copied from its start. Measured in the household (issue 30): L_improve
wrote the old first turn (juice only) unchanged, then the user's correction as a dialog turn,
then a second trip for the cup; the replay check passed it (every statement works) and the
model copied the first turn in two new processes. So an improved transcript, in the form it
would be stored in, must be:

* the user's request, then the robot's statements, then at most a plain approval
  (``wait_for_trigger()`` answered with nothing after it) and the bare ``wait_for_trigger()``;
  no second user turn with more statements after it;
* without the user's later words (the corrections, the closing reply that asked to learn) as
  something the user says (a ``wait_for_trigger()`` or ``ask()`` answer); they may stay as a
  comment;
* not the first turn of the interaction unchanged, statement for statement;
* where the user said the robot took the wrong object, not a first turn that only names
  another one (:func:`.final.names_the_choice_only`: right in that scene only).

:func:`shape_problem` says which rule a transcript breaks (the sentence L_improve is re-asked
with), :func:`first_turn` and :func:`repeats_first_turn` are the pieces the learner also uses
(mode ``auto``, :mod:`.auto`).
"""
from __future__ import annotations

import re

from ..transcript.transcript import Entry, Transcript
from .transcripts import normalised_statements, reply_of


def _request_index(entries: list[Entry]) -> int | None:
    return next((i for i, e in enumerate(entries)
                 if e.source.strip() == "wait_for_trigger()" and reply_of(e) is not None), None)


def first_turn(transcript: Transcript) -> list[Entry]:
    """The inputs after the user's request up to the next input that waits for the user and
    gets a reply (or the end; trailing unanswered waits left out)."""
    entries = transcript.entries
    start = _request_index(entries)
    if start is None:
        return []
    turn = []
    for entry in entries[start + 1:]:
        if entry.calls("wait_for_trigger"):
            break
        turn.append(entry)
    return turn


def later_replies(transcript: Transcript) -> list[str]:
    """What the user answered after the request to the robot's turns (corrections, the
    closing reply): the replies of ``wait_for_trigger()`` after the first."""
    entries = transcript.entries
    start = _request_index(entries)
    if start is None:
        return []
    return [r for r in (reply_of(e) for e in entries[start + 1:]) if r is not None]


def repeats_first_turn(example: Transcript, original: Transcript) -> bool:
    """Whether the lesson's first turn is the original's first turn, statement for statement
    (comments aside)."""
    mine = normalised_statements(Transcript(first_turn(example)))
    return bool(mine) and mine == normalised_statements(Transcript(first_turn(original)))


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9' ]", " ", text.lower()).split())


def shape_problem(example: Transcript, original: Transcript,
                  read=lambda utterance: None) -> str | None:
    """Why ``example`` (a rewrite in its stored form) does not answer the original
    request the improved way in its first turn, or None if it does; ``read``: the readings of
    the user's utterances (a rejected choice is one the model read as such)."""
    entries = example.entries
    start = _request_index(entries)
    if start is None:
        return None                                   # validation: it starts with a request
    asked = _request_index(original.entries)
    corrections = {_words(r): r for r in later_replies(original)}
    if asked is not None:          # the user's words that are the request itself are no correction
        corrections.pop(_words(reply_of(original.entries[asked]) or ""), None)
    said = example.user_utterances()
    repeated = next((corrections[_words(s)] for s in said if _words(s) in corrections), None)
    if repeated is not None:
        return (f"the user says {repeated!r} in it, but that is the correction the robot must "
                f"learn from: the improved interaction starts from the user's first request, "
                f"does what the correction asks for right away in the first turn, and the user "
                f"does not say the correction (keep it as a # comment if needed)")
    if not any(not e.is_comment for e in first_turn(example)):
        return "the robot does nothing after the request: the first turn must do the request"
    body = entries[start + 1:]
    for i, entry in enumerate(body):
        if reply_of(entry) is not None and any(not e.is_comment and not e.calls("wait_for_trigger")
                                               for e in body[i + 1:]):
            return (f"after the request the user speaks again ({reply_of(entry)!r}) and the "
                    f"robot goes on: the improved interaction does everything the user wanted "
                    f"in the first turn, then at most the user's approval")
    if repeats_first_turn(example, original):
        return ("its first turn is the attempt the user corrected, unchanged: the first turn "
                "must do the request the better way")
    if names_another_choice(example, original, read):
        return ("the user said the robot took the wrong object, and the first turn only names "
                "another one: right in this scene only. The first turn must find the object "
                "the request describes (compare the positions get_obj_pos returns), then move it")
    return None


def names_another_choice(example: Transcript, original: Transcript,
                         read=lambda utterance: None) -> bool:
    """Whether the user rejected a choice in ``original`` (:func:`.final.rejected_choices`) and
    the first turn of ``example`` only moves objects named outright (or looks at the scene).
    Measured (issue 30, f09b4f8): such a rewrite, ``closest_block_pos = get_obj_pos('blue
    block')`` for "the block closest to the ... bowl", was stored as the lesson."""
    from .final import final_parts, names_the_choice_only  # late: final builds on this module
    parts = final_parts(original, read)
    if parts is None or not parts.rejected:
        return False
    return names_the_choice_only([e for e in first_turn(example) if not e.is_comment])


__all__ = ["shape_problem", "first_turn", "later_replies", "repeats_first_turn",
           "names_another_choice"]

"""The console's notes: comments written into the transcript for the model, never lessons.

The agent writes a comment (``>>> # ...``, ``ConsoleSession.annotate``) where the
model must see why something happened: a stop, a failed LLM call, an input that was not run
(refused by the console, or the repeat of the attempt the user answered), the first loop of a
turn, a turn that gives up, and the user's words restated before a turn that answers an
attempt. The seed examples also teach hints the model copies word for word into its own turns
(:data:`HINTS`). All of them help the turn they stand in and mislead in a stored example (a
copying model writes them again, or reads an old refusal as a rule), so the learner leaves them
out of every example it stores (:func:`without_console_notes`); other comments, the model's
own, stay.

The new-task marker (:data:`NEW_TASK_MARKER`, the console session writes it) is the console's
too; the learner drops it where it cuts an interaction (``transcripts.interaction_text``,
``transcripts.cut_interaction``).
"""
from __future__ import annotations

from .transcript import Entry, Transcript

NEW_TASK_MARKER = "# New task. Local variables were reset."
# written (not run) in place of the statement that closed the first loop of a turn
LOOP_NOTE = ("That repeats what was already done. If the task is done, hand back with "
             "wait_for_trigger(); otherwise try something different.")
# written (not run) in place of the statement that would repeat the attempt the user answered
REPEAT_NOTE = ("{source} would do again exactly what was done before the user's last words; "
               "do what they ask for instead.")
# the comment that restates the user's words before a turn that answers an attempt
# (agent.restate_correction)
RESTATE_NOTE = 'The user says: "{text}". Do that now.'
# how the agent's other notes begin: an input not run (refused, or REPEAT_NOTE), a turn that
# gives up, a stop, a failed LLM call
NOT_RUN, GIVING_UP, STOPPED, LLM_FAILED = ("not run: ", "giving up: ", "stopped: ",
                                           "the language model failed: ")
# the comment a lesson built without generation (modes final, corrected) holds right after the
# request: the user's words that asked to learn. The learner's voice in a stored example; one
# the model writes into a live turn is an imitation (measured, issue 30: with the lessons in the
# prompt the 1.5B model wrote it between its statements, up to 4 times a turn, invented words
# too), so it is a note there like the others
LESSON_COMMENT = "The user's lesson for this request: "
NOTE_PREFIXES = (NOT_RUN, GIVING_UP, STOPPED, LLM_FAILED, RESTATE_NOTE.split('"')[0],
                 LESSON_COMMENT)
# hints of the seed examples that the model copies into its turns word for word
# (config/transcripts/humanoid/unknown_name_then_list_objects.txt)
HINTS = ("The name was guessed; check the names of the known objects first.",)


def restate_note(utterance: str) -> str:
    """The restating comment's text for ``utterance`` (one line, no double quotes)."""
    return RESTATE_NOTE.format(text=" ".join(utterance.split()).replace('"', "'"))


def _text(line: str) -> str:
    """A comment line's text (after '#' and blanks); '' for a line that is no comment."""
    line = line.strip()
    return line.lstrip("#").strip() if line.startswith("#") else ""


def is_console_note(line: str) -> bool:
    """Whether one line of a console input is a console note or a copied seed hint."""
    text = _text(line)
    return bool(text) and (text.startswith(NOTE_PREFIXES) or text == LOOP_NOTE or text in HINTS)


def in_the_consoles_voice(source: str) -> bool:
    """Whether a console input the model wrote is nothing but console notes (a small model
    imitates them, e.g. a restated correction with words the user never said); the seed
    examples' :data:`HINTS`, which it is taught to copy, are its own."""
    lines = [ln for ln in source.splitlines() if ln.strip()]
    return bool(lines) and all(is_console_note(ln) and _text(ln) not in HINTS for ln in lines)


def without_console_notes(transcript: Transcript) -> Transcript:
    """The transcript without the console's notes: a note line is taken out of its input (the
    model may write a copied hint above its statement), an input left empty is dropped."""
    entries = []
    for entry in transcript.entries:
        lines = entry.source.splitlines()
        kept = [ln for ln in lines if not is_console_note(ln)]
        if len(kept) == len(lines):
            entries.append(entry)
        elif any(ln.strip() for ln in kept):
            entries.append(Entry("\n".join(kept), entry.output, entry.error))
    return Transcript(entries)


__all__ = ["LOOP_NOTE", "REPEAT_NOTE", "RESTATE_NOTE", "NOT_RUN", "GIVING_UP", "STOPPED",
           "LLM_FAILED", "LESSON_COMMENT", "NOTE_PREFIXES", "HINTS", "restate_note",
           "is_console_note", "in_the_consoles_voice", "without_console_notes"]

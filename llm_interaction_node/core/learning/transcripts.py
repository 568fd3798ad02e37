"""Cutting an interaction into the pieces a lesson is built from.

The low-level transcript helpers every learning mode shares (:mod:`.improve`, :mod:`.raw`,
:mod:`.corrected`, :mod:`.final`, :mod:`.shape`, :mod:`.auto`), so that no mode reads another
mode's module for them: the interaction without learn calls and the console's notes, its
request, the inputs after it and the user's closing reply, the inputs that failed, the waits
that got no reply, and the form a lesson ends in (a bare ``wait_for_trigger()``).
"""
from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ..transcript.notes import LESSON_COMMENT, NEW_TASK_MARKER, without_console_notes
from ..transcript.statements import bare_call
from ..transcript.transcript import Entry, Transcript

LEARN_CALL = "learn_from_interaction"
FAILURE_OUTPUT = re.compile(r"""^(['"])failure(: .*)?\1$""", re.S)  # 'failure', 'failure: why'
# The user's closing reply, shown right after the request (the text is stored data: unchanged).
CLOSING_REPLY_COMMENT = "# " + LESSON_COMMENT + "{text!r}"


def calls_any(source: str, names: Iterable[str]) -> bool:
    """Whether the input calls one of ``names`` (as a function or a method)."""
    names = set(names)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return any(re.search(rf"\b{re.escape(n)}\s*\(", source) for n in names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id in names) or \
                    (isinstance(f, ast.Attribute) and f.attr in names):
                return True
    return False


def interaction_text(transcript: Transcript | str) -> Transcript:
    """The interaction to learn from: learn_from_interaction() calls, the console's notes
    (:mod:`..notes`) and the comments that only mark a new task are removed."""
    t = Transcript.parse(transcript) if isinstance(transcript, str) else transcript
    t = without_console_notes(t)
    entries = [e for e in t.entries
               if not calls_any(e.source, {LEARN_CALL}) and e.source.strip() != NEW_TASK_MARKER]
    return Transcript([Entry(e.source, e.output) for e in entries])


def first_literal(source: str) -> str | None:
    """The first argument of a one-call statement where it is a string literal (the thing a
    call acts on: ``grasp('cup')``, ``bring_object_to('cup', ...)``), else None."""
    call = bare_call(source)
    if call is None or not call.args:
        return None
    first = call.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) \
        else None


def move_key(source: str) -> tuple[str, str] | None:
    """``(function, object)`` if the input is one call that takes an object somewhere:
    ``f('object', target, ...)``, at least two arguments, the first a string literal
    (``put_first_on_second('blue block', 'left side')``, ``place('cup', 'table')``). A later
    call with the same key decides where that object ends; calls of one argument
    (``move_to('kitchen')``, ``grasp('cup')``) are steps, never superseded."""
    call = bare_call(source)
    if call is None or not call.args or len(call.args) + len(call.keywords) < 2:
        return None
    first = call.args[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    return call.func.id, first.value


def without_unanswered_waits(entries: Sequence[Entry]) -> list[Entry]:
    """``entries`` without the trailing inputs that waited for the user and got no reply."""
    entries = list(entries)
    while entries and Entry(entries[-1].source).calls("wait_for_trigger") \
            and not entries[-1].output:
        entries.pop()
    return entries


def without_closing_reply(transcript: Transcript) -> Transcript:
    """The lesson as it is stored: ending with the robot's last action and a bare
    ``wait_for_trigger()``. A last user reply the robot did not act on ("thanks", the request to
    learn) is left out: a lesson that ends in an unanswered reply teaches a small model to
    answer feedback with ``wait_for_trigger()`` instead of acting on it."""
    entries = without_unanswered_waits(transcript.entries)
    while entries and entries[-1].source.strip() == "wait_for_trigger()" and entries[-1].output \
            and len(entries) > 1:
        entries.pop()
    return Transcript([Entry(e.source, e.output) for e in entries] + [Entry("wait_for_trigger()")])


def normalised_statements(transcript: Transcript) -> list[str]:
    """Statements without comments and formatting differences (ast round trip)."""
    out = []
    for source in transcript.statements():
        try:
            out.append(ast.unparse(ast.parse(source)))
        except SyntaxError:
            out.append(" ".join(source.split()))
    return [s for s in out if s]


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


class Cut(NamedTuple):
    """An interaction cut for a lesson built without generation: ``request`` (the first
    ``wait_for_trigger()`` the user answered), ``body`` (the inputs after it) and
    ``closing_reply`` (the user's last reply, the one that made the robot learn, or None)."""

    request: Entry
    body: list[Entry]
    closing_reply: str | None


def cut_interaction(transcript: Transcript) -> Cut | None:
    """The :class:`Cut` of an interaction: markers, learn calls and trailing unanswered waits
    left out of the body, the closing reply taken off it; None if there is no request."""
    entries = [e for e in transcript.entries
               if e.source.strip() != NEW_TASK_MARKER and not calls_any(e.source, {LEARN_CALL})]
    start = next((i for i, e in enumerate(entries)
                  if e.source.strip() == "wait_for_trigger()" and reply_of(e) is not None), None)
    if start is None:
        return None
    body = without_unanswered_waits(entries[start + 1:])
    closing = reply_of(body[-1]) if body else None
    if closing is not None:
        body.pop()
    return Cut(Entry(entries[start].source, entries[start].output), body, closing)


def opening(request: Entry, closing_reply: str | None, only_learn: bool = False) -> list[Entry]:
    """The request, then the user's closing reply as a comment (so a copying model reads it
    before it acts), unless it only praises and asks to learn (``only_learn``: its reading,
    :attr:`..reading.structure.Reading.only_learn`: "Perfect, make a note of that for the
    future." teaches nothing, and with it in the prompt the 1.5B model wrote comments in that
    voice into its turns, measured in issue 30)."""
    said = closing_reply and not only_learn
    return [request] + ([Entry(CLOSING_REPLY_COMMENT.format(text=closing_reply))] if said else [])


__all__ = ["LEARN_CALL", "FAILURE_OUTPUT", "CLOSING_REPLY_COMMENT", "calls_any",
           "interaction_text", "move_key", "without_unanswered_waits", "without_closing_reply",
           "normalised_statements", "failed", "reply_of", "Cut", "cut_interaction", "opening"]

"""The learning gate: is ``learn_from_interaction()`` honoured now?

Two checks, both needed:

1. **Position**, the reference method's rule (:func:`follows_user_reply`): the call is the
   robot's first action after ``wait_for_trigger()`` returned the user's reply (comments and
   ``say`` in between are allowed). Otherwise the seed's refusal text is printed.
2. **The reading** (:mod:`..reading`): the model read that reply as a request to learn (a
   ``learn`` clause: "remember that", "keep this in mind", "from now on put the milk on the
   table", "next time you can go faster there"). A reply read as anything else (a
   correction, a complaint such as "you forgot the milk", thanks alone, a question) is
   refused: a false lesson is the expensive error (it lands in the memory and is retrieved
   again and again). Without a reading (no reader in the session, the model gave none) the
   position alone decides, as in the reference method, where the LLM that drives the robot
   decides that the reply was a request to learn.

A request to learn said with a change still to make ("Try once more ... remember that") waits
until the user accepts the next attempt (:func:`..guides.learn.learn_waits_now`);
the robot makes the change, and the learn call right after it is honoured (rule ``done first``:
the position rule gives way where the reply asked for a change and to learn it); an approving
reply after it is honoured as that request too (``asked_before``).

Until issue 42 a classifier of regular expressions and MiniLM prototypes over the user's words
decided the second check; measured on the development wording pool it is replaced by the
reading (docs/evaluation.md, "The model reads").
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..reading.structure import CORRECTIONS, Reading


@dataclass(frozen=True)
class GateDecision:
    """Why the gate decided as it did (for logs and tests): ``rule`` is ``position`` (the
    call did not follow the user's reply, or nothing else was asked), ``reading`` (the
    model's reading of the reply decided); ``clause``: the reading, as the model wrote it."""

    is_request: bool
    rule: str
    clause: str = ""


# Statements the position rule looks through: speaking and comments do not act on the world.
_TRANSPARENT_CALLS = frozenset({"say"})


def follows_user_reply(transcript) -> bool:
    """The position rule of the reference method: ``learn_from_interaction()`` counts only
    as the robot's first action after ``wait_for_trigger()`` returned the user's reply.

    ``transcript``: the interaction so far, WITHOUT the learn call itself (the console
    records a statement after it ran). Comments and ``say(...)`` in between are skipped."""
    for entry in reversed(list(transcript)):
        if entry.is_comment:
            continue
        try:
            tree = ast.parse(entry.source)
        except SyntaxError:
            return False
        calls = [n.func.id for n in ast.walk(tree)
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        if calls and set(calls) <= _TRANSPARENT_CALLS:
            continue
        return (len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)
                and calls == ["wait_for_trigger"] and bool(entry.output))
    return False


def _with_a_change(reading: Reading) -> bool:
    """The reply asks for a change besides learning: something to move, redo or choose again."""
    return bool(reading.moves) or bool(reading.of_kind(*CORRECTIONS))


def accepts(transcript, utterance: str, reading: Reading | None = None,
            asked_before: bool = False) -> GateDecision:
    """Whether ``learn_from_interaction()`` is honoured now (see the module docstring):
    ``utterance`` is the user's reply, ``reading`` the model's reading of it (None: none);
    ``asked_before``: an earlier reply of this task asked to learn and nothing was learned
    since, so a reply read as approval accepts what that request was about (rule
    ``accepted``: the agent holds a request to learn back until the user accepts the change
    it came with)."""
    if not follows_user_reply(transcript):
        if reading is not None and reading.asks_to_learn and _with_a_change(reading):
            # the robot made the change the request to learn came with, then learns it
            return GateDecision(True, "done first", reading.render().replace("\n", "; "))
        return GateDecision(False, "position")
    if reading is None:
        return GateDecision(True, "position")
    said = reading.render().replace("\n", "; ")
    if asked_before and not reading.asks_to_learn and reading.closes:
        return GateDecision(True, "accepted", said)
    return GateDecision(reading.asks_to_learn, "reading", said)


__all__ = ["accepts", "follows_user_reply", "GateDecision"]

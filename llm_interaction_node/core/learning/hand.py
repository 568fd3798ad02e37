"""The hand the user asked for, written into the turn's grasps.

"Use your left hand, please" after the robot took the juice with its right: the model read it
as ``hand: left`` (:mod:`..reading`), and the turn that answers it must grasp with the left.
Measured on the household correction bench (issue 44): the wrong-hand situations were put right
0 of 4 times; nothing acted on the hand the reply named. So in a turn that answers a reply read
as a hand, every ``grasp`` the model writes takes that hand (:func:`at_asked_hand`: a grasp
with no hand or with the other one); the humanoid API tells the model how to change hands (put
the thing down, grasp it again). "Both" names no single hand: nothing is written.
"""
from __future__ import annotations

import ast

from ..reading.structure import Reading
from ..statements import bare_call

ONE_HAND = ("left", "right")


def asked_hand(reply: Reading | None) -> str | None:
    """The one hand a reply asks for (the last said), else None."""
    hands = [c.hand for c in reply.of_kind("hand")] if reply is not None else []
    return hands[-1] if hands and hands[-1] in ONE_HAND else None


def at_asked_hand(reply: Reading | None, source: str) -> str:
    """``source`` (one statement) with the hand ``reply`` asks for, where it is a ``grasp``."""
    hand = asked_hand(reply)
    call = bare_call(source) if hand is not None else None
    if call is None or call.func.id != "grasp" or not call.args:
        return source
    given = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "hand"), None)
    if given is not None and not (isinstance(given, ast.Constant) and given.value in
                                  (*ONE_HAND, None)):
        return source                     # a hand the code cannot read: the model's
    if given is not None and given.value == hand:
        return source
    call.args = call.args[:1]
    call.keywords = [k for k in call.keywords if k.arg != "hand"]
    call.args.append(ast.Constant(hand))
    return ast.unparse(call)


__all__ = ["asked_hand", "at_asked_hand"]

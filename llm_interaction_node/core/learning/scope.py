"""What a rewrite may change: only what the user asked about.

L_improve rewrites an interaction into a lesson; the replay check proves its statements work,
and where the live world is known (``Replayed.moved_kept``) it also names the objects the
rewrite moves that the live interaction left where they were. Such a move is part of the
lesson only if the user's words name the object ("next time bring me a cup as well": the cup
may move although it never did). Measured without it: "put all the blocks on the top side"
was stored as a rewrite that also put the three bowls on the top side; the world the user
accepted had them untouched.

Names: a scene name matches if the user's words hold it ("yellow bowl"; an id's ``_0`` and
dashes dropped: ``coffee-cup_0`` is "coffee cup"), or hold its last word when no other object
of the scene shares that word ("cup" names ``coffee-cup_0`` beside a mug and a tumbler, "bowl"
names none of three bowls).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence


def spoken_name(name: str) -> str:
    """``coffee-cup_0`` -> 'coffee cup'; 'yellow bowl' stays."""
    return " ".join(re.sub(r"_\d+$", "", name).replace("-", " ").replace("_", " ").lower().split())


def named_by(name: str, said: str, scene: Iterable[str]) -> bool:
    """Whether ``said`` (the user's words, any case) names the object ``name`` of ``scene``."""
    text = " " + " ".join(re.findall(r"[a-z0-9]+", said.lower())) + " "
    spoken = spoken_name(name)
    if f" {spoken} " in text:
        return True
    head = spoken.split()[-1] if spoken else ""
    sharing = [n for n in scene if n != name and spoken_name(n).split()[-1:] == [head]]
    return bool(head) and not sharing and f" {head} " in text


def unasked_moves(moved_kept: Sequence[str], utterances: Sequence[str],
                  scene: Iterable[str]) -> list[str]:
    """The objects of ``moved_kept`` (moved by the rewrite, left in place by the live
    interaction) that none of the user's ``utterances`` names."""
    said = " ".join(utterances)
    scene = list(scene) or list(moved_kept)
    return [n for n in moved_kept if not named_by(n, said, scene)]


def unasked_sentence(names: Sequence[str]) -> str:
    """Why such a rewrite is not stored (shown to L_improve on the re-ask, and logged)."""
    listed = ", ".join(f"the {spoken_name(n)}" for n in names)
    return (f"it moves {listed}, which the interaction left where it was and the user never "
            f"asked about; keep the improved way, and leave what the user did not ask about "
            f"where it is")


__all__ = ["spoken_name", "named_by", "unasked_moves", "unasked_sentence"]

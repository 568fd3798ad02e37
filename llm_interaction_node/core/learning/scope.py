"""What a rewrite may change: only what the user asked about.

L_improve rewrites an interaction into a lesson; the replay check proves its statements work,
and where the live world is known (``Replayed.moved_kept``) it also names the objects the
rewrite moves that the live interaction left where they were. Such a move is part of the
lesson only if the user's words, as the model read them (:mod:`..reading`), name the object:
as an object to move or bring ("next time bring me a cup as well": ``also: coffee cup with
mango juice``, the cup may move although it never did), as every object of its kind, as a
relation's reference or as a target. Measured without it: "put all the blocks on the top side"
was stored as a rewrite that also put the three bowls on the top side; the world the user
accepted had them untouched. Where a thing lies now is not in a reading, so "it went in the
blue bowl" does not license moving the blue bowl.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..reading.structure import Reading, Selection
from ..reading.vocabulary import kind_word, spoken_form


def spoken_name(name: str) -> str:
    """``coffee-cup_0`` -> 'coffee cup'; 'yellow bowl' stays."""
    return spoken_form(name).lower()


def _selected(selection: Selection | None, scene: list[str]) -> set[str]:
    if selection is None:
        return set()
    if selection.how == "every" or (selection.how != "named" and selection.kind):
        of_kind = {n for n in scene if kind_word(spoken_name(n)) == selection.kind}
        return of_kind | ({selection.reference} if selection.reference else set())
    return set(selection.names)


def named_in(readings: Iterable[Reading | None], scene: Iterable[str]) -> set[str]:
    """The scene names the readings name: objects meant (every one of a kind a relation or
    ``every`` speaks of, and the relation's reference), targets, the companions of ``also``."""
    scene = list(scene)
    names: set[str] = set()
    for reading in readings:
        for clause in reading.clauses if reading is not None else ():
            names |= _selected(clause.objects, scene) | _selected(clause.companion, scene)
            if clause.where is not None and clause.where.name:
                names.add(clause.where.name)
    return names


def unasked_moves(moved_kept: Sequence[str], readings: Sequence[Reading | None],
                  scene: Iterable[str]) -> list[str]:
    """The objects of ``moved_kept`` (moved by the rewrite, left in place by the live
    interaction) that none of the readings of the user's utterances names."""
    scene = list(scene) or list(moved_kept)
    named = named_in(readings, scene)
    return [n for n in moved_kept if n not in named]


def unasked_sentence(names: Sequence[str]) -> str:
    """Why such a rewrite is not stored (shown to L_improve on the re-ask, and logged)."""
    listed = ", ".join(f"the {spoken_name(n)}" for n in names)
    return (f"it moves {listed}, which the interaction left where it was and the user never "
            f"asked about; keep the improved way, and leave what the user did not ask about "
            f"where it is")


__all__ = ["spoken_name", "named_in", "unasked_moves", "unasked_sentence"]

"""The code computes: which objects a reading's selection means in a scene, and where its
target is for each of them.

A :class:`~.structure.Selection` is resolved over the scene's names and positions
(:class:`Scene`): ``every block`` is every name of that kind; ``the block left of the green
bowl`` the nearest of the blocks whose offset from the bowl points left (the benchmark's
meaning, and the lessons' code); ``nearest to`` / ``farthest from`` by distance; ``number 2
from the left`` the second when sorted from that edge. Sides are the table's frame
(``denormalize_xy``: x to the right, y to the top), the same :data:`SIDE_VECTORS` the lessons'
code computes with (:mod:`..learning.choice`). A :class:`~.structure.Target` is a name, each
object's own-colour bowl (``the same color bowl``), the bowls of other colours, or free.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .structure import Selection, Target
from .vocabulary import ReadingVocabulary, split_household

log = logging.getLogger(__name__)

SIDE_VECTORS: dict[str, tuple[int, int]] = {
    "left": (-1, 0), "right": (1, 0), "top": (0, 1), "bottom": (0, -1)}


@dataclass
class Scene:
    """The names of a scene (with their spoken forms) and a way to ask where each one is
    (``position(name)`` -> x, y(, z); the API's ``get_obj_pos``). A position that cannot be
    had makes a selection that needs it unresolved (None), never a guess."""

    vocabulary: ReadingVocabulary
    position: Callable[[str], Sequence[float]] | None = None

    def _xy(self, name: str) -> np.ndarray | None:
        if self.position is None:
            return None
        try:
            p = np.asarray(self.position(name), dtype=float).reshape(-1)
        except Exception:  # noqa: BLE001 - an object the robot cannot locate: unresolved
            return None
        return p[:2] if p.shape[0] >= 2 else None

    def frozen(self) -> Scene:
        """This scene with its positions as they are now (a request's relations are meant in
        the scene it was said in, not after the robot moved things)."""
        if self.position is None:
            return self
        now = {n: p for n in self.vocabulary.things.values() if (p := self._xy(n)) is not None}
        return Scene(self.vocabulary, now.__getitem__)

    def of_kind(self, kind: str | None) -> list[str]:
        return self.vocabulary.of_kind(kind) if kind else []

    def select(self, selection: Selection | None) -> list[str] | None:
        """The names ``selection`` means here, in the scene's order where several; None where
        it cannot be resolved (no selection, no positions, nothing on that side)."""
        if selection is None:
            return None
        if selection.how == "named":
            return list(selection.names)
        candidates = self.of_kind(selection.kind)
        if selection.how == "every":
            return candidates or None
        if selection.how == "nth":
            return self._nth(candidates, selection.side, selection.nth)
        ref = self._xy(selection.reference) if selection.reference else None
        if ref is None:
            return None
        placed = {n: p for n in candidates if n != selection.reference
                  and (p := self._xy(n)) is not None}
        if len(placed) < len([n for n in candidates if n != selection.reference]):
            return None
        if selection.how == "side":
            u = np.asarray(SIDE_VECTORS[selection.side], dtype=float)
            placed = {n: p for n, p in placed.items() if float((p - ref) @ u) > 0}
        if not placed:
            return None
        distance = {n: float(np.linalg.norm(p - ref)) for n, p in placed.items()}
        pick = max if selection.how == "farthest" else min
        return [pick(distance, key=distance.get)]

    def _nth(self, candidates: list[str], side: str | None, nth: int | None) -> list[str] | None:
        if side not in SIDE_VECTORS or not nth:
            return None
        u = np.asarray(SIDE_VECTORS[side], dtype=float)
        placed = [(n, p) for n in candidates if (p := self._xy(n)) is not None]
        if len(placed) < len(candidates) or not 1 <= nth <= len(placed):
            return None
        ordered = sorted(placed, key=lambda np_: -float(np_[1] @ u))   # nearest that edge first
        return [ordered[nth - 1][0]]

    def targets(self, target: Target | None, obj: str | None) -> list[str] | None:
        """Where ``target`` puts ``obj`` (None for an object given as an expression): the
        names it may go to; None where the target gives no name (none said, elsewhere)."""
        if target is None or target.how in ("elsewhere", "me"):
            return None
        if target.how == "named":
            return [target.name]
        bowls = self.of_kind("bowl")
        if obj is None:
            return bowls or None
        color = obj.split()[0]
        if target.how == "same color":
            own = [b for b in bowls if b.split()[0] == color]
            return own or None
        others = [b for b in bowls if b.split()[0] != color]
        return others or None


def reading_scene(api) -> Scene:
    """The scene of a robot API (an :class:`~..apis.registry.ApiRegistry`) as readings see
    it: the tabletop's objects (``get_obj_names()``) with the move function's named places, or the
    household's objects, surfaces (``list_objects()``), navigation locations
    (``list_locations()``) and where each thing lies (``list_object_locations()``); positions
    from ``get_obj_pos``. Raises what the listings raise."""
    move = api.move_function()
    places = list(move[1].places) if move is not None else []
    position = api["get_obj_pos"].fn if "get_obj_pos" in api else None
    movable = move[1].movable if move is not None else None
    if "get_obj_names" in api:
        vocabulary = ReadingVocabulary.of(api["get_obj_names"].fn(), places, show_places=False,
                                          movable=movable)
    else:
        listed = api["list_objects"].fn(affordance=None) if "list_objects" in api else []
        things, surfaces = split_household(listed)
        locations = api["list_locations"].fn() if "list_locations" in api else []
        vocabulary = ReadingVocabulary.of(things, surfaces + places, locations,
                                          me="handover_object_to_human" in api,
                                          lying=_lying(api))
    return Scene(vocabulary, position)


def object_locations(api) -> dict[str, str | None] | None:
    """Where each graspable thing lies (``list_object_locations``: thing -> its symbolic
    location, None where held); None where the API has no such query or it failed (logged)."""
    if "list_object_locations" not in api:
        return None
    try:
        return dict(api["list_object_locations"].fn(affordance="grasp"))
    except Exception as exc:  # noqa: BLE001 - a robot that cannot list places: the caller
        log.warning("where the things lie is unknown (%s)", exc)   # goes without it
        return None


def _lying(api) -> dict[str, str | None]:
    """Where each thing lies, or nothing where the API cannot tell: it only sharpens a
    request's reading (:mod:`.in_place`), never blocks it."""
    return object_locations(api) or {}


__all__ = ["Scene", "SIDE_VECTORS", "reading_scene", "object_locations"]

"""After a correction: which objects and targets the next moves may name, from the readings.

Measured with the 1.5B embedded model (issue 31): after "in the bottom left corner, not on the
left side" it copies or nudges its rejected arguments (``denormalize_xy([0, 0])`` again); it
reads neither the listing, nor the examples, nor its own outputs. So the help acts where the
model cannot ignore it, in the decoding: in the turn after the user answered an attempt that
moved something, the move function's arguments (:class:`~..apis.registry.MoveSpec`) are limited
to what the user meant, as the model READ it (:mod:`..reading`) and the code computed it
(:class:`~..reading.select.Scene`):

* the objects: those the request selects, computed in this scene ("the second block from
  the left" is one block here, "every block" all of them), narrowed to those the reply names
  or selects; after "wrong object" the request's ones the attempt did not take, else the
  reply's, else any not taken (:func:`objects_meant`: how much each reading is trusted, as
  measured);
* the targets, per object: where the reply says it goes, else where the request said (each
  block's own-colour bowl for "the bowl of the same colour"); a target given as "elsewhere"
  (an offset, a line) leaves the point free; nothing said anywhere: no focus;
* never a move the rejected attempt left in place (the same object to the same target), nor
  one this turn made already.

The same code serves the household (issue 44): its move is ``bring_object_to`` (the humanoid
API's :data:`~..apis.humanoid.MOVE`), a target read as ``me`` is the function's own way to the
user (``MoveSpec.to_user``: the handover place), and its surfaces are targets by their spoken
names ("the dining table" is ``on_dining-table_0``).

Where something lies now is never a target: the reading keeps only what the user wants. The
model still chooses the call, the object and the order; coordinates give way to the names of
the places (``'left side'``), which the API takes. :func:`focus_from` builds the
:class:`Focus` (None: nothing to restrict); the console's :class:`~.constraint.Constraint`
renders it into the grammar (what the model cannot write is never refused afterwards).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..apis.registry import MoveSpec
from ..reading.select import Scene
from ..reading.structure import ME, Reading


@dataclass(frozen=True)
class Focus:
    """What the move function may take in this turn.

    ``objects``: the literal objects it may move (None: any movable scene name, or an
    expression); ``targets``: the literal targets it may name (``per_object``: for an object
    listed there, its own); ``refused``: (object, target) moves of the rejected attempt, never
    offered again; ``free_targets``: an expression may be the target too (the user asked for
    a point no name gives)."""

    function: str
    spec: MoveSpec
    objects: tuple[str, ...] | None
    targets: tuple[str, ...]
    refused: frozenset[tuple[str, str]] = frozenset()
    free_targets: bool = False
    per_object: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def targets_for(self, obj: str | None) -> list[str]:
        """The literal targets allowed for ``obj`` (None: an object given as an expression)."""
        targets = self.per_object.get(obj, self.targets) if obj is not None else self.targets
        return [t for t in targets if t != obj and (obj, t) not in self.refused]


def _selected(readings: Sequence[Reading | None], scene: Scene, movable: list[str]) -> list[str]:
    """The movable objects the move clauses of ``readings`` select in the scene, in order."""
    out: list[str] = []
    for reading in readings:
        for clause in reading.moves if reading is not None else ():
            out += scene.select(clause.objects) or []
    return [o for o in dict.fromkeys(out) if o in movable]


def _names_only(reading: Reading | None) -> bool:
    """The request names its objects (no relation, no kind: the user said which)."""
    return reading is not None and bool(reading.moves) and all(
        c.objects is not None and c.objects.how == "named" for c in reading.moves)


def objects_meant(request: Reading | None, reply: Reading, scene: Scene, movable: list[str],
                  taken: set[str], request_scene: Scene | None = None) -> list[str] | None:
    """Which objects the next moves may take (None: any movable one), from the two readings
    and what the attempt took, weighing them as measured: the request is read right far more
    often than a reply (docs/evaluation.md: 55 of 56 requests, 18 of 32 tabletop replies of the
    development pool), and a reply read with an object it never names (a block for "the block
    you took", "yellow block" for "the yellow bowl") sent the correction to the wrong block.

    * After "wrong object": the objects the request selects that the attempt did not take;
      where the request's reading took exactly what it names, the rejection contradicts the
      task (the robot did take the named object) and the request's objects stand; else what
      the reply selects that was not taken; else any object not taken.
    * Otherwise: what the reply selects where it is part of what the request selects (or the
      request selects nothing computable); else the request's objects.

    The request's selection is computed in ``request_scene`` (the scene it was said in:
    measured, "the cube closest to the green bowl" computed after the attempt had moved it
    away was another block), the reply's in ``scene`` (now)."""
    asked = _selected([request], request_scene or scene, movable)
    said = _selected([reply], scene, movable)
    if reply.rejects_choice and not (_names_only(request) and taken and taken <= set(asked)):
        for pool in (asked, said, movable):
            kept = [o for o in pool if o not in taken]
            if kept:
                return kept
        return None
    if said and (not asked or set(said) <= set(asked)):
        return said
    return asked or said or None


def _targets(scene: Scene, spec: MoveSpec, where, obj: str | None) -> list[str]:
    """Where ``where`` puts ``obj`` for this move function: the scene's targets, and for "me"
    (hand it to the user) the function's own target for that (``MoveSpec.to_user``: the
    household's handover place), where it has one."""
    if where is not None and where.how == ME:
        return [spec.to_user] if spec.to_user else []
    return scene.targets(where, obj) or []


def focus_from(function: str, spec: MoveSpec, request: Reading | None, reply: Reading | None,
               scene: Scene, attempt: Iterable[tuple[str, str | None]],
               done: Iterable[tuple[str, str | None]] = (),
               request_scene: Scene | None = None) -> Focus | None:
    """The focus of the turn that answers ``reply`` (the reading of the user's answer to an
    attempt whose moves were ``attempt``; ``done``: the moves this turn made already), with
    ``request`` the task's request (said in ``request_scene``, default ``scene``); None where
    the readings name no target (nothing to choose among) or there is no reading of the
    reply."""
    if reply is None:
        return None
    attempt = list(attempt)
    scene_names = list(scene.vocabulary.things.values())
    movable = [n for n in scene_names if spec.movable(n)]
    known = set(scene_names) | set(scene.vocabulary.places.values()) | set(spec.places)
    request_scene = request_scene or scene
    clauses = [(c, scene) for c in reply.moves] + \
        [(c, request_scene) for c in (request.moves if request is not None else ())]
    objects = objects_meant(request, reply, scene, movable, {o for o, _ in attempt},
                            request_scene)
    free = any(c.where is not None and c.where.how == "elsewhere" for c, _ in clauses)
    # where the attempt LEFT each object is refused, not a move a later one replaced
    # (measured: red block -> red bowl, then -> green bowl; "it went in the green bowl instead
    # of in the red bowl" left nothing to offer when every move of the attempt was refused)
    last = {o: t for o, t in attempt}
    refused = frozenset((o, t) for o, t in [*last.items(), *done] if t is not None)

    def targets_for(obj: str | None) -> tuple[str, ...]:
        """The first clause (reply first) about ``obj`` that gives it a target it may go to:
        a target the reply gives that the attempt left it at (where it lies now, read as a
        wish) falls through to the request's."""
        for clause, said_in in clauses:
            chosen = said_in.select(clause.objects)
            if clause.objects is not None and obj is not None and chosen is not None \
                    and obj not in chosen:
                continue                      # the clause is about other objects
            found = [t for t in _targets(scene, spec, clause.where, obj)
                     if t in known and (obj, t) not in refused]
            if found:
                return tuple(found)
        return ()

    def along(obj: str) -> tuple[str, ...]:
        """Where the attempt took the others of a clause about ``obj`` that says no place:
        "the screwdriver and the sponge, please", the screwdriver handed over and the sponge
        forgotten: the sponge goes to the user too (measured, issue 44: no target, no focus,
        and the model answered "You forgot the sponge." with a variable named for forgetting)."""
        for clause, said_in in clauses:
            if clause.where is not None:
                continue
            chosen = said_in.select(clause.objects) or []
            found = [t for o, t in attempt if o in chosen and o != obj and t is not None
                     and (t in known or t == spec.to_user) and (obj, t) not in refused]
            if obj in chosen and found:
                return tuple(dict.fromkeys(found))
        return ()

    flat = targets_for(None)
    per_object = {o: t for o in (objects or movable)
                  if (t := targets_for(o) or along(o)) and t != flat}
    if not flat and not per_object and not free:
        return None
    focus = Focus(function, spec, tuple(objects) if objects else None, flat, refused, free,
                  per_object)
    if not free and not any(focus.targets_for(o) for o in (focus.objects or movable)):
        return None              # every named target was refused: nothing left to offer
    return focus


__all__ = ["Focus", "focus_from"]

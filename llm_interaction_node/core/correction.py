"""After a correction: which objects and targets the next moves may name, from the readings.

Measured with the 1.5B embedded model (issue 31): after "in the bottom left corner, not on the
left side" it copies or nudges its rejected arguments (``denormalize_xy([0, 0])`` again); it
reads neither the listing, nor the examples, nor its own outputs. So the help acts where the
model cannot ignore it, in the decoding: in the turn after the user answered an attempt that
moved something, the move function's arguments (:class:`~.registry.MoveSpec`) are limited to
what the user meant, as the model READ it (:mod:`.reading`) and the code computed it
(:class:`~.reading.select.Scene`):

* the objects: those the reply names or selects ("the blue block", "the one left of the
  bowl"), else those the request selects, computed in this scene ("the second block from the
  left" is one block here), else any movable one; after "wrong object" never the one taken;
* the targets, per object: where the reply says it goes, else where the request said (each
  block's own-colour bowl for "the bowl of the same colour"); a target given as "elsewhere"
  (an offset, a line) leaves the point free; nothing said anywhere: no focus;
* never a move the rejected attempt left in place (the same object to the same target).

Where something lies now is never a target: the reading keeps only what the user wants. The
model still chooses the call, the object and the order; coordinates give way to the names of
the places (``'left side'``), which the API takes. :func:`focus_from` builds the
:class:`Focus` (None: nothing to restrict); the console's :class:`~.constraint.Constraint`
renders it into the grammar (what the model cannot write is never refused afterwards).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .reading.select import Scene
from .reading.structure import Reading
from .registry import MoveSpec


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


def _wanted(readings: Sequence[Reading | None]) -> list:
    """The move clauses of the readings, newest reading first (a reply beats the request)."""
    out = []
    for reading in reversed([r for r in readings if r is not None]):
        out.extend(reading.moves)
    return out


def focus_from(function: str, spec: MoveSpec, request: Reading | None, reply: Reading | None,
               scene: Scene, attempt: Iterable[tuple[str, str | None]]) -> Focus | None:
    """The focus of the turn that answers ``reply`` (the reading of the user's answer to an
    attempt whose moves were ``attempt``), with ``request`` the task's request; None where the
    readings name no target (nothing to choose among) or there is no reading of the reply."""
    if reply is None:
        return None
    scene_names = list(scene.vocabulary.things.values())
    movable = [n for n in scene_names if spec.movable(n)]
    places = set(spec.places)
    clauses = _wanted([request, reply])        # the reply's first
    said_objects: list[str] = []
    for clause in reply.moves:
        said_objects += scene.select(clause.objects) or []
    if not said_objects and request is not None:
        for clause in request.moves:
            said_objects += scene.select(clause.objects) or []
    objects = [o for o in dict.fromkeys(said_objects) if o in movable] or None
    if reply.rejects_choice:
        taken = {o for o, _ in attempt}
        pool = objects if objects is not None else movable
        kept = [o for o in pool if o not in taken]
        objects = kept or objects
    free = any(c.where is not None and c.where.how == "elsewhere" for c in clauses)
    known = set(scene_names) | places

    def targets_for(obj: str | None) -> tuple[str, ...]:
        for clause in clauses:
            chosen = scene.select(clause.objects)
            if clause.objects is not None and obj is not None and chosen is not None \
                    and obj not in chosen:
                continue                      # the clause is about other objects
            found = scene.targets(clause.where, obj)
            if found:
                return tuple(t for t in found if t in known)
        return ()

    flat = targets_for(None)
    per_object = {o: t for o in (objects or movable) if (t := targets_for(o)) and t != flat}
    if not flat and not per_object and not free:
        return None
    # where the attempt LEFT each object is refused, not a move a later one replaced
    # (measured: red block -> red bowl, then -> green bowl; "it went in the green bowl instead
    # of in the red bowl" left nothing to offer when every move of the attempt was refused)
    last = {o: t for o, t in attempt}
    refused = frozenset((o, t) for o, t in last.items() if t is not None)
    focus = Focus(function, spec, tuple(objects) if objects else None, flat, refused, free,
                  per_object)
    if not free and not any(focus.targets_for(o) for o in (focus.objects or movable)):
        return None              # every named target was refused: nothing left to offer
    return focus


__all__ = ["Focus", "focus_from"]

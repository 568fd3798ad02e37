"""Does a lesson hold in scenes other than its own? (issue 43 item 3)

The replay check (:mod:`.replay_check`) runs a lesson in the scene it was taught in. A lesson
that names the block it took there, or computes with a side that happened to fit, passes that
and fails the next scene. So a lesson whose request was read (its reading: the objects meant
and where they go) is also run in copies of its scene with the objects moved (a simulated copy,
no robot motion), and must do there what its reading says: the objects the reading selects in
that copy (:meth:`..reading.select.Scene.select`: "the block left of the green bowl" is the one
there) go where it says, and nothing else moves. A lesson that holds in every copy is stored
as a rule (its slots read in a new request's names: :mod:`..memory.meaning`); one that does
not is stored as the paper's literal example of its own scene (shown as it was, never adapted
or followed).

The core knows no world: the concrete check is built where the worlds are
(``replay.scenes_check``) and handed to the learner."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from ..reading.select import Scene
from ..reading.structure import Reading
from ..transcript.transcript import Transcript

RULE = "rule"          # Example.scope: holds in the changed scenes
SCENE = "scene"        # holds in its own scene only: the paper's literal example


@dataclass
class SceneVerdict:
    """``tried``: changed scenes the lesson was judged in; ``held``: those it did what its
    reading says in; ``why``: one sentence per scene it did not."""

    tried: int = 0
    held: int = 0
    why: list[str] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return self.tried > 0 and self.held == self.tried

    @property
    def scope(self) -> str:
        return RULE if self.holds else SCENE

    def __str__(self) -> str:
        out = f"held in {self.held} of {self.tried} changed scene(s)"
        return out + (f" ({'; '.join(self.why)})" if self.why else "")


class ScenesCheck(Protocol):
    """``check(transcript, reading)``: the :class:`SceneVerdict` of the lesson ``transcript``
    run in changed copies of its scene and judged by ``reading``; None where it cannot be
    judged (no world to copy, nothing the reading selects there)."""

    def __call__(self, transcript: Transcript, reading: Reading) -> SceneVerdict | None: ...


def expected_moves(scene: Scene, reading: Reading) -> dict[str, list[str] | None] | None:
    """Object -> the names it may end at (None: anywhere it is moved to), for each ``do``
    clause of ``reading`` in ``scene``; None where a clause cannot be resolved there."""
    out: dict[str, list[str] | None] = {}
    for clause in reading.of_kind("do"):
        objects = scene.select(clause.objects)
        if not objects:
            return None
        for name in objects:
            out[name] = scene.targets(clause.where, name)
    return out or None


def judged(expected: dict[str, list[str] | None],
           moves: Iterable[tuple[str, str | None]]) -> str | None:
    """None where ``moves`` (the API's move log: object, where it went) do what
    ``expected`` says, else why not (the first difference)."""
    last: dict[str, str | None] = {}
    for name, where in moves:
        last[name] = where
    for name, targets in expected.items():
        if name not in last:
            return f"the {name} was not moved"
        if targets is not None and last[name] not in targets:
            return f"the {name} went to {last[name] or 'a point'}, not {' or '.join(targets)}"
    extra = sorted(set(last) - set(expected))
    if extra:
        return f"the {', '.join(extra)} moved too"
    return None


__all__ = ["SceneVerdict", "ScenesCheck", "expected_moves", "judged", "RULE", "SCENE"]

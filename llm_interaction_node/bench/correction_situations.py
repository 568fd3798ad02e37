"""The situations of the correction bench: a scene, a wrong first attempt, the user's feedback.

A situation is generated, not recorded: a task of one of the 8 seen templates (its scene
sampled as the benchmark samples it), the moves that would solve it on that scene, and one
of the mistakes the embedded model makes (measured in ``../shared`` notes and the 5-run
benchmark's transcripts), written as the model writes its attempts: ``get_obj_names()``,
then one ``put_first_on_second`` per block, places as ``denormalize_xy([x, y])``.

Mistakes (``kind``):

* ``left_out``: one block of an all-blocks task is not moved;
* ``wrong_place``: a named place taken for its neighbour (a side for the corner next to it,
  a corner for the side next to it: what the model writes for "left side" / "top left");
* ``wrong_block``: a selection task takes another block than the one meant;
* ``wrong_bowl``: the block goes into another bowl;
* ``shared_bowl``: two blocks of a matching-colours task in one bowl (stacked there);
* ``wrong_target``: block on block: the block goes into a bowl instead.

The user's feedback is the simulated user's high-level answer to the world after the attempt
(:class:`~..eval.simulated_user.SimulatedUser`: what is wrong, never the solution).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..eval import tasks as T
from ..eval.observe import PLACES, color

# what the model writes for a named place it misunderstands (measured: "left side" stays
# [0, 0], "top left corner" becomes [0.5, 1]): each place and the neighbour taken for it
CONFUSED_PLACE = {
    "left side": "bottom left corner", "right side": "bottom right corner",
    "top side": "top left corner", "bottom side": "bottom left corner",
    "middle": "top side",
    "top left corner": "top side", "top right corner": "right side",
    "bottom left corner": "left side", "bottom right corner": "bottom side",
}
# normalized [x, y] of each named place (denormalize_xy's square)
NORMALIZED = {
    "top left corner": (0, 1), "top side": (0.5, 1), "top right corner": (1, 1),
    "left side": (0, 0.5), "middle": (0.5, 0.5), "right side": (1, 0.5),
    "bottom left corner": (0, 0), "bottom side": (0.5, 0), "bottom right corner": (1, 0),
}
assert set(NORMALIZED) == set(PLACES)

# the mistakes each template's scenes cycle through (first applicable one per scene)
MISTAKES: dict[str, tuple[str, ...]] = {
    "block_on_block": ("wrong_target",),
    "block_in_bowl": ("wrong_bowl",),
    "blocks_on_place": ("wrong_place", "left_out"),
    "blocks_in_bowl": ("left_out",),
    "matching_bowls": ("left_out", "wrong_bowl", "shared_bowl"),
    "block_direction_of_bowl": ("wrong_block", "wrong_place"),
    "block_distance_to_bowl": ("wrong_block", "wrong_place"),
    "nth_block_from_direction": ("wrong_block", "wrong_place"),
}
SEEN_TEMPLATES = tuple(MISTAKES)


@dataclass
class Situation:
    """One wrong first attempt on one generated scene (see the module docstring)."""

    id: str
    template: str
    seed: int
    kind: str
    task: T.Task = field(repr=False)
    attempt: list[str] = field(default_factory=list)     # console inputs, after the instruction
    run: int = 1                        # the n-th situation of its template (a pool's wording)


def solution_moves(task: T.Task, pos: T.Positions) -> list[tuple[str, str]]:
    """(block, target) moves that solve ``task`` on the scene ``pos``; a target is an object
    name or a named place."""
    a, t = task.attributes, task.template_id
    blocks = [n for n in pos if n.endswith(" block")]
    if t == "block_on_block":
        return [(a["block1"], a["block2"])]
    if t == "block_in_bowl":
        return [(a["block"], a["bowl"])]
    if t == "blocks_on_place":
        return [(b, a["place"]) for b in blocks]
    if t == "blocks_in_bowl":
        return [(b, a["bowl"]) for b in blocks]
    if t == "matching_bowls":
        return [(b, color(b) + " bowl") for b in blocks if color(b) + " bowl" in pos]
    meant = task.template.meaning(task, pos)
    return [(meant, a["place"])]


def mistaken_moves(kind: str, task: T.Task, pos: T.Positions,
                   right: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    """``right`` with the mistake ``kind`` made, or None where it cannot be made here."""
    blocks = [n for n in pos if n.endswith(" block")]
    bowls = [n for n in pos if n.endswith(" bowl")]
    if kind == "left_out":
        return right[:-1] if len(right) > 1 else None
    if kind == "wrong_place":
        if not all(target in PLACES for _, target in right):
            return None
        return [(b, CONFUSED_PLACE[target]) for b, target in right]
    if kind == "wrong_block":
        meant, place = right[0]
        others = [b for b in blocks if b != meant]
        return [(others[0], place)] if others else None
    if kind == "wrong_bowl":
        block, bowl = right[-1]
        others = [w for w in bowls if w != bowl and w in pos]
        return right[:-1] + [(block, others[0])] if others else None
    if kind == "shared_bowl":
        if len(right) < 2:
            return None
        return right[:-1] + [(right[-1][0], right[0][1])]
    if kind == "wrong_target":
        block, _ = right[0]
        return [(block, bowls[0])] if bowls else None
    raise ValueError(f"unknown mistake {kind!r}")


def attempt_source(moves: list[tuple[str, str]], place_names: bool = False) -> list[str]:
    """The console inputs of an attempt, as the model writes them (``place_names``: named
    places as names, not as ``denormalize_xy`` points)."""
    out = ["get_obj_names()"]
    for block, target in moves:
        if target in NORMALIZED and not place_names:
            x, y = NORMALIZED[target]
            out.append(f"put_first_on_second({block!r}, denormalize_xy([{x}, {y}]))")
        else:
            out.append(f"put_first_on_second({block!r}, {target!r})")
    return out


def plan(template: str, seed: int, kind_index: int, factory) -> tuple[Situation, object] | None:
    """The situation of ``template`` on the scene of ``seed`` with the ``kind_index``-th
    applicable mistake, and its world (built by ``factory``, as the harness builds it);
    None if no mistake of the template applies to this scene."""
    task = T.make_task(template, "sa_si", seed)
    world = T.feasible_world(task, factory)
    pos = T.world_positions(world)
    right = solution_moves(task, pos)
    kinds = MISTAKES[template]
    for offset in range(len(kinds)):
        kind = kinds[(kind_index + offset) % len(kinds)]
        wrong = mistaken_moves(kind, task, pos, right)
        if wrong and wrong != right:
            return (Situation(f"{template}-{seed}-{kind}", template, seed, kind, task,
                              attempt_source(wrong), kind_index + 1), world)
    close = getattr(world, "close", None)
    if close:
        close()
    return None

"""A simulated user for the tabletop evaluation, following the feedback guidelines (section B).

The user judges only what it can *observe* after each round (the harness fills an
:class:`Observation`): whether the task is solved, whether the system stopped with an error,
which blocks ended up somewhere they were never told to go because of an execution problem,
and whether the scene changed so much that the instruction's initial condition is gone. It
never looks at code, and its feedback never mentions code.

Rules (one run; ``respond`` is called after every round):

* success: ask the system to learn (kind ``learn``) exactly once if it failed at least once
  in this run, the explicit solution was never given, and not every earlier failure was only
  an execution error (drops); otherwise ``None``. After the learn round: ``None``.
* failure with dropped blocks and no other problem: name the blocks and ask to repeat
  (``retry_execution``); this does not count as a failure of understanding.
* any other failure: the first two get high-level feedback (``high_level``: which object is
  meant, where it goes, what "a little" means, ... per template; never the step-by-step
  solution); the third and later ones (high-level feedback failed repeatedly), and any
  failure after which the initial condition is destroyed, get the explicit solution
  (``solution``: :func:`tasks.solution_text` with the initial positions, framed in varied
  words).
* ``None`` (run over) after ``max_rounds`` rounds of the system, when the system stopped with
  an error (the protocol's runs end with success, error or timeout; ``end_on_error=False``
  treats an error as an ordinary failure instead), or when the run cannot progress (a block
  the task needs is out of the robot's reach, :attr:`Observation.unreachable`).

Wording: every kind has several phrasings (and hints several variants per template), chosen
with a RNG seeded from ``seed`` and the task, so a run is deterministic for a seed while no
system can pattern-match a single sentence. Learn requests are phrased so that the learning
gate accepts them by an explicit rule; everything else avoids every word the gate reacts to.
"""
from __future__ import annotations

import zlib
from dataclasses import asdict, dataclass, field

import numpy as np

from . import tasks as T

KINDS = ("instruction", "high_level", "solution", "retry_execution", "learn")
# High-level feedback is given this many times before the explicit solution ("only if that
# fails multiple times ... give the solution", section B).
HIGH_LEVEL_TRIES = 2


@dataclass
class Observation:
    """What the user sees after one round of the system (filled by the harness)."""

    success: bool                           # the task's check on the current world
    error: str | None = None                # Round.error: gave up / crashed / timed out
    dropped: list[str] = field(default_factory=list)   # blocks lost by an execution problem
    initial_destroyed: bool = False         # the instruction's initial condition is gone
    round_index: int = 0                    # 0 = the round answering the instruction
    unreachable: list[str] = field(default_factory=list)  # blocks out of the robot's reach


@dataclass(frozen=True)
class Utterance:
    text: str
    kind: str                               # one of KINDS


# ---------------------------------------------------------------------------- phrasings
# Non-learn phrasings must not contain the gate's cues (remember, learn, note, mind, forget,
# lesson, recall, memori*) nor its leads (always, never, next time, from now on, in future,
# whenever, every time, each time, going forward, in general), nor '(' or '_'.

LEARN = (
    "Well done, remember that for next time.",
    "Great, learn from that for next time.",
    "That is right now. Please keep that in mind for the future.",
    "Good job, learn from your mistakes.",
    "Perfect, make a note of that for the future.",
    "Now it is correct. Memorize how you did that.",
)

RETRY = (
    "You dropped {blocks}, please try that again.",
    "{blocks} slipped out and did not end up where you wanted {it}. Try that one again.",
    "Oops, you lost {blocks} on the way. Please do that part again.",
    "{blocks} fell and {is} not where you put {it}. Please repeat that.",
    "Something went wrong while moving {blocks}: {they} got dropped. Please try again.",
)

SOLUTION = (
    "Let me be more specific. {sol}",
    "Still not right, so here is exactly what I want. {sol}",
    "OK, I will spell it out. {sol}",
    "That is not it either. Here is what to do: {sol}",
    "Let me say it plainly. {sol}",
)

SOLUTION_DESTROYED = (
    "The scene has changed since my request, so let me say it directly. {sol}",
    "The blocks have been moved around, so my original words do not fit anymore. {sol}",
    "Things have moved since I asked. To be clear: {sol}",
    "After what happened on the table, here is exactly what I want. {sol}",
)

OPENERS = ("That is not right.", "Not quite.", "No, that is not what I asked for.",
           "Hmm, that did not work out.", "That is not what I wanted.")
CLOSERS = ("", "Please try again.", "Give it another try.", "Try once more, please.")
ERROR_PREFIX = ("You stopped before the task was done.", "You gave up too early.",
                "That ended with a problem before the task was finished.")

PLACE_DESC = {
    "top left corner": "the corner where the top edge and the left edge of the table meet",
    "top right corner": "the corner where the top edge and the right edge of the table meet",
    "bottom left corner": "the corner where the bottom edge and the left edge of the table meet",
    "bottom right corner": "the corner where the bottom edge and the right edge of the table meet",
    "left side": "the middle of the left edge of the table",
    "right side": "the middle of the right edge of the table",
    "top side": "the middle of the top edge of the table",
    "bottom side": "the middle of the bottom edge of the table",
    "middle": "the centre of the table",
}
WHERE = {"top": "above", "bottom": "below", "left": "to the left of", "right": "to the right of"}
EDGE_WORD = {"top": "topmost", "bottom": "lowest", "left": "leftmost", "right": "rightmost"}
LINE_DESC = {
    "horizontal": "a straight line running from left to right, every block the same distance "
                  "from the top edge of the table",
    "vertical": "a straight line running from the top edge towards the bottom edge, every block "
                "the same distance from the left edge of the table",
    "diagonal": "a straight slanted line at about 45 degrees, like the line from one corner of "
                "the table to the opposite corner",
}

HINTS: dict[str, tuple[str, ...]] = {
    "block_on_block": (
        "The {block1} should end up stacked on top of the {block2}.",
        "I wanted the {block1} resting on the {block2}, not somewhere else on the table.",
        "Check which block you moved: the {block1} is the one that goes up, the {block2} stays "
        "where it is and carries it.",
    ),
    "block_in_bowl": (
        "The {block} should be inside the {bowl}, not next to it.",
        "Look at the colors again: it is the {block} that goes into the {bowl}.",
        "The {block} is not in the {bowl}. That block has to end up inside that very bowl.",
    ),
    "blocks_on_place": (
        "All the blocks belong on the {place}, that is {place_desc}. None of them may be left "
        "elsewhere.",
        "By the {place} I mean {place_desc}. Every block has to end up there, they can share the "
        "spot.",
        "Not all blocks are on the {place} yet. The {place} is {place_desc}, right there and not "
        "somewhere in the middle.",
    ),
    "blocks_in_bowl": (
        "All of the blocks go into the {bowl}, not just one of them.",
        "Some blocks are not in the {bowl}. Every block on the table has to end up inside it.",
        "I asked for all the blocks in the {bowl}; check that none is left outside of it.",
    ),
    "matching_bowls": (
        "Each block belongs in the bowl of its own color, for example the {ex_block} goes into "
        "the {ex_bowl}.",
        "Matching colors means a block and its bowl have the same color. Check every block.",
        "Some blocks are not in the bowl with their own color. The {ex_block} belongs in the "
        "{ex_bowl}, and so on for the other blocks.",
    ),
    "block_direction_of_bowl": (
        "Make sure you take the right block. I mean the block {where} the {bowl}, the one closest "
        "to the bowl on that side.",
        "Look at the blocks that lie {where} the {bowl} and take the nearest of those. It goes "
        "on the {place}, which is {place_desc}.",
        "Check which block you took. {Where_cap} the {bowl} means {dir_desc}; of the blocks "
        "there, I mean the one nearest to the bowl.",
    ),
    "block_distance_to_bowl": (
        "Make sure you take the right block. Compare how far each block is from the {bowl}; I mean "
        "the one {dist_word} it.",
        "I meant the block {dist_word} the {bowl}, and it goes on the {place}, which is "
        "{place_desc}.",
        "Check the block you took: measure the distance of every block to the {bowl} and take the one "
        "{dist_word} it.",
    ),
    "nth_block_from_direction": (
        "Make sure you take the right block. Count the blocks starting at the {direction} edge of "
        "the table: the {edge_word} one is the first, and I want the {nth} one.",
        "The {nth} block from the {direction} means: order the blocks by how close they are to "
        "the {direction} edge of the table and take the {nth} in that order.",
        "Check that you count from the correct side. Start from the {direction} "
        "edge, the {edge_word} block is number one, and take the {nth} block.",
    ),
    "different_corners": (
        "Every block needs a corner of its own: one block per corner, no two blocks sharing "
        "a corner.",
        "The table has four corners, top left, top right, bottom left and bottom right. Each "
        "block has to sit in a different one of them.",
        "Not every block is in its own corner. No corner may hold two blocks, and no block "
        "should stay outside the corners.",
    ),
    "mismatched_bowls": (
        "Every block has to go into a bowl whose color differs from its own, and no block "
        "should stay outside a bowl.",
        "Mismatched means the block and the bowl must not have the same color, for example "
        "the {ex_block} must not be in the {ex_bowl}.",
        "Check the colors: each block must end up in a bowl of a different color than the "
        "block itself, and all blocks must be in bowls.",
    ),
    "stack_on_place": (
        "The blocks should form one tower on the {place}: each block directly on top of the "
        "one below it, and the whole tower at {place_desc}.",
        "Build the stack right where it belongs. If you stack the blocks first and move the "
        "tower afterwards, it falls apart.",
        "A stack means every block rests on the block below it, all of them at the {place}, "
        "that is {place_desc}.",
    ),
    "block_magnitude_direction_of_bowl": (
        "The {block} should be {where} the {bowl}. {Magnitude_cap} means {mag_desc}.",
        "Check the distance: {magnitude} {direction_to} of the {bowl} means {mag_desc}, "
        "and on the correct side, {dir_desc}.",
        "The {block} is not where I wanted it. Put it {where} the {bowl}; {magnitude} means "
        "{mag_desc}.",
    ),
    "block_corner_distance_to_bowl": (
        "I meant the corner of the table {dist_word} the {bowl}. Compare how far each of the "
        "four corners is from that bowl.",
        "Check the spot. Of the four corners of the table, the {block} goes in the one {dist_word} "
        "the {bowl}, right in the corner.",
        "The {block} has to be in a corner, namely the corner {dist_word} the {bowl}, not any "
        "other corner.",
    ),
    "blocks_in_line": (
        "All blocks must lie on one {line} line, that is {line_desc}. Keep them apart, not "
        "stacked.",
        "The blocks are not lined up. A {line} line means {line_desc}, with every block on it.",
        "Spread the blocks out along a single {line} line: {line_desc}. None of them may be off "
        "the line.",
    ),
}


# ---------------------------------------------------------------------------- helpers
def _joined(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _hint_fields(task: T.Task) -> dict[str, str]:
    a = dict(task.attributes)
    f: dict[str, str] = {k: v for k, v in a.items()}
    if "place" in a:
        f["place_desc"] = PLACE_DESC.get(a["place"], f"the {a['place']} of the table")
    if "direction" in a:
        d = a["direction"]
        f["where"] = WHERE[d]
        f["Where_cap"] = _cap(WHERE[d])
        f["edge_word"] = EDGE_WORD[d]
        f["direction_to"] = "to the " + d
        f["dir_desc"] = {"top": "towards the top edge of the table",
                         "bottom": "towards the bottom edge of the table",
                         "left": "towards the left edge of the table",
                         "right": "towards the right edge of the table"}[d]
    if "distance" in a:
        f["dist_word"] = "closest to" if a["distance"] == "closest" else "farthest from"
    if "magnitude" in a:
        axis = 0 if a.get("direction") in ("left", "right") else 1
        limit = round(T.MAGNITUDE_SPLIT * float(T.RANGE_XY[axis]) * 100)
        f["Magnitude_cap"] = _cap(a["magnitude"])
        f["mag_desc"] = (f"only a short distance, at most about {limit} cm from the bowl, "
                         f"next to it and not inside it" if a["magnitude"] == "a little" else
                         f"a long way, more than {limit} cm from the bowl")
    if "line" in a:
        f["line_desc"] = LINE_DESC[a["line"]]
    blocks = task.blocks
    bowls = set(task.bowls)
    same = [b for b in blocks if f"{b.split()[0]} bowl" in bowls]
    ex = same[0] if same else (blocks[0] if blocks else "block")
    f["ex_block"] = ex
    f["ex_bowl"] = f"{ex.split()[0]} bowl"
    return f


def _stable(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


# ---------------------------------------------------------------------------- the user
class SimulatedUser:
    """One simulated user for one run of ``task``.

    ``positions``: the initial object positions (name -> xyz) for the explicit solution and
    for deciding which block the task needs; ``None`` gives the position-free solution text.
    """

    def __init__(self, task: T.Task, positions: T.Positions | None = None, seed: int = 0,
                 max_rounds: int = 6, end_on_error: bool = True):
        self.task = task
        self.positions = positions
        self.seed = int(seed)
        self.max_rounds = int(max_rounds)
        self.end_on_error = end_on_error
        self.rng = np.random.default_rng([self.seed & 0xFFFFFFFF, _stable(task.template_id),
                                          _stable(task.instruction), int(task.seed) & 0xFFFFFFFF])
        self.history: list[tuple[Observation, Utterance | None]] = []
        self.instruction: Utterance | None = None
        self.failures = 0                   # failed rounds of any kind
        self.understanding_failures = 0     # failures that were not only execution errors
        self.solution_given = False
        self.learn_requested = False
        self.done = False
        self.end_reason: str | None = None
        self._bags: dict[str, list[int]] = {}

    # -------------------------------------------------------------- wording
    def _choose(self, kind: str, options: tuple[str, ...]) -> str:
        """A phrasing of ``kind``: a seeded shuffle, used up before any phrasing repeats."""
        bag = self._bags.get(kind)
        if not bag:
            bag = [int(i) for i in self.rng.permutation(len(options))]
            self._bags[kind] = bag
        return options[bag.pop(0)]

    def first(self) -> Utterance:
        """The instruction that starts the run."""
        self.instruction = Utterance(self.task.instruction, "instruction")
        return self.instruction

    def _learn(self) -> Utterance:
        return Utterance(self._choose("learn", LEARN), "learn")

    def _retry(self, dropped: list[str]) -> Utterance:
        names = list(dict.fromkeys(str(n) for n in dropped))
        many = len(names) > 1
        text = self._choose("retry", RETRY).format(
            blocks=_joined(["the " + n for n in names]), it="them" if many else "it", they="they" if many else "it",
            **{"is": "are" if many else "is"})
        return Utterance(_cap(text), "retry_execution")

    def _solution(self, destroyed: bool) -> Utterance:
        sol = T.solution_text(self.task, self.positions)
        frame = self._choose("solution_destroyed" if destroyed else "solution",
                             SOLUTION_DESTROYED if destroyed else SOLUTION)
        self.solution_given = True
        return Utterance(frame.format(sol=sol), "solution")

    def _high_level(self, error: str | None) -> Utterance:
        hint = self._choose("hint", HINTS[self.task.template_id]).format(**_hint_fields(self.task))
        parts = [self._choose("error_prefix", ERROR_PREFIX) if error else
                 self._choose("opener", OPENERS), hint, self._choose("closer", CLOSERS)]
        return Utterance(" ".join(p for p in parts if p), "high_level")

    # -------------------------------------------------------------- progress
    def _needed_blocks(self) -> set[str]:
        """Blocks the task cannot be solved without."""
        a = self.task.attributes
        named = {v for k, v in a.items() if v.endswith(" block")}
        tid = self.task.template_id
        if named:
            return named
        pos = self.positions
        if pos is not None:
            try:
                if tid == "block_direction_of_bowl":
                    meant = T.block_in_direction(a["bowl"], a["direction"], pos)
                    return {meant} if meant else set(self.task.blocks)
                if tid == "block_distance_to_bowl":
                    return {T.block_by_distance(a["bowl"], a["distance"], pos)}
                if tid == "nth_block_from_direction":
                    meant = T.nth_block_from(a["nth"], a["direction"], pos)
                    return {meant} if meant else set(self.task.blocks)
            except KeyError:
                pass
        return set(self.task.blocks)

    def _end(self, obs: Observation, reason: str) -> None:
        self.done = True
        self.end_reason = reason
        self.history.append((obs, None))
        return None

    # -------------------------------------------------------------- the rules
    def respond(self, obs: Observation) -> Utterance | None:
        """The user's next utterance after a round, or None when the run is over."""
        if self.done:
            return self._end(obs, self.end_reason or "over")
        rounds = len(self.history) + 1      # rounds of the system seen so far, this one included
        if self.learn_requested:
            return self._end(obs, "learned")
        if obs.success:
            if (self.failures > 0 and not self.solution_given
                    and self.understanding_failures > 0):
                self.learn_requested = True
                u = self._learn()
                self.history.append((obs, u))
                return u
            return self._end(obs, "success")
        # a failure
        self.failures += 1
        if obs.error and self.end_on_error:
            return self._end(obs, "error")
        if set(obs.unreachable) & self._needed_blocks():
            return self._end(obs, "cannot progress")
        if rounds >= self.max_rounds:
            return self._end(obs, "max rounds")
        if obs.dropped and not obs.initial_destroyed and not obs.error:
            u = self._retry(obs.dropped)
        else:
            self.understanding_failures += 1
            if obs.initial_destroyed or self.understanding_failures > HIGH_LEVEL_TRIES:
                u = self._solution(obs.initial_destroyed)
            else:
                u = self._high_level(obs.error)
        self.history.append((obs, u))
        return u

    # -------------------------------------------------------------- logging
    def log(self) -> list[dict]:
        """The run's history as plain dicts (for the run log)."""
        out = []
        for obs, u in self.history:
            out.append({"observation": asdict(obs),
                        "utterance": None if u is None else {"text": u.text, "kind": u.kind}})
        return out


__all__ = ["Observation", "Utterance", "SimulatedUser", "KINDS", "HINTS", "LEARN", "RETRY",
           "SOLUTION", "SOLUTION_DESTROYED"]

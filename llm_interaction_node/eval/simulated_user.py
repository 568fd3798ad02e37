"""A simulated user for the tabletop evaluation, following the feedback guidelines (section B).

The user judges only what it can *observe* after each round (the harness fills an
:class:`Observation` with :func:`.observe.observe` and the drop checks): whether the task is
solved, whether the system stopped with an error, where every object is now, which objects
the robot moved, which of the task's goal conditions fail (:class:`.observe.Fact`), which
blocks were dropped by an execution problem, and whether the scene changed so much that the
instruction's initial condition is gone. It never looks at code, and its feedback never
mentions code.

Rules (one run; ``respond`` is called after every round):

* success: ask the system to learn (kind ``learn``) exactly once if it failed at least once
  in this run, the explicit solution was never given, and not every earlier failure was only
  an execution error (drops); otherwise ``None``. After the learn round: ``None``. The
  ``teaching`` user (``learn_after_solution``, not the paper's protocol: a user who teaches
  by telling) asks to learn after a success that followed the explicit solution too; the
  paper's user (``paper``, the default) never does, and a model that needs the solution never
  reaches learning.
* failure with dropped blocks and no other problem: name the blocks and ask to repeat
  (``retry_execution``); this does not count as a failure of understanding.
* any other failure: the first two get high-level feedback (``high_level``) that says what
  is wrong as a person at the table sees it — the block taken with respect to the
  instruction ("you picked the first block from the bottom instead of the first block from
  the top"), where something ended ("that is in the bottom right corner, not in the top right
  corner"), what is missing ("the gray block is still not in the green bowl"), what lies on
  what, too far / too close — never naming the block or corner a selection task meant; the
  second adds a hint on how the instruction is meant (:data:`HINTS`, per template; for a
  selection task only when another block was taken; also the fallback when an observation
  has no facts). The third and later ones, and any failure
  after which the initial condition is destroyed, get the explicit solution (``solution``:
  :func:`tasks.solution_text` with the initial positions, framed in varied words).
* ``None`` (run over) after ``max_rounds`` rounds of the system, when the system stopped with
  an error (the protocol's runs end with success, error or timeout; ``end_on_error=False``
  treats an error as an ordinary failure instead), or when the run cannot progress (a block
  the task needs is out of the robot's reach, :attr:`Observation.unreachable`).

Wording: every kind has several phrasings (and facts and hints several per kind / template),
chosen with a RNG seeded from ``seed`` and the task, so a run is deterministic for a seed while
no system can pattern-match a single sentence. Learn requests are the paper's kind of request
("well done, learn that for next time"); everything else avoids every word the learning gate
reacts to.
"""
from __future__ import annotations

import string
import zlib
from dataclasses import asdict, dataclass, field

import numpy as np

from . import tasks as T
from .observe import FACT_FIELDS, FACT_KINDS, SIDE_OF, Fact, Move, joined
from .phrasings import BUILT_IN, Phrasings, meant_phrase

USER_POLICIES = ("paper", "teaching")   # when the user asks to learn (see the module docstring)
KINDS = ("instruction", "high_level", "solution", "retry_execution", "learn")
# High-level feedback is given this many times before the explicit solution ("only if that
# fails multiple times ... give the solution", section B).
HIGH_LEVEL_TRIES = 2
FACTS_SAID = 2              # unmet conditions named in one answer (a person names the main ones)


@dataclass
class Observation:
    """What the user sees after one round of the system (filled by the harness)."""

    success: bool                           # the task's check on the current world
    error: str | None = None                # Round.error: gave up / crashed / timed out
    dropped: list[str] = field(default_factory=list)   # blocks lost by an execution problem
    initial_destroyed: bool = False         # the instruction's initial condition is gone
    round_index: int = 0                    # 0 = the round answering the instruction
    unreachable: list[str] = field(default_factory=list)  # blocks out of the robot's reach
    places: dict[str, str] = field(default_factory=dict)  # object -> where it is now (words)
    moved: list[Move] = field(default_factory=list)       # what the robot moved this round
    unmet: list[Fact] = field(default_factory=list)       # the task's goal conditions that fail


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

OPENERS = ("", "", "That is not right.", "Not quite.", "No, that is not what I asked for.",
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
WHERE = SIDE_OF
EDGE_WORD = {"top": "topmost", "bottom": "lowest", "left": "leftmost", "right": "rightmost"}
LINE_DESC = {
    "horizontal": "a straight line running from left to right, every block the same distance "
                  "from the top edge of the table",
    "vertical": "a straight line running from the top edge towards the bottom edge, every block "
                "the same distance from the left edge of the table",
    "diagonal": "a straight slanted line at about 45 degrees, like the line from one corner of "
                "the table to the opposite corner",
}

# What a person says about each kind of unmet goal condition (:class:`.observe.Fact`). Fields:
# {things}/{Things} the objects ("the gray block", or "the block you took" when the fact must
# not name it), {is} is/are, {it} it/them, {they} it/they, {where}, {wanted}, {detail}; a
# phrasing is used only when every field it names is known.
FACT_WORDING: dict[str, tuple[str, ...]] = {
    "nothing_moved": (
        "Nothing on the table has moved.",
        "You did not move anything.",
        "I do not see any change on the table.",
    ),
    "missing": (
        "{Things} {is} still not {wanted}.",
        "{Things} {is} still missing, {they} {is} {where}.",
        "You left {things} {where}, {they} should be {wanted}.",
        "{Things} {is} still missing.",
    ),
    "wrong_place": (
        "That is {where}, not {wanted}.",
        "{Things} ended up {where}, not {wanted}.",
        "Look, {things} {is} {where}. I wanted {it} {wanted}.",
        "{Things} went {where} instead of {wanted}.",
    ),
    "wrong_block": (
        "You picked {detail} instead of {wanted}.",
        "No, that was {detail}, and I asked for {wanted}.",
        "You took {detail}, not {wanted}.",
        "You did not take the block I meant. You took {detail}.",
        "The block you picked was {detail}.",
    ),
    "wrong_corner": (
        "{Things} {is} {where}, but that is not {wanted}.",
        "That is not {wanted}, {things} {is} {where}.",
        "{Things} went {where}, which is not {wanted}.",
    ),
    "reversed": (
        "You put {things}, it is the other way round.",
        "That is upside down, you put {things}.",
        "The other way round please, you put {things}.",
    ),
    "same_color": (
        "{Things} {is} {where}, which has the same color.",
        "{Things} sits {where}, but the colors should differ.",
        "The colors match for {things}, {they} {is} {where}.",
    ),
    "shared": (
        "{Things} are together {where}, but every block needs a corner of its own.",
        "{Things} share one corner, they are {where}.",
        "Those blocks are in the same corner, {things} are {where}.",
    ),
    "stack_fell": (
        "By stacking them first and then moving, you destroyed the stack. {Things} stayed "
        "behind {where}.",
        "The stack fell apart when you moved it, {things} {is} {where}, not {wanted}.",
        "You moved the whole stack and it broke, {things} {is} left {where}.",
    ),
    "not_stacked": (
        "{Things} {is} beside the stack, not on top of it.",
        "{Things} {is} {where}, but next to the other blocks instead of on them.",
        "The blocks are not on top of each other, {things} {is} standing by itself.",
    ),
    "overlap": (
        "{Things} {is} lying {where}, the blocks should be apart.",
        "You put {things} {where}, but every block needs its own spot on the line.",
        "{Things} {is} {where}. Keep the blocks next to each other, not on each other.",
    ),
    "off_line": (
        "{Things} {is} off the line.",
        "{Things} {is} not on the same line as the others, {they} {is} {where}.",
        "The blocks do not line up, {things} {is} out of line.",
    ),
    "wrong_line": (
        "The blocks form a {detail} line, not a {wanted} one.",
        "That line is {detail}, and I asked for a {wanted} line.",
        "The line runs the wrong way, it is {detail} and I wanted it {wanted}.",
    ),
    "wrong_side": (
        "{Things} {is} {where}, not {wanted}.",
        "Wrong side, {things} {is} {where} and I wanted {it} {wanted}.",
        "{Things} ended up {where}, {they} should be {wanted}.",
    ),
    "too_far": (
        "That is a bit too far, try half of the distance.",
        "{Things} {is} too far away, about {detail} from the bowl. Try half of the distance.",
        "Too far, {things} should be closer to the bowl, {they} {is} {detail} away.",
    ),
    "too_close": (
        "That is too close, {things} should be farther from the bowl.",
        "Not far enough, {things} {is} only about {detail} from the bowl.",
        "{Things} {is} {where}, too close. I asked for {wanted}.",
    ),
    "extra": (
        "You moved {things}, but I asked for {wanted}.",
        "That was {things}, and I meant {wanted}.",
        "{Things} {is} not the block I meant, it was {wanted}.",
    ),
}
if tuple(FACT_WORDING) != FACT_KINDS:
    raise ImportError("FACT_WORDING and observe.FACT_KINDS name different kinds of fact")
# The objects of a fact that must not name them (the block a selection task chose).
UNNAMED = "the block you took"

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
        "Check the block you took: measure the distance of every block to the {bowl} and take the "
        "one "
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


def _fields(names) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(names) if f}


def fact_fields(fact: Fact, meant: str = "") -> dict[str, str]:
    """The wording fields of a fact (see :data:`FACT_WORDING`, :data:`FACT_FIELDS`)."""
    objs = list(fact.objects)
    many = len(objs) > 1
    if fact.kind == "reversed" and len(objs) == 2:
        things = f"the {objs[0]} on the {objs[1]}"
        many = False
    else:
        things = joined(["the " + o for o in objs]) if objs else UNNAMED
    return {"things": things, "Things": _cap(things), "is": "are" if many else "is",
            "it": "them" if many else "it", "they": "they" if many else "it",
            "where": fact.where, "wanted": fact.wanted, "detail": fact.detail, "meant": meant}


def fact_options(fact: Fact, naming: bool = False,
                 wording: dict[str, tuple[str, ...]] | None = None,
                 meant: str = "") -> tuple[str, ...]:
    """The phrasings of ``fact`` whose fields are all known; ``naming``: only those that name
    its objects (a second fact in one answer must say what it is about); ``wording``: a
    pool's sentences per kind (a kind it leaves out is :data:`FACT_WORDING`'s)."""
    fields = fact_fields(fact, meant)
    pool = (wording or {}).get(fact.kind) or FACT_WORDING[fact.kind]
    out = tuple(o for o in pool if all(fields.get(f) for f in _fields(o)))
    if naming and fact.objects:
        out = tuple(o for o in out if {"things", "Things"} & _fields(o)) or out
    return out


def _fact(record: dict) -> Fact:
    """A fact from its record form (a run file's observation)."""
    return Fact(**{**record, "objects": tuple(record.get("objects", ()))})


def _stable(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


# ---------------------------------------------------------------------------- the user
class SimulatedUser:
    """One simulated user for one run of ``task``.

    ``positions``: the initial object positions (name -> xyz) for the explicit solution and
    for deciding which block the task needs; ``None`` gives the position-free solution text.
    """

    def __init__(self, task: T.Task, positions: T.Positions | None = None, seed: int = 0,
                 max_rounds: int = 6, end_on_error: bool = True,
                 learn_after_solution: bool = False, phrasings: Phrasings = BUILT_IN,
                 run: int = 1):
        self.task = task
        self.phrasings = phrasings
        self.run = run
        self.positions = positions
        self.seed = int(seed)
        self.max_rounds = int(max_rounds)
        self.end_on_error = end_on_error
        self.learn_after_solution = learn_after_solution
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
        self._bags: dict[tuple, list[int]] = {}   # (kind, options) -> phrasings left

    # -------------------------------------------------------------- wording
    def _choose(self, kind: str, options: tuple[str, ...]) -> str:
        """A phrasing of ``kind``: a seeded shuffle, used up before any phrasing repeats.
        One bag per option tuple: a fact's phrasings differ with what is known of it and
        whether it must name its objects, and a shuffle of one tuple indexes only that one."""
        key = (kind, options)
        bag = self._bags.get(key)
        if not bag:
            bag = [int(i) for i in self.rng.permutation(len(options))]
            self._bags[key] = bag
        return options[bag.pop(0)]

    def first(self) -> Utterance:
        """The instruction that starts the run."""
        self.instruction = Utterance(self.phrasings.instruction(self.task, self.run),
                                     "instruction")
        return self.instruction

    def _learn(self) -> Utterance:
        return Utterance(self._choose("learn", self.phrasings.learn or LEARN), "learn")

    def _retry(self, dropped: list[str]) -> Utterance:
        names = list(dict.fromkeys(str(n) for n in dropped))
        many = len(names) > 1
        text = self._choose("retry", RETRY).format(
            blocks=joined(["the " + n for n in names]),
            it="them" if many else "it",
            they="they" if many else "it",
            **{"is": "are" if many else "is"},
        )
        return Utterance(_cap(text), "retry_execution")

    def _solution(self, destroyed: bool) -> Utterance:
        sol = T.solution_text(self.task, self.positions)
        frame = self._choose("solution_destroyed" if destroyed else "solution",
                             SOLUTION_DESTROYED if destroyed else SOLUTION)
        self.solution_given = True
        return Utterance(frame.format(sol=sol), "solution")

    def _high_level(self, obs: Observation) -> Utterance:
        """What is wrong, as seen (at most :data:`FACTS_SAID` facts); from the second
        high-level answer on, or when nothing is seen, a hint on how the instruction is meant."""
        facts = [f if isinstance(f, Fact) else _fact(f) for f in obs.unmet]
        said = [self._say(f, naming=i > 0) for i, f in enumerate(facts[:FACTS_SAID])]
        said = [t for t in said if t]
        # a selection task's hints are about which block is meant: not when it was the right one
        about_block = not self.task.template.selection or any(
            f.kind == "wrong_block" for f in facts
        )
        if not said or (self.understanding_failures > 1 and about_block):
            said.append(self._choose("hint", HINTS[self.task.template_id])
                        .format(**_hint_fields(self.task)))
        parts = [self._choose("error_prefix", ERROR_PREFIX) if obs.error else
                 self._choose("opener", self.phrasings.openers or OPENERS), *said,
                 self._choose("closer", self.phrasings.closers or CLOSERS)]
        return Utterance(" ".join(p for p in parts if p), "high_level")

    def _say(self, fact: Fact, naming: bool = False) -> str:
        meant = meant_phrase(self.task)
        options = fact_options(fact, naming, self.phrasings.feedback, meant)
        if not options:
            return ""
        return _cap(self._choose("fact:" + fact.kind, options).format(**fact_fields(fact, meant)))

    # -------------------------------------------------------------- progress
    def _needed_blocks(self) -> set[str]:
        """Blocks the task cannot be solved without."""
        return T.needed_blocks(self.task, self.positions)

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
            if (self.failures > 0 and self.understanding_failures > 0
                    and (self.learn_after_solution or not self.solution_given)):
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
                u = self._high_level(obs)
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


__all__ = [
    "USER_POLICIES",
    "Observation",
    "Utterance",
    "SimulatedUser",
    "KINDS",
    "HINTS",
    "FACT_WORDING",
    "FACT_FIELDS",
    "LEARN",
    "RETRY",
    "SOLUTION",
    "SOLUTION_DESTROYED",
]

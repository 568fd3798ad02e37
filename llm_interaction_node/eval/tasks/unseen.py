"""Five of the 6 unseen templates (split ``ua_ui``), one class each; the line is in
:mod:`.line`."""
from __future__ import annotations

import numpy as np

from ..observe import (
    BOWL_TOL,
    CORNERS,
    DIRECTIONS,
    PLACES,
    RANGE_XY,
    SIDE_OF,
    Fact,
    at_place,
    blocks_of,
    bowls_of,
    color,
    hdist,
    in_bowl,
    joined,
    moved_objects,
    on_block,
    place_phrase,
    side_of,
    where,
    xy,
    z,
)
from .base import AllBlocksToPlace, Template
from .mismatch import misplaced, named_block_mismatch
from .programs import BLOCK_LIST, place_expr, vec
from .relations import (
    MAGNITUDE_SPLIT,
    clear_winner,
    corner_by_distance,
    in_bounds,
    place_clear,
    rank,
)
from .scenes import sample_block, sample_bowl, sample_one, sample_scene

MAGNITUDE_OFFSET = {"a little": 0.10, "a lot": 0.25}   # the scripted solution's distances
REFERENCE_MOVED = 0.03      # m: a reference bowl moved this far changes what "next to it" means
STACK_LEFT_BEHIND = 0.08    # m: a block this close to where a moved block stood stayed behind


# ---------------------------------------------------------------------------- 9 different corners
class DifferentCorners(Template):
    id, seen = "different_corners", False
    pattern = "put all the blocks in different corners"

    def _corner(self, p) -> str | None:
        return next((c for c in CORNERS if at_place(p, PLACES[c])), None)

    def feasible(self, task, pos):
        return len(blocks_of(pos)) <= len(CORNERS) and all(
            place_clear(PLACES[c], pos, moving=tuple(blocks_of(pos))) for c in CORNERS)

    def check(self, initial, final, task):
        used = [self._corner(final[b]) for b in blocks_of(final)]
        return None not in used and len(set(used)) == len(used)

    def program(self, task):
        corners = ", ".join(place_expr(c) for c in CORNERS)
        return (
            f"corners = [{corners}]\n"
            + BLOCK_LIST
            + "for block, corner in zip(blocks, corners):\n    put_first_on_second(block, corner)\n"
        )

    def text(self, task, pos=None):
        places = [f"the {b} in the {c}" for b, c in zip(task.blocks, CORNERS, strict=False)]
        return f"Put {joined(places)}."

    def mistake(self, task):          # the first two blocks share the second corner
        return self.program(task).replace(
            "for block, corner in zip(blocks, corners):",
            "corners[0] = corners[1]\nfor block, corner in list(zip(blocks, corners))[::-1]:") \
            if len(task.blocks) > 1 else None

    def mismatch(self, task, initial, final, start=None):
        by_corner: dict[str | None, list[str]] = {}
        for b in blocks_of(final):
            by_corner.setdefault(self._corner(final[b]), []).append(b)
        facts = misplaced(by_corner.pop(None, []), initial, final, "in a corner of its own",
                          by_place=True)
        facts += [Fact("shared", tuple(bs), place_phrase(c)) for c, bs in by_corner.items()
                  if len(bs) > 1]
        return facts


# ---------------------------------------------------------------------------- 10 mismatched colours
class MismatchedBowls(Template):
    id, seen = "mismatched_bowls", False
    pattern = "put the blocks in the bowls with mismatched colors"
    min_bowls = 2

    def scene(self, a, split, rng):
        return sample_scene(split, rng, same_colors=True, min_bowls=self.min_bowls)

    def check(self, initial, final, task):
        blocks, bowls = blocks_of(final), bowls_of(final)
        if not blocks or not bowls:
            return False
        for b in blocks:
            inside = [w for w in bowls if in_bowl(final[b], final[w])]
            if not inside or color(min(inside, key=lambda w: hdist(final[b], final[w]))) == color(
                b
            ):
                return False
        return True

    def pairs(self, task) -> list[tuple[str, str]]:
        """What the scripted program does: block i (by name) into the i-th other-coloured bowl."""
        bowls = sorted(task.bowls)
        out = []
        for i, b in enumerate(sorted(task.blocks)):
            others = [w for w in bowls if color(w) != color(b)]
            out.append((b, others[i % len(others)]))
        return out

    def program(self, task):
        return ("blocks = sorted(name for name in get_obj_names() if name.endswith(' block'))\n"
                "bowls = sorted(name for name in get_obj_names() if name.endswith(' bowl'))\n"
                "for i, block in enumerate(blocks):\n"
                "    others = [bowl for bowl in bowls if bowl.split()[0] != block.split()[0]]\n"
                "    put_first_on_second(block, others[i % len(others)])\n")

    def text(self, task, pos=None):
        return "Put " + joined([f"the {b} in the {w}" for b, w in self.pairs(task)]) + "."

    def mistake(self, task):          # the first block into the bowl of its own colour
        return ("blocks = sorted(name for name in get_obj_names() if name.endswith(' block'))\n"
                "put_first_on_second(blocks[0], blocks[0].split()[0] + ' bowl')\n")

    def mismatch(self, task, initial, final, start=None):
        facts = []
        for b in blocks_of(final):
            inside = [w for w in bowls_of(final) if in_bowl(final[b], final[w])]
            if not inside:
                facts += misplaced([b], initial, final, "in a bowl of another color")
            elif color(min(inside, key=lambda w: hdist(final[b], final[w]))) == color(b):
                facts.append(Fact("same_color", (b,), where(b, final)))
        return facts


# ---------------------------------------------------------------------------- 11 stack on place
class StackOnPlace(AllBlocksToPlace):
    id, seen = "stack_on_place", False
    pattern = "stack all the blocks on the {place}"

    def check(self, initial, final, task):
        target = PLACES[task.attributes["place"]]
        blocks = sorted(blocks_of(final), key=lambda b: z(final[b]))
        if not blocks or not all(at_place(final[b], target) for b in blocks):
            return False
        return all(
            on_block(final[up], final[lo]) for lo, up in zip(blocks, blocks[1:], strict=False)
        )

    def program(self, task):
        return (
            BLOCK_LIST + f"put_first_on_second(blocks[0], {place_expr(task.attributes['place'])})\n"
            "for lower, upper in zip(blocks, blocks[1:]):\n    put_first_on_second(upper, lower)\n"
        )

    def text(self, task, pos=None):
        b = task.blocks
        steps = [f"put the {b[0]} on the {task.attributes['place']}"]
        steps += [f"the {up} on top of the {lo}" for lo, up in zip(b, b[1:], strict=False)]
        text = joined(steps)
        return text[0].upper() + text[1:] + "."

    def mistake(self, task):          # side by side at the place instead of on each other
        x, _ = PLACES[task.attributes["place"]]
        step = -0.07 if x > 0 else 0.07
        return (f"target = {place_expr(task.attributes['place'])}\n" + BLOCK_LIST
                + "for i, block in enumerate(blocks):\n"
                f"    put_first_on_second(block, target + np.array([{step} * i, 0.0]))\n") \
            if len(task.blocks) > 1 else None

    def mismatch(self, task, initial, final, start=None):
        place = task.attributes["place"]
        target = PLACES[place]
        moved = set(moved_objects(initial, final))
        there = [b for b in blocks_of(final) if at_place(final[b], target)]
        left = [b for b in blocks_of(final) if b not in there]
        carried = [m for m in there if m in moved]
        behind = {b: next((m for m in carried if hdist(final[b], initial[m]) < STACK_LEFT_BEHIND),
                          None) for b in left if b in moved}
        fell = [b for b, m in behind.items() if m is not None]
        facts = [Fact("stack_fell", (b,), where(behind[b], initial), place_phrase(place))
                 for b in fell]           # where the stack stood before it was carried off
        facts += misplaced([b for b in left if b not in fell], initial, final, place_phrase(place),
                           by_place=True)
        ground = sorted((b for b in there if not any(on_block(final[b], final[o])
                                                     for o in there if o != b)),
                        key=lambda b: z(final[b]))
        facts += [Fact("not_stacked", (b,), where(b, final)) for b in ground[1:]]
        return facts


# ---------------------------------------------------------------------------- 12 magnitude
class BlockMagnitudeDirectionOfBowl(Template):
    id, seen = "block_magnitude_direction_of_bowl", False
    pattern = "pick up the {block} and place it {magnitude} to the {direction} of the {bowl}"

    def sample(self, split, rng):
        return {
            "block": sample_block(split, rng),
            "magnitude": sample_one(split, rng, "magnitudes"),
            "direction": sample_one(split, rng, "directions"),
            "bowl": sample_bowl(split, rng),
        }

    def target(self, task, pos) -> np.ndarray:
        a = task.attributes
        return xy(pos[a["bowl"]]) + MAGNITUDE_OFFSET[a["magnitude"]] * np.array(
            DIRECTIONS[a["direction"]]
        )

    def feasible(self, task, pos):
        t = self.target(task, pos)
        a = task.attributes      # the reference bowl is 10 / 25 cm away by construction
        return in_bounds(t) and place_clear(t, pos, moving=(a["block"], a["bowl"]))

    def meaning(self, task, pos):
        return tuple(np.round(xy(pos[task.attributes["bowl"]]) / REFERENCE_MOVED).astype(int))

    def _along(self, task, final) -> tuple[float, float, float]:
        """(distance along the direction, distance, the 'a little' / 'a lot' split)."""
        a = task.attributes
        u = np.array(DIRECTIONS[a["direction"]])
        d = xy(final[a["block"]]) - xy(final[a["bowl"]])
        limit = MAGNITUDE_SPLIT * float(RANGE_XY[0 if u[0] else 1])
        return float(d @ u), float(np.linalg.norm(d)), limit

    def check(self, initial, final, task):
        along, dist, limit = self._along(task, final)
        if along <= 0 or dist < BOWL_TOL:       # wrong side, or inside the bowl
            return False
        return along <= limit if task.attributes["magnitude"] == "a little" else along > limit

    def program(self, task):
        a = task.attributes
        off = MAGNITUDE_OFFSET[a["magnitude"]]
        return (f"target = get_obj_pos('{a['bowl']}') + {off} * {vec(a['direction'])}\n"
                f"put_first_on_second('{a['block']}', target)\n")

    def text(self, task, pos=None):
        a = task.attributes
        cm = round(MAGNITUDE_OFFSET[a["magnitude"]] * 100)
        return (f"Put the {a['block']} on the table about {cm} cm {SIDE_OF[a['direction']]} the "
                f"{a['bowl']}.")

    def mistake(self, task):          # 'a little' taken for 'a lot' and the other way round
        a = task.attributes
        other = "a lot" if a["magnitude"] == "a little" else "a little"
        return self.program(task).replace(f"{MAGNITUDE_OFFSET[a['magnitude']]} *",
                                          f"{MAGNITUDE_OFFSET[other]} *")

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        block, bowl = a["block"], a["bowl"]
        wanted = f"{a['magnitude']} {SIDE_OF[a['direction']]} the {bowl}"
        if block not in moved_objects(initial, final) or in_bowl(final[block], final[bowl]) \
                or on_block(final[block], final[bowl]):
            return named_block_mismatch(block, initial, final, wanted)
        along, dist, limit = self._along(task, final)
        cm = f"{round(dist * 100)} cm"
        if along <= 0 or dist < BOWL_TOL:
            if dist < BOWL_TOL:
                return [Fact("too_close", (block,), where(block, final), wanted, cm)]
            side = side_of(final[block], final[bowl])
            return [Fact("wrong_side", (block,), f"{SIDE_OF[side]} the {bowl}",
                         f"{SIDE_OF[a['direction']]} it")]
        if a["magnitude"] == "a little":
            return [Fact("too_far", (block,), where(block, final), wanted, cm)]
        return [Fact("too_close", (block,), where(block, final), wanted, cm)]

    def needed(self, task, pos):
        return {task.attributes["block"]}


# ---------------------------------------------------------------------------- 13 corner by distance
class BlockCornerDistanceToBowl(Template):
    id, seen, selection = "block_corner_distance_to_bowl", False, True
    pattern = "pick up the {block} and place it in the corner {distance} to the {bowl}"

    def sample(self, split, rng):
        return {"block": sample_block(split, rng), "distance": sample_one(split, rng, "distances"),
                "bowl": sample_bowl(split, rng)}

    def feasible(self, task, pos):
        a = task.attributes
        ranked = rank({c: hdist(PLACES[c], pos[a["bowl"]]) for c in CORNERS})
        i = 0 if a["distance"] == "closest" else -1
        return clear_winner(ranked, i) and place_clear(
            PLACES[ranked[i][0]], pos, moving=(a["block"],)
        )

    def meaning(self, task, pos):
        a = task.attributes
        return corner_by_distance(a["bowl"], a["distance"], pos[a["bowl"]])

    def check(self, initial, final, task):
        return at_place(final[task.attributes["block"]], PLACES[self.meaning(task, initial)])

    def program(self, task):
        a = task.attributes
        corners = ", ".join(place_expr(c) for c in CORNERS)
        fn = "min" if a["distance"] == "closest" else "max"
        return (f"bowl_pos = get_obj_pos('{a['bowl']}')\n"
                f"corners = [{corners}]\n"
                f"corner = {fn}(corners, key=lambda c: np.linalg.norm(c - bowl_pos))\n"
                f"put_first_on_second('{a['block']}', corner)\n")

    def _word(self, task):
        return "nearest to" if task.attributes["distance"] == "closest" else "farthest from"

    def text(self, task, pos=None):
        a = task.attributes
        if pos is not None:
            return (f"The corner {self._word(task)} the {a['bowl']} is the "
                    f"{self.meaning(task, pos)}. Put the {a['block']} there.")
        return (
            f"Put the {a['block']} in the corner of the table {self._word(task)} the {a['bowl']}."
        )

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        block = a["block"]
        wanted = f"the corner {self._word(task)} the {a['bowl']}"
        if block in moved_objects(initial, final):
            corner = next((c for c in CORNERS if at_place(final[block], PLACES[c])), None)
            if corner is not None:       # the meant corner is never named
                return [Fact("wrong_corner", (block,), place_phrase(corner), wanted)]
        return named_block_mismatch(block, initial, final, "in " + wanted)

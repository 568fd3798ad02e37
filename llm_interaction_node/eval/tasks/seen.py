"""The 8 seen templates (splits ``sa_si`` and ``ua_si``), one class each."""
from __future__ import annotations

import numpy as np

from ..observe import (
    DIRECTIONS,
    OPPOSITE,
    PLACES,
    SIDE_OF,
    Fact,
    at_place,
    blocks_of,
    color,
    hdist,
    in_bowl,
    joined,
    on_block,
    ordinal,
    place_phrase,
    side_of,
    xy,
)
from .base import AllBlocksToPlace, Template
from .mismatch import misplaced, named_block_mismatch, selected_mismatch
from .mistakes import flip_literals
from .programs import BLOCK_LIST, place_expr, the_names, vec
from .relations import (
    NTH,
    block_by_distance,
    block_in_direction,
    by_distance,
    clear_winner,
    nth_block_from,
    order_from,
    place_clear,
    rank,
)
from .scenes import pick, sample_block, sample_bowl, sample_one, sample_scene, split_colors


# ---------------------------------------------------------------------------- 1 block on block
class BlockOnBlock(Template):
    id, seen = "block_on_block", True
    pattern = "pick up the {block1} and place it on the {block2}"
    min_blocks = 2

    def sample(self, split, rng):
        c1, c2 = pick(rng, split_colors(split), 2)
        return {"block1": f"{c1} block", "block2": f"{c2} block"}

    def check(self, initial, final, task):
        a = task.attributes
        return on_block(final[a["block1"]], final[a["block2"]])

    def program(self, task):
        a = task.attributes
        return f"put_first_on_second('{a['block1']}', '{a['block2']}')\n"

    def text(self, task, pos=None):
        a = task.attributes
        return f"Put the {a['block1']} on top of the {a['block2']}."

    def mistake(self, task):          # onto another block, or into a bowl
        a = task.attributes
        other = [n for n in task.blocks + task.bowls if n not in (a["block1"], a["block2"])]
        return f"put_first_on_second('{a['block1']}', '{other[0]}')\n" if other else None

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        if on_block(final[a["block2"]], final[a["block1"]]):
            return [Fact("reversed", (a["block2"], a["block1"]))]
        return named_block_mismatch(a["block1"], initial, final, f"on the {a['block2']}")


# ---------------------------------------------------------------------------- 2 block in bowl
class BlockInBowl(Template):
    id, seen = "block_in_bowl", True
    pattern = "pick up the {block} and place it on the {bowl}"

    def sample(self, split, rng):
        return {"block": sample_block(split, rng), "bowl": sample_bowl(split, rng)}

    def check(self, initial, final, task):
        a = task.attributes
        return in_bowl(final[a["block"]], final[a["bowl"]])

    def program(self, task):
        a = task.attributes
        return f"put_first_on_second('{a['block']}', '{a['bowl']}')\n"

    def text(self, task, pos=None):
        a = task.attributes
        return f"Put the {a['block']} in the {a['bowl']}."

    def mistake(self, task):
        a = task.attributes
        other = [w for w in task.bowls if w != a["bowl"]]
        return f"put_first_on_second('{a['block']}', '{other[0]}')\n" if other else None

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        return named_block_mismatch(a["block"], initial, final, f"in the {a['bowl']}")


# ---------------------------------------------------------------------------- 3 blocks on place
class BlocksOnPlace(AllBlocksToPlace):
    id, seen = "blocks_on_place", True
    pattern = "put all the blocks on the {place}"

    def check(self, initial, final, task):
        target = PLACES[task.attributes["place"]]
        return all(at_place(final[b], target) for b in blocks_of(final))

    def program(self, task):
        return (f"target = {place_expr(task.attributes['place'])}\n" + BLOCK_LIST
                + "for block in blocks:\n    put_first_on_second(block, target)\n")

    def text(self, task, pos=None):
        return (f"Put the blocks on the {task.attributes['place']} one after another: "
                f"{the_names(task.blocks)}.")

    def mistake(self, task):          # the mirrored place, the last block first
        return flip_literals(self.program(task)).replace("for block in blocks:",
                                                         "for block in blocks[::-1]:")

    def mismatch(self, task, initial, final, start=None):
        place = task.attributes["place"]
        left = [b for b in blocks_of(final) if not at_place(final[b], PLACES[place])]
        return misplaced(left, initial, final, place_phrase(place), by_place=True)


# ---------------------------------------------------------------------------- 4 blocks in bowl
class BlocksInBowl(Template):
    id, seen = "blocks_in_bowl", True
    pattern = "put the blocks in the {bowl}"

    def sample(self, split, rng):
        return {"bowl": sample_bowl(split, rng)}

    def check(self, initial, final, task):
        bowl = final[task.attributes["bowl"]]
        return all(in_bowl(final[b], bowl) for b in blocks_of(final))

    def program(self, task):
        return (BLOCK_LIST + "for block in blocks:\n"
                f"    put_first_on_second(block, '{task.attributes['bowl']}')\n")

    def text(self, task, pos=None):
        return f"Put {the_names(task.blocks)} in the {task.attributes['bowl']}, one after another."

    def mistake(self, task):          # one block is forgotten
        return self.program(task).replace("for block in blocks:", "for block in blocks[:-1]:") \
            if len(task.blocks) > 1 else None

    def mismatch(self, task, initial, final, start=None):
        bowl = task.attributes["bowl"]
        left = [b for b in blocks_of(final) if not in_bowl(final[b], final[bowl])]
        return misplaced(left, initial, final, f"in the {bowl}")


# ---------------------------------------------------------------------------- 5 matching colours
class MatchingBowls(Template):
    id, seen = "matching_bowls", True
    pattern = "put all the blocks in the bowls with matching colors"

    def scene(self, a, split, rng):
        return sample_scene(split, rng, same_colors=True)

    def check(self, initial, final, task):
        ok = [in_bowl(final[b], final[color(b) + " bowl"]) for b in blocks_of(final)
              if color(b) + " bowl" in final]
        return bool(ok) and all(ok)

    def program(self, task):
        return (BLOCK_LIST + "for block in blocks:\n"
                "    bowl = block.split()[0] + ' bowl'\n"
                "    if bowl in get_obj_names():\n"
                "        put_first_on_second(block, bowl)\n")

    def text(self, task, pos=None):
        pairs = [f"the {b} in the {color(b)} bowl" for b in task.blocks
                 if f"{color(b)} bowl" in task.objects]
        return f"Put {joined(pairs)}."

    def mistake(self, task):          # one block is forgotten
        return self.program(task).replace("for block in blocks:", "for block in blocks[:-1]:") \
            if len(task.blocks) > 1 else None

    def mismatch(self, task, initial, final, start=None):
        facts = []
        for b in blocks_of(final):
            bowl = color(b) + " bowl"
            if bowl in final and not in_bowl(final[b], final[bowl]):
                facts += misplaced([b], initial, final, f"in the {bowl}")
        return facts


# ---------------------------------------------------------------------------- 6 direction of bowl
class BlockDirectionOfBowl(Template):
    id, seen, selection = "block_direction_of_bowl", True, True
    pattern = "pick up the block to the {direction} of the {bowl} and place it on the {place}"

    def sample(self, split, rng):
        return {"direction": sample_one(split, rng, "directions"), "bowl": sample_bowl(split, rng),
                "place": sample_one(split, rng, "places")}

    def feasible(self, task, pos):
        a = task.attributes
        b = xy(pos[a["bowl"]])
        u = np.array(DIRECTIONS[a["direction"]])
        perp = np.array([-u[1], u[0]])
        half = {n: hdist(pos[n], b) for n in blocks_of(pos) if float((xy(pos[n]) - b) @ u) > 0}
        if not half:
            return False
        ranked = rank(half)
        meant = ranked[0][0]
        d = xy(pos[meant]) - b
        in_cone = float(d @ u) > abs(float(d @ perp))       # unambiguous: clearly in that direction
        return (in_cone and clear_winner(ranked, 0)
                and place_clear(PLACES[a["place"]], pos, moving=(meant,)))

    def meaning(self, task, pos):
        a = task.attributes
        return block_in_direction(a["bowl"], a["direction"], pos)

    def check(self, initial, final, task):
        meant = self.meaning(task, initial)
        return meant is not None and at_place(final[meant], PLACES[task.attributes["place"]])

    def program(self, task):
        a = task.attributes
        return (
            f"bowl_pos = get_obj_pos('{a['bowl']}')\n"
            + BLOCK_LIST
            + f"candidates = [b for b in blocks if (get_obj_pos(b) - bowl_pos) @ "
              f"{vec(a['direction'])} > 0]\n"
            "block = min(candidates, key=lambda b: np.linalg.norm(get_obj_pos(b) - bowl_pos))\n"
            f"put_first_on_second(block, {place_expr(a['place'])})\n"
        )

    def text(self, task, pos=None):
        a = task.attributes
        side = SIDE_OF[a["direction"]]
        if pos is not None:
            meant = self.meaning(task, pos)
            return (f"I mean the {meant}, the block nearest to the {a['bowl']} among the blocks "
                    f"{side} it. Put the {meant} on the {a['place']}.")
        return (f"Look at the blocks {side} the {a['bowl']}, take the one nearest to the bowl and "
                f"put it on the {a['place']}.")

    def needed(self, task, pos):
        meant = self.meaning(task, pos) if pos is not None else None
        return {meant} if meant else set(task.blocks)

    def mistake(self, task):          # the other side of the bowl
        return flip_literals(self.program(task), extremes=False).replace(
            "min(candidates,", "min(candidates or blocks,")

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        bowl, direction = a["bowl"], a["direction"]

        def describe(b):
            s = side_of(initial[b], initial[bowl])
            if float((xy(initial[b]) - xy(initial[bowl])) @ np.array(DIRECTIONS[direction])) > 0:
                return (f"a block {SIDE_OF[direction]} the {bowl}, but not the one nearest to "
                        f"the bowl on that side", "")
            return f"a block {SIDE_OF[s]} the {bowl}", f"the block {SIDE_OF[direction]} it"

        return selected_mismatch(
            self.meaning(task, initial), describe, a["place"], initial, final, start
        )


# ---------------------------------------------------------------------------- 7 distance to bowl
class BlockDistanceToBowl(Template):
    id, seen, selection = "block_distance_to_bowl", True, True
    pattern = "pick up the block {distance} to the {bowl} and place it on the {place}"

    def sample(self, split, rng):
        return {"distance": sample_one(split, rng, "distances"), "bowl": sample_bowl(split, rng),
                "place": sample_one(split, rng, "places")}

    def feasible(self, task, pos):
        a = task.attributes
        ranked = rank({n: hdist(pos[n], pos[a["bowl"]]) for n in blocks_of(pos)})
        i = 0 if a["distance"] == "closest" else -1
        return (clear_winner(ranked, i)
                and place_clear(PLACES[a["place"]], pos, moving=(ranked[i][0],)))

    def meaning(self, task, pos):
        a = task.attributes
        return block_by_distance(a["bowl"], a["distance"], pos)

    def check(self, initial, final, task):
        return at_place(final[self.meaning(task, initial)], PLACES[task.attributes["place"]])

    def program(self, task):
        a = task.attributes
        fn = "min" if a["distance"] == "closest" else "max"
        return (f"bowl_pos = get_obj_pos('{a['bowl']}')\n" + BLOCK_LIST
                + f"block = {fn}(blocks, key=lambda b: np.linalg.norm(get_obj_pos(b) - bowl_pos))\n"
                f"put_first_on_second(block, {place_expr(a['place'])})\n")

    def _word(self, task):
        return "nearest to" if task.attributes["distance"] == "closest" else "farthest from"

    def text(self, task, pos=None):
        a = task.attributes
        if pos is not None:
            meant = self.meaning(task, pos)
            return (f"I mean the {meant}, the block {self._word(task)} the {a['bowl']}. "
                    f"Put the {meant} on the {a['place']}.")
        return f"Take the block {self._word(task)} the {a['bowl']} and put it on the {a['place']}."

    def needed(self, task, pos):
        return {self.meaning(task, pos)} if pos is not None else set(task.blocks)

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        bowl, closest = a["bowl"], a["distance"] == "closest"
        order = by_distance(bowl, initial)

        def describe(b):
            near, far = order.index(b), len(order) - 1 - order.index(b)
            if closest:
                what = (f"the block farthest from the {bowl}" if far == 0 else
                        f"the {ordinal(near)} closest block to the {bowl}")
            else:
                what = (f"the block closest to the {bowl}" if near == 0 else
                        f"the {ordinal(far)} farthest block from the {bowl}")
            return what, f"the block {self._word(task)} it"

        return selected_mismatch(
            self.meaning(task, initial), describe, a["place"], initial, final, start
        )


# ---------------------------------------------------------------------------- 8 nth from direction
class NthBlockFromDirection(Template):
    id, seen, selection = "nth_block_from_direction", True, True
    pattern = "pick up the {nth} block from the {direction} and place it on the {place}"

    def sample(self, split, rng):
        return {
            "nth": sample_one(split, rng, "nths"),
            "direction": sample_one(split, rng, "directions"),
            "place": sample_one(split, rng, "places"),
        }

    def scene(self, a, split, rng):
        return sample_scene(split, rng, min_blocks=NTH[a["nth"]] + 1)

    def feasible(self, task, pos):
        a = task.attributes
        u = np.array(DIRECTIONS[a["direction"]])
        ranked = rank({n: -float(xy(pos[n]) @ u) for n in blocks_of(pos)})
        k = NTH[a["nth"]]
        return (k < len(ranked) and clear_winner(ranked, k)
                and place_clear(PLACES[a["place"]], pos, moving=(ranked[k][0],)))

    def meaning(self, task, pos):
        a = task.attributes
        return nth_block_from(a["nth"], a["direction"], pos)

    def check(self, initial, final, task):
        meant = self.meaning(task, initial)
        return meant is not None and at_place(final[meant], PLACES[task.attributes["place"]])

    def program(self, task):
        a = task.attributes
        return (
            BLOCK_LIST
            + f"blocks = sorted(blocks, key=lambda b: -(get_obj_pos(b) @ {vec(a['direction'])}))\n"
            f"put_first_on_second(blocks[{NTH[a['nth']]}], {place_expr(a['place'])})\n"
        )

    def text(self, task, pos=None):
        a = task.attributes
        if pos is not None:
            meant = self.meaning(task, pos)
            return (
                f"Counting from the {a['direction']} edge of the table, the {a['nth']} block is "
                f"the {meant}. Put the {meant} on the {a['place']}."
            )
        return (
            f"Order the blocks by how close they are to the {a['direction']} edge of the table, "
            f"take the {a['nth']} one and put it on the {a['place']}."
        )

    def needed(self, task, pos):
        meant = self.meaning(task, pos) if pos is not None else None
        return {meant} if meant else set(task.blocks)

    def mismatch(self, task, initial, final, start=None):
        a = task.attributes
        direction, k = a["direction"], NTH[a["nth"]]
        order = order_from(direction, initial)

        def describe(b):
            i = order.index(b)
            if len(order) - 1 - i == k:             # counted from the other side
                what = f"the {ordinal(k)} block from the {OPPOSITE[direction]}"
            else:
                what = f"the {ordinal(i)} block from the {direction}"
            return what, f"the {a['nth']} block from the {direction}"

        return selected_mismatch(
            self.meaning(task, initial), describe, a["place"], initial, final, start
        )

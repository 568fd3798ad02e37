"""A task's scene: the attribute sets a split samples from, the object names of a scene (1-4
blocks, 1-4 bowls) and the positions of a world's objects."""
from __future__ import annotations

import numpy as np

from ..observe import color

SPLITS = ("sa_si", "ua_si", "ua_ui")

SEEN_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "colors": ("blue", "red", "green", "orange", "yellow"),
    "places": ("left side", "top left corner", "top side", "top right corner"),
    "directions": ("top", "left"),
    "distances": ("closest",),
    "magnitudes": ("a little",),
    "nths": ("first", "second"),
    "lines": ("horizontal", "vertical"),
}
UNSEEN_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "colors": ("pink", "cyan", "brown", "gray", "purple"),
    "places": ("bottom right corner", "bottom side", "bottom left corner"),
    "directions": ("bottom", "right"),
    "distances": ("farthest",),
    "magnitudes": ("a lot",),
    "nths": ("third", "fourth"),
    "lines": ("diagonal",),
}

SCENE_BLOCKS = (1, 4)       # blocks in a scene (reference: 1-4)
SCENE_BOWLS = (1, 4)        # bowls in a scene (reference: 1-4)
MAX_OBJECTS = 7             # blocks + bowls: the CaP spawn rule (15 cm apart in a 40 x 40 cm
                            # area) fails for 8 objects more often than not


def attributes_for(split: str) -> dict[str, tuple[str, ...]]:
    """The attribute sets a split samples from (seen for sa_si, unseen otherwise)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; use one of {SPLITS}")
    return SEEN_ATTRIBUTES if split == "sa_si" else UNSEEN_ATTRIBUTES


def split_colors(split: str) -> list[str]:
    return list(attributes_for(split)["colors"])


def pick(rng: np.random.Generator, values, k: int = 1) -> list:
    idx = rng.choice(len(values), size=k, replace=False)
    return [values[i] for i in idx]


def sample_one(split, rng, key) -> str:
    return str(pick(rng, list(attributes_for(split)[key]))[0])


def sample_block(split, rng) -> str:
    return f"{pick(rng, split_colors(split))[0]} block"


def sample_bowl(split, rng) -> str:
    return f"{pick(rng, split_colors(split))[0]} bowl"


def sample_scene(split: str, rng: np.random.Generator, blocks=(), bowls=(), min_blocks: int = 1,
                 min_bowls: int = 1, same_colors: bool = False) -> list[str]:
    """The named blocks / bowls plus random others: 1-4 blocks and 1-4 bowls (at least the
    named ones and the minima), at most MAX_OBJECTS in all; colours from the split's colour
    set. ``same_colors``: every block has a bowl of its colour (and maybe other bowls)."""
    colors = split_colors(split)
    n_blocks = max(int(rng.integers(SCENE_BLOCKS[0], SCENE_BLOCKS[1] + 1)), len(blocks), min_blocks)
    if same_colors:
        n_blocks = min(n_blocks, MAX_OBJECTS // 2)
    n_bowls = max(int(rng.integers(SCENE_BOWLS[0], SCENE_BOWLS[1] + 1)), len(bowls), min_bowls,
                  n_blocks if same_colors else 0)
    n_bowls = max(min(n_bowls, MAX_OBJECTS - n_blocks), len(bowls), min_bowls)
    block_colors = [color(b) for b in blocks]
    block_colors += pick(
        rng, [c for c in colors if c not in block_colors], n_blocks - len(block_colors)
    )
    bowl_colors = list(block_colors) if same_colors else [color(b) for b in bowls]
    bowl_colors += pick(
        rng, [c for c in colors if c not in bowl_colors], n_bowls - len(bowl_colors)
    )
    order_b = rng.permutation(len(block_colors))
    order_w = rng.permutation(len(bowl_colors))
    return ([f"{block_colors[i]} block" for i in order_b]
            + [f"{bowl_colors[i]} bowl" for i in order_w])


# ---------------------------------------------------------------------------- worlds
def world_positions(world) -> dict[str, np.ndarray]:
    """Name -> xyz of every object of a TabletopRobot."""
    return {
        n: np.asarray(world.object_position(n), dtype=float).copy() for n in world.object_names()
    }

"""Pieces of the scripted solution programs' text: named places as ``denormalize_xy`` literals,
direction vectors, the block / bowl lists, names joined in words."""
from __future__ import annotations

from fractions import Fraction

from ...core.apis.tabletop import PLACE_INSET
from ..observe import BOUNDS, DIRECTIONS, PLACES, RANGE_XY, joined


def norm_literal(point) -> str:
    """A named place as ``denormalize_xy([..])`` (the places span denormalize's square)."""
    x, y = point
    lo = BOUNDS[:2, 0] + PLACE_INSET
    span = RANGE_XY - 2 * PLACE_INSET
    nx = Fraction(round((x - lo[0]) / span[0] * 12), 12)
    ny = Fraction(round((y - lo[1]) / span[1] * 12), 12)
    return f"denormalize_xy([{decimal(nx)}, {decimal(ny)}])"


def decimal(value: Fraction) -> str:
    return str(int(value)) if value.denominator == 1 else repr(round(float(value), 4))


def place_expr(place: str) -> str:
    return norm_literal(PLACES[place])


BLOCK_LIST = "blocks = [name for name in get_obj_names() if name.endswith(' block')]\n"
BOWL_LIST = "bowls = [name for name in get_obj_names() if name.endswith(' bowl')]\n"


def vec(direction: str) -> str:
    x, y = DIRECTIONS[direction]
    return f"np.array([{x}, {y}])"


def the_names(names) -> str:
    return joined(["the " + n for n in names])


def norm_text(nx: float, ny: float) -> str:
    return (f"denormalize_xy([{decimal(Fraction(round(nx * 12), 12))}, "
            f"{decimal(Fraction(round(ny * 12), 12))}])")

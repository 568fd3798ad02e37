"""The default scripted mistake: a solution program with the table's axes flipped (the error
the paper reports for gpt-3.5). The templates' own mistakes are their ``mistake`` methods."""
from __future__ import annotations

import re

from .programs import norm_text

NUMBER = r"(-?\d+(?:\.\d+)?)"


def flip_literals(program: str, extremes: bool = True) -> str:
    """``denormalize_xy([a, b])`` -> ``[1 - a, 1 - b]``, ``np.array([x, y])`` -> its negation,
    (``extremes``) ``min(`` <-> ``max(``."""
    program = re.sub(rf"denormalize_xy\(\[{NUMBER}, {NUMBER}\]\)", lambda m: norm_text(
        1 - float(m[1]), 1 - float(m[2])), program)
    program = re.sub(rf"np\.array\(\[{NUMBER}, {NUMBER}\]\)",
                     lambda m: f"np.array([{-float(m[1]) + 0.0}, {-float(m[2]) + 0.0}])", program)
    if not extremes:
        return program
    return re.sub(r"\b(min|max)\(", lambda m: "max(" if m[1] == "min" else "min(", program)

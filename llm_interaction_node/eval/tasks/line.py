"""The unseen template "put all the blocks in a <line> line" (split ``ua_ui``): its scripted
program chooses the line, and ``feasible`` runs the same choice."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..observe import Fact, blocks_of, bowls_of, hdist, joined, where, xy, z
from .base import Template
from .programs import BLOCK_LIST, BOWL_LIST
from .relations import (
    BLOCK_SIZE,
    LINE_TOL,
    PLACE_CLEAR_BLOCK,
    PLACE_CLEAR_BOWL,
    fit_line,
    line_class,
    line_fit,
)
from .scenes import sample_one

LINE_SPACING = 0.12


# ---------------------------------------------------------------------------- 14 line
LINE_DIRECTIONS = {"horizontal": [(1.0, 0.0)], "vertical": [(0.0, 1.0)],
                   "diagonal": [(1.0, 1.0), (1.0, -1.0)]}

# The scripted program chooses, among candidate lines of the requested kind, the one whose
# points keep farthest from the bowls and from the blocks not yet moved. The same source is
# executed by ``feasible`` (with a stub ``get_obj_pos``), so both agree on the choice.
_LINE_CHOOSER = f"""\
best_clearance, best_points = -1.0, None
block_pos = [get_obj_pos(b) for b in blocks]
bowl_pos = [get_obj_pos(w) for w in bowls]
for u in directions:
    u = np.array(u) / np.linalg.norm(u)
    normal = np.array([-u[1], u[0]])
    for offset in np.linspace(-0.28, 0.28, 29):
        for shift in np.linspace(-0.2, 0.2, 9):
            center = np.array([0.0, -0.5]) + offset * normal + shift * u
            points = [center + (i - (len(blocks) - 1) / 2) * {LINE_SPACING} * u for i in \
range(len(blocks))]
            if any(p[0] < -0.28 or p[0] > 0.28 or p[1] < -0.78 or p[1] > -0.22 for p in points):
                continue
            clearance = min([np.linalg.norm(p - w) - {PLACE_CLEAR_BOWL} for p in points for w in \
bowl_pos]
                            + [np.linalg.norm(points[i] - block_pos[j]) - {PLACE_CLEAR_BLOCK}
                               for i in range(len(blocks)) for j in range(i + 1, len(blocks))]
                            + [1.0])
            if clearance > best_clearance:
                best_clearance, best_points = clearance, points
"""


class BlocksInLine(Template):
    id, seen = "blocks_in_line", False
    pattern = "put all the blocks in a {line} line"
    min_blocks = 2

    def sample(self, split, rng):
        return {"line": sample_one(split, rng, "lines")}

    def choice(self, task, pos) -> tuple[float, list[np.ndarray] | None]:
        ns: dict[str, Any] = {"np": np, "get_obj_pos": lambda n: xy(pos[n]),
                              "blocks": blocks_of(pos), "bowls": bowls_of(pos),
                              "directions": LINE_DIRECTIONS[task.attributes["line"]]}
        exec(_LINE_CHOOSER, ns)
        return ns["best_clearance"], ns["best_points"]

    def feasible(self, task, pos):
        clearance, points = self.choice(task, pos)
        return points is not None and clearance > 0

    def _overlaps(self, final) -> list[tuple[str, str]]:
        """(upper, lower) of blocks stacked on / overlapping each other."""
        blocks = blocks_of(final)
        return [tuple(sorted((a, b), key=lambda n: -z(final[n])))
                for i, a in enumerate(blocks) for b in blocks[i + 1:]
                if hdist(final[a], final[b]) < BLOCK_SIZE]

    def check(self, initial, final, task):
        blocks = blocks_of(final)
        if len(blocks) < 2 or self._overlaps(final):
            return False
        slope, resid = fit_line(np.array([xy(final[b]) for b in blocks]))
        return resid <= LINE_TOL and line_class(slope) == task.attributes["line"]

    def program(self, task):
        dirs = LINE_DIRECTIONS[task.attributes["line"]]
        return (
            BLOCK_LIST
            + BOWL_LIST
            + f"directions = {dirs!r}\n"
            + _LINE_CHOOSER
            + "for block, point in zip(blocks, best_points):\n    put_first_on_second(block, "
              "point)\n"
        )

    def text(self, task, pos=None):
        kind = task.attributes["line"]
        if pos is not None:
            _, points = self.choice(task, pos)
            if points is not None:
                steps = [f"the {b} at x = {p[0]:.2f} m, y = {p[1]:.2f} m"
                         for b, p in zip(blocks_of(pos), points, strict=False)]
                return (f"Put the blocks {round(LINE_SPACING * 100)} cm apart on a {kind} line, "
                        f"away from the bowls: {joined(steps)}.")
        return (f"Put the blocks one after another at evenly spaced points about "
                f"{round(LINE_SPACING * 100)} cm apart on one {kind} line across the table, "
                f"keeping clear of the bowls.")

    def mistake(self, task):          # the other kind of line
        line = task.attributes["line"]
        other = "vertical" if line == "horizontal" else "horizontal"
        return self.program(task).replace(f"directions = {LINE_DIRECTIONS[line]!r}",
                                          f"directions = {LINE_DIRECTIONS[other]!r}")

    def mismatch(self, task, initial, final, start=None):
        overlaps = self._overlaps(final)
        if overlaps:
            return [Fact("overlap", (up,), where(up, final)) for up, _ in overlaps]
        blocks = blocks_of(final)
        slope, resid, _ = line_fit(np.array([xy(final[b]) for b in blocks]))
        if float(np.max(resid)) > LINE_TOL:
            worst = blocks[int(np.argmax(resid))]
            return [Fact("off_line", (worst,), where(worst, final), task.attributes["line"])]
        return [Fact("wrong_line", (), "", task.attributes["line"], line_class(slope) or "slanted")]

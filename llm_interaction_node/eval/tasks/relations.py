"""Spatial relations the instructions use: which block lies to a side of a bowl, the nth from
an edge, the closest / farthest, the corner nearest to a bowl, lines, and the margins that make
a scene unambiguous. Shared by the templates' checks, feasibility and mismatch diagnosis."""
from __future__ import annotations

import numpy as np

from ..observe import BOUNDS, CORNERS, DIRECTIONS, PLACES, RANGE_XY, Positions, blocks_of, hdist, xy

NTH = {"first": 0, "second": 1, "third": 2, "fourth": 3}
BLOCK_SIZE = 0.04
LINE_TOL = 0.05 * float(RANGE_XY.max())    # collinear within 5 % of the workspace (3 cm)
MAGNITUDE_SPLIT = 1.0 / 3.0                # 'a little' <= 1/3 of the axis range, 'a lot' > 1/3
# scene feasibility
MARGIN = 0.02               # the meant block / corner must win by at least 2 cm
PLACE_CLEAR_BOWL = 0.12     # no bowl this close to a target point
PLACE_CLEAR_BLOCK = 0.06    # no other block this close to a target point


def in_bounds(p, margin: float = MARGIN) -> bool:
    p = xy(p)
    return bool(np.all(p >= BOUNDS[:2, 0] + margin) and np.all(p <= BOUNDS[:2, 1] - margin))


def place_clear(point, pos: Positions, moving: tuple[str, ...] = ()) -> bool:
    """No bowl and no (other, unmoved) block near a target point."""
    for n, p in pos.items():
        if n in moving:
            continue
        limit = PLACE_CLEAR_BOWL if n.endswith(" bowl") else PLACE_CLEAR_BLOCK
        if hdist(p, point) < limit:
            return False
    return True


def rank(values: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(values.items(), key=lambda kv: kv[1])


def clear_winner(ranked: list[tuple[str, float]], index: int) -> bool:
    """``ranked[index]`` differs from its neighbours by at least MARGIN."""
    if not -len(ranked) <= index < len(ranked):
        return False
    i = index % len(ranked)
    v = ranked[i][1]
    return all(abs(ranked[j][1] - v) >= MARGIN for j in (i - 1, i + 1) if 0 <= j < len(ranked))


def block_in_direction(bowl: str, direction: str, pos: Positions) -> str | None:
    """The block nearest to the bowl among those on the ``direction`` side of it (half-plane)."""
    u = np.array(DIRECTIONS[direction])
    b = xy(pos[bowl])
    cands = {n: hdist(pos[n], b) for n in blocks_of(pos) if float((xy(pos[n]) - b) @ u) > 0}
    return min(cands, key=cands.get) if cands else None


def order_from(direction: str, pos: Positions) -> list[str]:
    """The blocks counted from the ``direction`` edge (first = most extreme)."""
    u = np.array(DIRECTIONS[direction])
    return sorted(blocks_of(pos), key=lambda n: -float(xy(pos[n]) @ u))


def nth_block_from(nth: str, direction: str, pos: Positions) -> str | None:
    """The nth block counted from the ``direction`` edge (first = most extreme)."""
    order = order_from(direction, pos)
    k = NTH[nth]
    return order[k] if k < len(order) else None


def by_distance(bowl: str, pos: Positions) -> list[str]:
    """The blocks from the closest to the bowl to the farthest."""
    return sorted(blocks_of(pos), key=lambda n: hdist(pos[n], pos[bowl]))


def block_by_distance(bowl: str, distance: str, pos: Positions) -> str:
    order = by_distance(bowl, pos)
    return order[0] if distance == "closest" else order[-1]


def corner_by_distance(bowl: str, distance: str, pos_bowl) -> str:
    d = {c: hdist(PLACES[c], pos_bowl) for c in CORNERS}
    return (min if distance == "closest" else max)(d, key=d.get)


def line_class(slope_abs: float) -> str | None:
    if slope_abs < 0.3:
        return "horizontal"
    if 0.7 <= slope_abs <= 1.3:
        return "diagonal"
    if slope_abs > 10:
        return "vertical"
    return None


def fit_line(xys: np.ndarray) -> tuple[float, float]:
    """Total-least-squares line through points: (|slope|, max perpendicular residual)."""
    slope, resid, _ = line_fit(xys)
    return slope, float(np.max(resid))


def line_fit(xys: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(|slope|, perpendicular residual per point, direction) of the TLS line."""
    pts = np.asarray(xys, dtype=float)
    c = pts - pts.mean(axis=0)
    _, _, vt = np.linalg.svd(c)
    d = vt[0]
    normal = np.array([-d[1], d[0]])
    slope = float("inf") if abs(d[0]) < 1e-12 else abs(float(d[1] / d[0]))
    return slope, np.abs(c @ normal), d

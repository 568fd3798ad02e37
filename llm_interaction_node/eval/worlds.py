"""Which tabletop world a benchmark run uses: PyBullet (default) or the kinematic 2-D one."""
from __future__ import annotations

WORLDS = ("bullet", "2d")
GRIPPERS = ("floating", "arm")


def world_factory(kind: str, gripper: str):
    """``(names, seed) -> world`` for ``eval.harness``; None means the 2-D default of
    ``eval.tasks.feasible_world``."""
    if kind == "2d":
        return None
    if kind != "bullet" or gripper not in GRIPPERS:
        raise ValueError(f"unknown world {kind!r}/{gripper!r}; use {WORLDS} and {GRIPPERS}")
    from ..sims.tabletop_bullet import TabletopWorldBullet
    return lambda names, seed: TabletopWorldBullet.from_names(names, seed=seed, gripper=gripper)

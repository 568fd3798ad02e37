"""A headless PyBullet CaP tabletop: blocks and bowls with physics and a suction gripper.

It implements :class:`~llm_interaction_node.core.apis.tabletop.TabletopRobot` with the same
surface as :class:`~llm_interaction_node.sims.tabletop2d.TabletopWorld2D` (``from_names``,
``random``, ``reset``, ``object_names``, ``object_position``, ``pick_and_place``, ``snapshot``,
``bounds``, ``log``) plus ``render`` / ``close``. Names, colours and spawn positions come from
the 2-D world (same seed and names -> same layout in both worlds).

Scene (own physics client per world, ``p.DIRECT``): a ground plane at z = 0, a visual table
patch over the workspace, 4 cm / 0.01 kg cubes (``object_position`` = the cube's centre) and
fixed-base bowls built from primitives (a floor disc plus a ring of 16 wall boxes;
``object_position`` = the bowl's base centre, z = 0, as in the 2-D world).

Suction gripper (CaP-style, scripted motions that ignore collisions, so blocks can be knocked
or dropped): a small cup that

1. moves to a hover point above ``pick``, descends until it touches a block (the touching
   block closest to the pick point, horizontally within :data:`PICK_RADIUS`) and attaches it
   with a fixed constraint; reaching the pick height without touching one -> ``'failure'``
   and nothing is moved (bowls have a fixed base and cannot be picked);
2. lifts, moves above ``place``, descends until the carried block touches something (or
   the place height is reached), releases, lifts, and steps until the objects settle.

``gripper='floating'`` moves the cup kinematically (fast, ~tens of ms per pick-and-place);
``gripper='arm'`` drives it by a Franka Panda (``pybullet_data``, base at :data:`ARM_BASE`) through
inverse kinematics (slower; points the arm cannot reach end in ``'failure'``). Every
motion loop is bounded.
"""
from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pybullet as p
import pybullet_data

from ..core.apis.tabletop import DEFAULT_BOUNDS
from .tabletop2d import (
    BLOCK_MASS,
    BLOCK_SIZE,
    BOWL_FLOOR,
    BOWL_RADIUS,
    COLORS,
    TABLE,
    TabletopWorld2D,
    parse_name,
    tabletop_checkpoint,
)
from .world_end import WorldEnd, tabletop_end

TIME_STEP = 1.0 / 240.0
HOVER_Z = 0.2              # m, height of the cup tip while travelling
SPEED = 1.0                # m/s of the cup tip (per physics step: SPEED * TIME_STEP)
SLOW = 0.3                 # m/s close to a contact
CONTACT = 0.002            # m, "touching"
PICK_RADIUS = 0.035        # m, the picked block's centre must be this close (xy) to the pick point
MAX_MOTION_STEPS = 600     # per motion segment
MAX_SETTLE_STEPS = 240     # after a release
SETTLE_SPEED = 0.005       # m/s, objects slower than this count as settled
REACH_TOL = 0.01           # m, the arm's cup farther than this from its target: unreachable
CUP_RADIUS, CUP_LENGTH = 0.012, 0.03
BOWL_WALL_RADIUS = 0.075   # m, centre line of the wall ring (inner radius ~0.071)
BOWL_WALL_T, BOWL_WALL_H, BOWL_WALLS = 0.008, 0.03, 16
HOME = (0.0, -0.5, HOVER_Z)
GRIPPERS = ("floating", "arm")
PANDA_EE = 11              # panda_grasptarget
# The Panda's reach (0.855 m) misses the far corners from the origin, so its base stands
# 10 cm towards the table (with the base at the origin 8 of 49 grid points at y = -0.8 fail).
ARM_BASE = (0.0, -0.1, 0.0)
PANDA_REST = [-math.pi / 2, -0.3, 0.0, -2.6, 0.0, 2.3, math.pi / 4]
DOWN = p.getQuaternionFromEuler([math.pi, 0.0, 0.0])


DISPLACED = 0.06          # m: an object the robot did not carry that moved this far was knocked


def displaced(before: dict[str, np.ndarray], after: dict[str, np.ndarray]) -> list[str]:
    """Objects that moved more than DISPLACED between two snapshots (knocked over, a stack
    that fell apart): what a user sees as a dropped block."""
    return [
        n
        for n in before
        if float(np.linalg.norm(np.asarray(after[n])[:2] - np.asarray(before[n])[:2])) > DISPLACED
        or float(np.asarray(before[n])[2] - np.asarray(after[n])[2]) > DISPLACED
    ]


def _rgba(color: str) -> list[float]:
    return [c / 255.0 for c in COLORS[color]] + [1.0]


class TabletopWorldBullet:
    """The PyBullet tabletop world (see the module docstring). Use as a context manager or
    call :meth:`close` to free the physics client."""

    def __init__(self, seed: int | None = 0, names: Iterable[str] = (), gripper: str = "floating"):
        if gripper not in GRIPPERS:
            raise ValueError(f"gripper must be one of {GRIPPERS}, got {gripper!r}")
        self._layout = TabletopWorld2D(seed, names)      # names, validation and spawn rules
        self.seed, self.gripper = seed, gripper
        self.bounds = DEFAULT_BOUNDS.copy()
        self.spawn_ok = self._layout.spawn_ok
        self._cid: int | None = p.connect(p.DIRECT)
        self.reset()

    @classmethod
    def from_names(cls, names: Iterable[str], seed: int | None = 0,
                   gripper: str = "floating") -> TabletopWorldBullet:
        """A world with exactly these objects (e.g. ``['red block', 'blue bowl']``)."""
        return cls(seed, names, gripper)

    @classmethod
    def random(cls, n_blocks: int, n_bowls: int, seed: int | None = 0,
               gripper: str = "floating") -> TabletopWorldBullet:
        """Blocks and bowls of random distinct colours, as :meth:`TabletopWorld2D.random`."""
        return cls(seed, TabletopWorld2D.random(n_blocks, n_bowls, seed).object_names(), gripper)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        if self._cid is not None:
            try:
                p.disconnect(physicsClientId=self._cid)
            finally:
                self._cid = None

    def __enter__(self) -> TabletopWorldBullet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:       # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass

    @property
    def client(self) -> int:
        if self._cid is None:
            raise RuntimeError("the world is closed")
        return self._cid

    def reset(self) -> None:
        """Rebuild the scene at the spawned state; clears the log."""
        c = self.client
        p.resetSimulation(physicsClientId=c)
        p.setGravity(0, 0, -9.81, physicsClientId=c)
        p.setTimeStep(TIME_STEP, physicsClientId=c)
        p.setAdditionalSearchPath(pybullet_data.getDataPath(), physicsClientId=c)
        self.plane = p.loadURDF("plane.urdf", [0, 0, 0], physicsClientId=c)
        (x0, x1), (y0, y1) = self.bounds[0], self.bounds[1]
        table_vis = p.createVisualShape(p.GEOM_BOX, halfExtents=[(x1 - x0) / 2 + 0.02,
                                        (y1 - y0) / 2 + 0.02, 0.0005],
                                        rgbaColor=[0.85, 0.82, 0.76, 1], physicsClientId=c)
        p.createMultiBody(0, -1, table_vis, [(x0 + x1) / 2, (y0 + y1) / 2, 0.0005],
                          physicsClientId=c)
        self.bodies: dict[str, int] = {}
        self.kinds: dict[str, str] = {}
        for name in self._layout.object_names():
            color, kind = parse_name(name)
            pos = self._layout.object_position(name)
            body = self._make_block(pos, color) if kind == "block" else self._make_bowl(pos, color)
            self.bodies[name], self.kinds[name] = body, kind
        self._names_by_body = {b: n for n, b in self.bodies.items()}
        cup_col = p.createCollisionShape(p.GEOM_CYLINDER, radius=CUP_RADIUS, height=CUP_LENGTH,
                                         collisionFramePosition=[0, 0, CUP_LENGTH / 2],
                                         physicsClientId=c)
        cup_vis = p.createVisualShape(p.GEOM_CYLINDER, radius=CUP_RADIUS, length=CUP_LENGTH,
                                      visualFramePosition=[0, 0, CUP_LENGTH / 2],
                                      rgbaColor=[0.2, 0.2, 0.2, 1], physicsClientId=c)
        self.cup = p.createMultiBody(0, cup_col, cup_vis, list(HOME), physicsClientId=c)
        self.arm = None
        if self.gripper == "arm":
            self._load_arm()
        self._tip = np.array(HOME, dtype=float)     # where the cup tip is
        self._cmd = self._tip.copy()                # where it was sent (the arm: IK residual)
        self._held: tuple[str, int] | None = None
        self.log: list[dict[str, Any]] = []

    def _make_block(self, pos: np.ndarray, color: str) -> int:
        c, h = self.client, BLOCK_SIZE / 2
        col = p.createCollisionShape(p.GEOM_BOX, halfExtents=[h] * 3, physicsClientId=c)
        vis = p.createVisualShape(p.GEOM_BOX, halfExtents=[h] * 3, rgbaColor=_rgba(color),
                                  physicsClientId=c)
        body = p.createMultiBody(BLOCK_MASS, col, vis, [float(pos[0]), float(pos[1]), h],
                                 physicsClientId=c)
        p.changeDynamics(body, -1, lateralFriction=0.6, physicsClientId=c)
        return body

    def _make_bowl(self, pos: np.ndarray, color: str) -> int:
        """A floor disc plus a ring of wall boxes, fixed base, origin at the base centre."""
        c = self.client
        r_out = BOWL_WALL_RADIUS + BOWL_WALL_T / 2
        types, half, radii, lengths, frames, orns = [p.GEOM_CYLINDER], [[0, 0, 0]], [r_out], \
            [BOWL_FLOOR], [[0, 0, BOWL_FLOOR / 2]], [[0, 0, 0, 1]]
        tangential = BOWL_WALL_RADIUS * math.tan(math.pi / BOWL_WALLS) + 0.002
        for k in range(BOWL_WALLS):
            a = 2 * math.pi * k / BOWL_WALLS
            types.append(p.GEOM_BOX)
            half.append([BOWL_WALL_T / 2, tangential, BOWL_WALL_H / 2])
            radii.append(0.0)
            lengths.append(0.0)
            frames.append([BOWL_WALL_RADIUS * math.cos(a), BOWL_WALL_RADIUS * math.sin(a),
                           BOWL_FLOOR + BOWL_WALL_H / 2])
            orns.append(list(p.getQuaternionFromEuler([0, 0, a])))
        col = p.createCollisionShapeArray(types, radii=radii, halfExtents=half, lengths=lengths,
                                          collisionFramePositions=frames,
                                          collisionFrameOrientations=orns, physicsClientId=c)
        # no rgbaColors here: createVisualShapeArray with colours segfaults (platform notes)
        vis = p.createVisualShapeArray(types, radii=radii, halfExtents=half, lengths=lengths,
                                       visualFramePositions=frames,
                                       visualFrameOrientations=orns, physicsClientId=c)
        body = p.createMultiBody(0, col, vis, [float(pos[0]), float(pos[1]), 0.0],
                                 physicsClientId=c)
        p.changeVisualShape(body, -1, rgbaColor=_rgba(color), physicsClientId=c)
        return body

    def _load_arm(self) -> None:
        c = self.client
        self.arm = p.loadURDF("franka_panda/panda.urdf", list(ARM_BASE), useFixedBase=True,
                              physicsClientId=c)
        self._arm_joints = list(range(7))
        info = [p.getJointInfo(self.arm, j, physicsClientId=c) for j in self._arm_joints]
        self._lower = [i[8] for i in info]
        self._upper = [i[9] for i in info]
        self._ranges = [hi - lo for lo, hi in zip(self._lower, self._upper, strict=True)]
        for j, q in zip(self._arm_joints, PANDA_REST, strict=True):     # 7 joints, 7 angles
            p.resetJointState(self.arm, j, q, physicsClientId=c)
        for j in (9, 10):                                   # fingers closed, out of the way
            p.resetJointState(self.arm, j, 0.0, physicsClientId=c)
            p.setJointMotorControl2(self.arm, j, p.POSITION_CONTROL, 0.0, force=20,
                                    physicsClientId=c)
        for link in range(-1, p.getNumJoints(self.arm, physicsClientId=c)):
            p.setCollisionFilterPair(self.arm, self.cup, link, -1, 0, physicsClientId=c)
        self._arm_to(np.array(HOME, dtype=float), iterations=200)

    # ------------------------------------------------------------------ protocol
    def object_names(self) -> list[str]:
        return list(self.bodies)

    def object_position(self, name: str) -> np.ndarray:
        pos, _ = p.getBasePositionAndOrientation(self.bodies[name], physicsClientId=self.client)
        return np.array(pos, dtype=float)

    def gripper_position(self) -> np.ndarray:
        """Where the suction cup's tip is (xyz)."""
        return self._tip.copy()

    def pick_and_place(self, pick: np.ndarray, place: np.ndarray) -> str:
        pick = np.asarray(pick, dtype=float).reshape(-1)
        place = np.asarray(place, dtype=float).reshape(-1)
        pick_z = float(pick[2]) if pick.shape[0] >= 3 else 0.0
        place_z = float(place[2]) if place.shape[0] >= 3 else 0.0
        entry: dict[str, Any] = {"pick": pick.tolist(), "place": place.tolist(), "object": None}
        b, eps = self.bounds, 1e-6
        if not (
            b[0, 0] - eps <= place[0] <= b[0, 1] + eps
            and b[1, 0] - eps <= place[1] <= b[1, 1] + eps
        ):
            return self._done(entry, "failure", "place point outside the workspace")
        # (no bounds check on the pick point: an object knocked a hair outside can be picked)
        # 1. above the pick point, then down until a block touches the cup
        if not self._move_to([pick[0], pick[1], HOVER_Z]):
            return self._done(entry, "failure", "pick point unreachable")
        name = self._descend_and_pick(pick[:2], pick_z)
        if name is None:
            self._move_to([pick[0], pick[1], HOVER_Z])
            return self._done(entry, "failure", self._pick_failure)
        entry["object"] = name
        before = {n: self.object_position(n) for n in self.bodies if n != name}
        # 2. lift, travel, lower until the block touches something, release
        reached = self._move_to([self._cmd[0], self._cmd[1], HOVER_Z]) \
            and self._move_to([place[0], place[1], HOVER_Z]) \
            and self._lower_carried(place_z)
        self._release()
        self._move_to([self._cmd[0], self._cmd[1], HOVER_Z])
        self._settle()
        entry["landed"] = self.object_position(name).tolist()
        entry["displaced"] = displaced(before, {n: self.object_position(n) for n in before})
        if not reached:
            return self._done(entry, "failure", "place point unreachable; block released there")
        return self._done(entry, "success", "", support=self._support(name))

    # ------------------------------------------------------------------ motion
    def _done(self, entry: dict[str, Any], result: str, reason: str, **extra: Any) -> str:
        if self.arm is not None and "unreachable" in reason:
            self._home_arm()
        entry.update(result=result, reason=reason, **extra)
        self.log.append(entry)
        return result

    def _step(self) -> None:
        p.stepSimulation(physicsClientId=self.client)

    def _set_tip(self, target: np.ndarray) -> bool:
        """Put the cup tip at ``target`` (the arm: as close as IK gets); one physics step."""
        c = self.client
        self._cmd = np.asarray(target, dtype=float).copy()
        if self.arm is None:
            p.resetBasePositionAndOrientation(self.cup, target.tolist(), [0, 0, 0, 1],
                                              physicsClientId=c)
            self._tip = target.copy()
            ok = True
        else:
            ok = self._arm_to(target)
        self._step()
        return ok

    def _home_arm(self) -> None:
        """After an unreachable target: back to the rest pose above HOME (the IK warm start
        would otherwise stay in a bad branch)."""
        for j, q0 in zip(self._arm_joints, PANDA_REST, strict=True):     # 7 joints, 7 angles
            p.resetJointState(self.arm, j, q0, physicsClientId=self.client)
        self._arm_to(np.array(HOME, dtype=float), iterations=200)
        self._cmd = np.array(HOME, dtype=float)
        self._settle()

    def _arm_to(self, target: np.ndarray, iterations: int = 20, rounds: int = 4) -> bool:
        """IK for the cup tip at ``target`` (up to ``rounds`` warm-started solves), joints set
        kinematically (and as position targets); the cup follows the arm's real pose."""
        c = self.client
        ee_target = [float(target[0]), float(target[1]), float(target[2]) + CUP_LENGTH]
        for _ in range(rounds):
            q = p.calculateInverseKinematics(
                self.arm, PANDA_EE, ee_target, DOWN, lowerLimits=self._lower,
                upperLimits=self._upper, jointRanges=self._ranges, restPoses=PANDA_REST,
                maxNumIterations=iterations, residualThreshold=1e-4, physicsClientId=c)
            for j in self._arm_joints:
                p.resetJointState(self.arm, j, q[j], physicsClientId=c)
            state = p.getLinkState(self.arm, PANDA_EE, computeForwardKinematics=True,
                                   physicsClientId=c)
            tip = np.array(state[4]) - np.array([0, 0, CUP_LENGTH])
            if float(np.linalg.norm(tip - target)) <= REACH_TOL / 4:
                break
        p.setJointMotorControlArray(self.arm, self._arm_joints, p.POSITION_CONTROL,
                                    targetPositions=list(q[:7]), physicsClientId=c)
        p.resetBasePositionAndOrientation(self.cup, tip.tolist(), [0, 0, 0, 1],
                                          physicsClientId=c)
        self._tip = tip
        return float(np.linalg.norm(tip - target)) <= REACH_TOL

    def _move_to(self, target: Sequence[float]) -> bool:
        """Straight line at :data:`SPEED`; False if the target was not reached (bounded)."""
        target = np.asarray(target, dtype=float)
        step = SPEED * TIME_STEP
        start = self._cmd.copy()
        n = min(MAX_MOTION_STEPS, max(1, math.ceil(np.linalg.norm(target - start) / step)))
        ok = True
        for i in range(1, n + 1):
            ok = self._set_tip(start + (target - start) * (i / n))
        if self.arm is not None and not ok:       # a few extra IK tries at the end point
            for _ in range(10):
                if self._set_tip(target):
                    return True
        return ok

    def _gap(self, body: int, others: Iterable[int], reach: float) -> tuple[float, int | None]:
        """Smallest distance (<= reach) between ``body`` and any of ``others``."""
        c, best, who = self.client, reach, None
        for other in others:
            for pt in p.getClosestPoints(body, other, reach, physicsClientId=c):
                if pt[8] < best:
                    best, who = pt[8], other
        return best, who

    def _blocks(self) -> list[int]:
        return [b for n, b in self.bodies.items() if self.kinds[n] == "block"]

    def _descend_and_pick(self, xy: np.ndarray, pick_z: float) -> str | None:
        """Lower the cup at ``xy`` until it touches a block near ``xy``; attach it."""
        c = self.client
        self._pick_failure = "nothing to pick at the pick point"
        z_min = max(pick_z - BLOCK_SIZE / 2, 0.0) + 0.001
        for _ in range(MAX_MOTION_STEPS):
            near = [b for b in self._blocks() if np.linalg.norm(
                np.array(p.getBasePositionAndOrientation(b, physicsClientId=c)[0][:2]) - xy) < 0.08]
            touching = []
            for b in near:
                pts = p.getClosestPoints(self.cup, b, CONTACT, physicsClientId=c)
                if pts:
                    touching.append(b)
            if touching:
                def dist(b: int) -> float:
                    pos = p.getBasePositionAndOrientation(b, physicsClientId=c)[0]
                    return float(np.linalg.norm(np.array(pos[:2]) - xy))
                best = min(touching, key=dist)
                if dist(best) <= PICK_RADIUS:
                    self._attach(best)
                    return self._names_by_body[best]
            if self._cmd[2] <= z_min + 1e-9:
                return None
            gap, _ = self._gap(self.cup, near, 0.03)
            dz = min(SPEED * TIME_STEP if gap >= 0.03 else SLOW * TIME_STEP,
                     max(gap - CONTACT / 2, 0.0005), self._cmd[2] - z_min)
            target = np.array([xy[0], xy[1], self._cmd[2] - dz])
            if not self._set_tip(target) and self.arm is not None:
                self._pick_failure = "pick point unreachable"
                return None
        return None

    def _attach(self, body: int) -> None:
        c = self.client
        cup_pos, cup_orn = p.getBasePositionAndOrientation(self.cup, physicsClientId=c)
        pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=c)
        inv_pos, inv_orn = p.invertTransform(cup_pos, cup_orn)
        rel_pos, rel_orn = p.multiplyTransforms(inv_pos, inv_orn, pos, orn)
        p.setCollisionFilterPair(self.cup, body, -1, -1, 0, physicsClientId=c)
        cid = p.createConstraint(self.cup, -1, body, -1, p.JOINT_FIXED, [0, 0, 0],
                                 parentFramePosition=rel_pos, childFramePosition=[0, 0, 0],
                                 parentFrameOrientation=rel_orn, physicsClientId=c)
        p.changeConstraint(cid, maxForce=50, physicsClientId=c)
        self._held = (self._names_by_body[body], cid)

    def _release(self) -> None:
        if self._held is None:
            return
        name, cid = self._held
        p.removeConstraint(cid, physicsClientId=self.client)
        self._held = None
        self._step()
        p.setCollisionFilterPair(
            self.cup, self.bodies[name], -1, -1, 1, physicsClientId=self.client
        )

    def _lower_carried(self, place_z: float) -> bool:
        """Lower the held block until it touches something or the place height is reached."""
        if self._held is None:
            return False
        body = self.bodies[self._held[0]]
        others = [self.plane] + [b for b in self.bodies.values() if b != body]
        z_min = place_z + 0.005
        for _ in range(MAX_MOTION_STEPS):
            gap, _ = self._gap(body, others, 0.03)
            if gap <= CONTACT or self._cmd[2] <= z_min + 1e-9:
                return True
            dz = min(SPEED * TIME_STEP if gap >= 0.03 else SLOW * TIME_STEP,
                     max(gap - CONTACT / 2, 0.0005), self._cmd[2] - z_min)
            if not self._set_tip(self._cmd - np.array([0, 0, dz])) and self.arm is not None:
                return False
        return True

    def _settle(self) -> None:
        c = self.client
        blocks = self._blocks()
        for i in range(MAX_SETTLE_STEPS):
            self._step()
            if i % 4 == 3:
                fast = False
                for b in blocks:
                    lin, ang = p.getBaseVelocity(b, physicsClientId=c)
                    if (
                        np.linalg.norm(lin) > SETTLE_SPEED
                        or np.linalg.norm(ang) > 20 * SETTLE_SPEED
                    ):
                        fast = True
                        break
                if not fast:
                    return

    # ------------------------------------------------------------------ state
    def _support(self, name: str) -> str:
        """What the object rests on: 'table', a bowl, a block, or 'none' (e.g. tipped over
        a wall); from the geometry, so it needs no contact points."""
        if self.kinds[name] == "bowl":
            return TABLE
        c = self.client
        (lo, hi) = p.getAABB(self.bodies[name], physicsClientId=c)
        bottom = lo[2]
        xy = self.object_position(name)[:2]
        under = []
        for other, body in self.bodies.items():
            if other == name:
                continue
            o_lo, o_hi = p.getAABB(body, physicsClientId=c)
            oxy = self.object_position(other)[:2]
            d = float(np.linalg.norm(oxy - xy))
            if self.kinds[other] == "block":
                if d < BLOCK_SIZE and abs(o_hi[2] - bottom) < 0.01:
                    under.append((o_hi[2], other))
            elif d < BOWL_RADIUS + 0.01 and bottom < BOWL_FLOOR + 0.01:
                under.append((BOWL_FLOOR, other))
        if under:
            return max(under)[1]
        return TABLE if bottom < 0.01 else "none"

    def snapshot(self) -> dict[str, Any]:
        """Plain data, as :meth:`TabletopWorld2D.snapshot`: positions and supports."""
        return {"objects": {n: {"position": [round(float(v), 6) for v in self.object_position(n)],
                                "support": self._support(n)} for n in self.bodies},
                "spawn_ok": self.spawn_ok}

    # ------------------------------------------------------------------ replay check
    def checkpoint(self) -> dict[str, Any]:
        """As :meth:`TabletopWorld2D.checkpoint`: the object positions and the bounds."""
        return tabletop_checkpoint(self)

    def replay_world(self, state: dict[str, Any]) -> TabletopWorld2D:
        """The replay runs in the 2-D world (the same names and positions; all objects start
        on the table); ends are compared with tolerances that survive physics."""
        return TabletopWorld2D.from_checkpoint(state)

    def end(self) -> WorldEnd:
        return tabletop_end(self)

    # ------------------------------------------------------------------ camera
    def render(
        self, path: str | Path | None = None, size: tuple[int, int] = (240, 240)
    ) -> np.ndarray:
        """An RGB frame (H x W x 3, uint8) of the workspace seen from above and slightly in
        front (ER_TINY_RENDERER, headless); written as PNG when ``path`` is given."""
        w, h = int(size[0]), int(size[1])
        view = p.computeViewMatrix(cameraEyePosition=[0.0, -0.72, 0.95],
                                   cameraTargetPosition=[0.0, -0.52, 0.0],
                                   cameraUpVector=[0.0, 1.0, 0.0], physicsClientId=self.client)
        proj = p.computeProjectionMatrixFOV(fov=44, aspect=w / h, nearVal=0.01, farVal=5.0,
                                            physicsClientId=self.client)
        img = p.getCameraImage(w, h, view, proj, renderer=p.ER_TINY_RENDERER,
                               physicsClientId=self.client)
        rgb = np.asarray(img[2], dtype=np.uint8).reshape(h, w, 4)[:, :, :3].copy()
        if path is not None:
            write_png(path, rgb)
        return rgb


# ---------------------------------------------------------------------- PNG output
def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def write_png(path: str | Path, rgb: np.ndarray) -> Path:
    """Write an H x W x 3 (or H x W gray) uint8 array as a PNG (pure zlib, no extra deps)."""
    a = np.asarray(rgb, dtype=np.uint8)
    if a.ndim == 2:
        a = np.repeat(a[:, :, None], 3, axis=2)
    if a.ndim != 3 or a.shape[2] not in (3, 4):
        raise ValueError(f"expected an H x W x 3 image, got shape {a.shape}")
    a = np.ascontiguousarray(a[:, :, :3])
    h, w = a.shape[:2]
    raw = b"".join(b"\x00" + a[y].tobytes() for y in range(h))
    data = (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + _png_chunk(b"IDAT", zlib.compress(raw, 6)) + _png_chunk(b"IEND", b""))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def save_strip(frames: Sequence[np.ndarray], path: str | Path, gap: int = 4) -> np.ndarray:
    """Frames side by side (white ``gap`` px between them, bottom-padded to one height) as one
    PNG, e.g. a run's image strip; returns the composed image."""
    frames = [np.asarray(f, dtype=np.uint8)[:, :, :3] for f in frames]
    if not frames:
        raise ValueError("save_strip needs at least one frame")
    h = max(f.shape[0] for f in frames)
    parts: list[np.ndarray] = []
    for i, f in enumerate(frames):
        if i:
            parts.append(np.full((h, gap, 3), 255, dtype=np.uint8))
        pad = np.full((h - f.shape[0], f.shape[1], 3), 255, dtype=np.uint8)
        parts.append(np.vstack([f, pad]))
    strip = np.hstack(parts)
    write_png(path, strip)
    return strip


__all__ = ["TabletopWorldBullet", "write_png", "save_strip", "GRIPPERS"]

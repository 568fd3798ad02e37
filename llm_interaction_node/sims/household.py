"""A kinematic household world for the humanoid API: pure Python, no physics, no ROS.

The world has named base poses, furniture (surfaces objects can be put on), objects with a
class, affordances and a symbolic location, a mobile base, two hands, a human who can hand
objects over and take them, and a ladder that only the bimanual ``bring_ladder`` skill moves.
It implements :class:`~llm_interaction_node.core.apis.humanoid.HumanoidRobot`.

Rules (the same a real robot's skills would enforce physically):

* ``grasp`` needs the base within ``reach_tolerance`` of the object's navigation location
  (``inFrontOf_<furniture>``), a free hand, and a surface not higher than ``max_reach_height``;
* ``place`` needs the object in a hand and the base in front of the destination furniture;
* ``handover`` / ``receive`` need the base at ``handover_to_human``; ``receive`` needs the
  human to hold that object;
* ``move_to`` takes ``distance / (base_speed * speed_factor) + turn / (turn_speed * speed_factor)``
  simulated seconds and fails for targets outside the room.

A skill whose preconditions fail returns ``'failure'`` and changes nothing. Failures can also
be injected: ``failures: {handover: {milk-carton_0: 2}}`` makes the first two otherwise
successful handovers of that object fail (``'*'`` matches any object / target), and
``random_failures: {probability: p, seed: s, skills: [...]}`` fails skills at random.

Every skill call is appended to :attr:`HouseholdWorld.log` as a :class:`SkillCall`; the
simulated clock :attr:`HouseholdWorld.clock` advances by each call's duration. Nothing sleeps
unless ``time_scale > 0`` (then each call sleeps ``duration * time_scale`` wall seconds before
its effect, e.g. the object in the hand, becomes visible).

:meth:`HouseholdWorld.interrupt` (thread-safe) stops the running skill at once: a move leaves
the base where it got to, any other skill changes nothing; the call is logged as ``'failure'``
with reason ``'canceled'``. Called while no skill runs, the request stays pending until the next
skill call consumes it (see the method).
"""
from __future__ import annotations

import copy
import math
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..core.apis.humanoid import (
    BRING_LADDER_SKILL,
    FAILURE,
    GRASP,
    HANDOVER_LOCATION,
    HANDS,
    HUMAN,
    PLACE_ON_TOP,
    SUCCESS,
    SceneObject,
    navigation_location,
    surface_name,
)
from ..core.settings.world_file import check_world, read_world_file
from .world_end import WorldEnd

DEFAULT_ROBOT = {
    "start": "room_center",       # a named location or [x, y, yaw]
    "base_speed": 0.5,            # m/s at speed_factor 1
    "turn_speed": 1.0,            # rad/s at speed_factor 1
    "reach_tolerance": 0.3,       # m between the base and a navigation pose to act there
    "max_reach_height": 1.5,      # m: highest surface the hands reach
    "ladder_speed_factor": 0.5,   # carrying the ladder is slower
    "durations": {"grasp": 4.0, "place": 4.0, "handover": 5.0, "receive": 5.0,
                  "ladder_pickup": 8.0, "ladder_setup": 12.0},
}
HAND_OFFSETS = {"left": (0.35, 0.2, 1.0), "right": (0.35, -0.2, 1.0)}   # base frame
PROGRESS_STEPS = 10
CANCELED = "canceled"             # SkillCall.reason of an interrupted skill


@dataclass
class SkillCall:
    """One entry of the skill log."""

    skill: str
    args: dict[str, Any]
    result: str
    duration: float
    start: float
    speed_factor: float | None = None
    reason: str = ""              # why it failed ('' on success)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Furniture:
    name: str
    object_class: str
    xy: np.ndarray
    yaw: float
    height: float
    affordances: tuple[str, ...]


@dataclass
class _Object:
    name: str
    object_class: str
    affordances: tuple[str, ...]
    size: float                                   # height, m
    pose: np.ndarray                              # 6-D, used when not held
    location: str | None                          # 'on_<furniture>' / named location / None
    held_by: str | None = None                    # 'left' / 'right' / 'human' / None
    extra: dict[str, Any] = field(default_factory=dict)


def _class_of(name: str) -> str:
    return re.sub(r"_\d+$", "", name)


def _wrap(angle: float) -> float:
    return math.remainder(angle, math.tau)


def _vec(value: Any, n: int, what: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float).reshape(-1)
    if arr.shape != (n,):
        raise ValueError(f"{what}: expected {n} numbers, got {value!r}")
    return arr


class HouseholdWorld:
    """The in-process household world (see the module docstring for its rules)."""

    def __init__(self, config: dict[str, Any], *, time_scale: float = 0.0,
                 progress: Callable[[float], None] | None = None, source: str | None = None):
        self.config = copy.deepcopy(check_world(config, source or "the world"))
        self.name = str(self.config.get("name", source or "household"))
        self.description = str(self.config.get("description", ""))
        self.source = source
        self.time_scale = float(time_scale)
        self.progress = progress          # called with 0..1 during moves (action feedback)
        self._lock = threading.RLock()        # state: held briefly, never while sleeping
        self._skill_lock = threading.RLock()  # one skill at a time (held while it runs)
        self._interrupt = threading.Event()   # set by interrupt(), cleared when a skill ends
        self._parse(self.config)
        self.reset()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_dict(cls, config: dict[str, Any], **kwargs: Any) -> HouseholdWorld:
        return cls(config, **kwargs)

    @classmethod
    def from_yaml(cls, path: str | Path, **kwargs: Any) -> HouseholdWorld:
        """The world of a world file (ValueError of one line for a file not in the format,
        :mod:`~..core.settings.world_file`)."""
        kwargs.setdefault("source", str(path))
        return cls(read_world_file(path), **kwargs)

    def _parse(self, cfg: dict[str, Any]) -> None:
        robot = {**DEFAULT_ROBOT, **(cfg.get("robot") or {})}
        robot["durations"] = {
            **DEFAULT_ROBOT["durations"],
            **((cfg.get("robot") or {}).get("durations") or {}),
        }
        self.base_speed = float(robot["base_speed"])
        self.turn_speed = float(robot["turn_speed"])
        self.reach_tolerance = float(robot["reach_tolerance"])
        self.max_reach_height = float(robot["max_reach_height"])
        self.ladder_speed_factor = float(robot["ladder_speed_factor"])
        self.durations = {k: float(v) for k, v in robot["durations"].items()}
        room = cfg.get("room") or {}
        self.room = {
            axis: tuple(float(v) for v in room[axis]) for axis in ("x", "y") if axis in room
        }

        self.furniture: dict[str, _Furniture] = {}
        self._locations: dict[str, np.ndarray] = {}
        for name, spec in (cfg.get("furniture") or {}).items():
            spec = spec or {}
            affordances = tuple(spec.get("affordances", [PLACE_ON_TOP]))
            self.furniture[name] = _Furniture(
                name=name, object_class=spec.get("class", _class_of(name)),
                xy=_vec(spec["position"], 2, f"furniture {name} position"),
                yaw=float(spec.get("yaw", 0.0)), height=float(spec.get("height", 0.75)),
                affordances=affordances)
            if "approach" in spec:
                self._locations[navigation_location(name)] = _vec(
                    spec["approach"], 3, f"furniture {name} approach")
        for name, pose in (cfg.get("locations") or {}).items():
            self._locations[name] = _vec(pose, 3, f"location {name}")

        human = cfg.get("human") or {}
        handover = self._locations.get(HANDOVER_LOCATION)
        default_human = (
            handover[:2] + 0.8 * np.array([math.cos(handover[2]), math.sin(handover[2])])
            if handover is not None
            else np.zeros(2)
        )
        self.human_xy = _vec(human.get("position", default_human), 2, "human position")

        start = robot["start"]
        self.start_pose = (self._locations[start].copy() if isinstance(start, str)
                           else _vec(start, 3, "robot start"))

        self._initial_objects: dict[str, _Object] = {}
        slots: dict[str, int] = {}
        for name, spec in (cfg.get("objects") or {}).items():
            spec = spec or {}
            obj = _Object(
                name=name,
                object_class=spec.get("class", _class_of(name)),
                affordances=tuple(spec.get("affordances", [GRASP])),
                size=float(spec.get("height", 0.2)),
                pose=np.zeros(6),
                location=None,
                extra={
                    k: v
                    for k, v in spec.items()
                    if k
                    not in (
                        "class",
                        "affordances",
                        "height",
                        "location",
                        "offset",
                        "pose",
                        "held_by",
                    )
                },
            )
            location = spec.get("location")
            if spec.get("held_by") == HUMAN:
                obj.held_by = HUMAN
            elif isinstance(location, str) and location.startswith("on_") and "pose" not in spec:
                furn = location[len("on_"):]
                if furn not in self.furniture:
                    raise ValueError(f"object {name}: unknown furniture {furn!r}")
                offset = spec.get("offset")
                if offset is None:
                    k = slots.get(furn, 0)
                    slots[furn] = k + 1
                    offset = [0.15 * ((k % 3) - 1), 0.15 * (k // 3)]
                obj.pose = self._pose_on(
                    self.furniture[furn], _vec(offset, 2, f"{name} offset"), obj.size
                )
                obj.location = location
            elif "pose" in spec:
                obj.pose = _vec(spec["pose"], 6, f"object {name} pose")
                obj.location = location          # a named location, or None (unknown)
            else:
                raise ValueError(f"object {name}: give 'location: on_<furniture>', "
                                 "'held_by: human' or a 'pose'")
            self._initial_objects[name] = obj

        self._failure_plan = {skill: {str(k): int(v) for k, v in (per or {}).items()}
                              for skill, per in (cfg.get("failures") or {}).items()}
        rnd = cfg.get("random_failures") or {}
        self._random_p = float(rnd.get("probability", 0.0))
        self._random_seed = rnd.get("seed", 0)
        self._random_skills = set(rnd.get("skills", ["grasp", "place", "handover", "receive"]))

    @staticmethod
    def _pose_on(furn: _Furniture, offset: np.ndarray, size: float) -> np.ndarray:
        c, s = math.cos(furn.yaw), math.sin(furn.yaw)
        x = furn.xy[0] + c * offset[0] - s * offset[1]
        y = furn.xy[1] + s * offset[0] + c * offset[1]
        return np.array([x, y, furn.height + size / 2, 0.0, 0.0, furn.yaw])

    def reset(self) -> None:
        """Back to the initial state of the world file; clears the log and the clock."""
        with self._skill_lock, self._lock:
            self.objects = {n: copy.deepcopy(o) for n, o in self._initial_objects.items()}
            self.base_pose = self.start_pose.copy()
            self.clock = 0.0
            self.log: list[SkillCall] = []
            self._failures_left = copy.deepcopy(self._failure_plan)
            self._rng = random.Random(self._random_seed)
            self._interrupt.clear()

    # ------------------------------------------------------------------ interruption
    def interrupt(self) -> None:
        """Stop the running skill as soon as possible (thread-safe, returns at once).

        The skill returns ``'failure'`` and is logged with reason ``'canceled'``: an interrupted
        move (or ``bring_ladder``) leaves the base where it got to, other skills change nothing.
        Called while no skill runs, it stays pending: the next skill call consumes it (one that
        takes time stops as it starts). It is withdrawn when a skill ends, by
        :meth:`clear_interrupt` and by :meth:`reset`.
        """
        self._interrupt.set()

    def clear_interrupt(self) -> None:
        """Withdraw an :meth:`interrupt` that no skill has consumed yet."""
        self._interrupt.clear()

    @contextmanager
    def _skill(self) -> Iterator[None]:
        """Run one skill: hold the skill lock; an interrupt ends with the skill."""
        with self._skill_lock:
            try:
                yield
            finally:
                self._interrupt.clear()

    def _pass_time(self, duration: float) -> float:
        """Let ``duration`` simulated seconds pass (sleeping ``duration * time_scale`` wall seconds
        unless interrupted); returns the simulated seconds that passed."""
        if self._interrupt.is_set():
            return 0.0
        wall = duration * self.time_scale
        if wall <= 0:
            return duration
        start = time.monotonic()
        if self._interrupt.wait(wall):
            return duration * min(1.0, (time.monotonic() - start) / wall)
        return duration

    # ------------------------------------------------------------------ state
    @property
    def hands(self) -> dict[str, str | None]:
        held: dict[str, str | None] = {h: None for h in HANDS}
        for obj in self.objects.values():
            if obj.held_by in HANDS:
                held[obj.held_by] = obj.name
        return held

    @property
    def human_holds(self) -> list[str]:
        return [o.name for o in self.objects.values() if o.held_by == HUMAN]

    def snapshot(self) -> dict[str, Any]:
        """The state as plain Python data (for tests and the benchmark)."""
        with self._lock:
            return {
                "clock": round(self.clock, 6),
                "base_pose": [round(float(v), 6) for v in self.base_pose],
                "hands": self.hands,
                "human_holds": self.human_holds,
                "objects": {n: {"location": o.location, "held_by": o.held_by,
                                "pose": [round(float(v), 6) for v in self._object_pose(o)]}
                            for n, o in self.objects.items()},
                "skill_calls": len(self.log),
            }

    def checkpoint(self) -> dict[str, Any]:
        """The state, unrounded, with the failures still planned and the random state: what
        :meth:`restore` needs to start another world of this file where this one is now."""
        with self._lock:
            return {"objects": {n: {"location": o.location, "held_by": o.held_by,
                                    "pose": o.pose.copy()} for n, o in self.objects.items()},
                    "base_pose": self.base_pose.copy(), "clock": self.clock,
                    "failures_left": copy.deepcopy(self._failures_left),
                    "random_state": self._rng.getstate()}

    def restore(self, state: dict[str, Any]) -> HouseholdWorld:
        """Take over a :meth:`checkpoint` or a perceived state of the same form (``objects``:
        name -> location, held_by, pose; optional ``base_pose``, ``clock``,
        ``failures_left``, ``random_state``); what is missing keeps its current value.
        Raises ValueError for an object this world does not have. Returns self."""
        with self._skill_lock, self._lock:
            for name, obj in (state.get("objects") or {}).items():
                if name not in self.objects:
                    raise ValueError(f"the world {self.name!r} has no object {name!r}")
                mine = self.objects[name]
                mine.location, mine.held_by = obj.get("location"), obj.get("held_by")
                if obj.get("pose") is not None:
                    mine.pose = _vec(obj["pose"], 6, f"object {name} pose")
            if state.get("base_pose") is not None:
                self.base_pose = _vec(state["base_pose"], 3, "base pose")
            self.clock = float(state.get("clock", self.clock))
            if "failures_left" in state:
                self._failures_left = copy.deepcopy(state["failures_left"])
            if "random_state" in state:
                self._rng.setstate(state["random_state"])
        return self

    def replay_world(self, state: dict[str, Any]) -> HouseholdWorld:
        """A new world of this file in the state of a :meth:`checkpoint` (the replay check
        replays a learned example in it)."""
        return HouseholdWorld(self.config, source=self.source).restore(state)

    def end(self) -> WorldEnd:
        """Where the objects are now, as the replay check compares ends: each object's
        ``location`` and ``held_by`` (the base pose is not compared)."""
        objects = self.snapshot()["objects"]
        return WorldEnd("household", {n: (o["location"], o["held_by"]) for n, o in objects.items()})

    def _object_pose(self, obj: _Object) -> np.ndarray:
        if obj.held_by in HANDS:
            dx, dy, z = HAND_OFFSETS[obj.held_by]
            x, y, yaw = self.base_pose
            c, s = math.cos(yaw), math.sin(yaw)
            return np.array([x + c * dx - s * dy, y + s * dx + c * dy, z, 0.0, 0.0, yaw])
        if obj.held_by == HUMAN:
            return np.array([self.human_xy[0], self.human_xy[1], 1.1, 0.0, 0.0, 0.0])
        return obj.pose.copy()

    def _near(self, location: str) -> bool:
        pose = self._locations.get(location)
        return (
            pose is not None
            and float(np.hypot(*(self.base_pose[:2] - pose[:2]))) <= self.reach_tolerance
        )

    # ------------------------------------------------------------------ protocol: perception
    def scene(self) -> list[SceneObject]:
        with self._lock:
            out = [SceneObject(name=o.name, object_class=o.object_class, pose=self._object_pose(o),
                               location=o.location, affordances=o.affordances, held_by=o.held_by)
                   for o in self.objects.values()]
            out += [SceneObject(name=f.name, object_class=f.object_class,
                                pose=np.array([f.xy[0], f.xy[1], f.height, 0.0, 0.0, f.yaw]),
                                location=None, affordances=f.affordances)
                    for f in self.furniture.values()]
            return out

    def named_locations(self) -> dict[str, np.ndarray]:
        return {n: p.copy() for n, p in self._locations.items()}

    def robot_pose(self) -> np.ndarray:
        with self._lock:
            return self.base_pose.copy()

    # ------------------------------------------------------------------ skill plumbing
    def _injected(self, skill: str, key: str) -> bool:
        plan = self._failures_left.get(skill) or {}
        for k in (key, "*"):
            if plan.get(k, 0) > 0:
                plan[k] -= 1
                return True
        return (
            skill in self._random_skills
            and self._random_p > 0
            and self._rng.random() < self._random_p
        )

    def _record(self, skill: str, args: dict[str, Any], result: str, duration: float,
                reason: str = "", speed_factor: float | None = None) -> str:
        with self._lock:
            start = self.clock
            self.clock += duration
            self.log.append(SkillCall(skill=skill, args=args, result=result, duration=duration,
                                      start=start, speed_factor=speed_factor, reason=reason))
        return result

    def _act(self, skill: str, args: dict[str, Any], duration: float, key: str,
             effect: Callable[[], None]) -> str:
        """The timed part of a one-step skill whose preconditions hold: wait, then the injected
        failure or the effect. An interrupt while waiting changes nothing."""
        passed = self._pass_time(duration)
        if self._interrupt.is_set():
            return self._record(skill, args, FAILURE, passed, CANCELED)
        if self._injected(skill, key):
            return self._record(skill, args, FAILURE, duration, "injected failure")
        with self._lock:
            effect()
        return self._record(skill, args, SUCCESS, duration)

    def _travel_time(self, start: np.ndarray, goal: np.ndarray, speed_factor: float) -> float:
        dist = float(np.hypot(*(goal[:2] - start[:2])))
        turn = abs(_wrap(float(goal[2] - start[2])))
        return dist / (self.base_speed * speed_factor) + turn / (self.turn_speed * speed_factor)

    def _drive(self, goal: np.ndarray, duration: float) -> tuple[bool, float]:
        """Move the base to goal, reporting progress (and sleeping if time_scale > 0).

        Returns (arrived, fraction of the way done); an interrupt stops the base where it is."""
        start = self.base_pose.copy()
        delta = np.array([goal[0] - start[0], goal[1] - start[1], _wrap(float(goal[2] - start[2]))])

        def put(frac: float) -> None:
            pose = start + frac * delta
            self.base_pose = np.array([pose[0], pose[1], _wrap(float(pose[2]))])

        steps = PROGRESS_STEPS if duration > 0 else 1
        for i in range(1, steps + 1):
            step = duration / steps
            passed = self._pass_time(step)
            if self._interrupt.is_set():
                frac = (i - 1 + (passed / step if step > 0 else 0.0)) / steps
                put(frac)
                return False, frac
            put(i / steps)
            if self.progress is not None:
                self.progress(i / steps)
        self.base_pose = np.array([goal[0], goal[1], _wrap(float(goal[2]))])
        return True, 1.0

    def _in_room(self, xy: np.ndarray) -> bool:
        return all(lo <= xy[i] <= hi for i, axis in enumerate(("x", "y"))
                   for lo, hi in [self.room.get(axis, (-math.inf, math.inf))])

    def _location_name_of(self, pose: np.ndarray) -> str:
        for name, p in self._locations.items():
            if np.allclose(p[:2], pose[:2], atol=1e-3):
                return name
        return "*"

    # ------------------------------------------------------------------ protocol: skills
    def move_to(self, pose: np.ndarray, speed_factor: float) -> str:
        with self._skill():
            goal = _vec(pose, 3, "move_to pose")
            args = {"pose": [float(v) for v in goal], "location": self._location_name_of(goal)}
            if not speed_factor > 0:
                return self._record(
                    "move_to", args, FAILURE, 0.0, "speed_factor must be > 0", speed_factor
                )
            if not self._in_room(goal[:2]):
                return self._record(
                    "move_to", args, FAILURE, 0.0, "target outside the room", speed_factor
                )
            duration = self._travel_time(self.base_pose, goal, speed_factor)
            if self._injected("move_to", args["location"]):
                return self._record(
                    "move_to", args, FAILURE, duration / 2, "injected failure", speed_factor
                )
            arrived, frac = self._drive(goal, duration)
            if not arrived:
                return self._record(
                    "move_to", args, FAILURE, duration * frac, CANCELED, speed_factor
                )
            return self._record("move_to", args, SUCCESS, duration, "", speed_factor)

    def _furniture_of(self, obj: _Object) -> _Furniture | None:
        loc = obj.location or ""
        return self.furniture.get(loc[len("on_"):]) if loc.startswith("on_") else None

    def grasp(self, object_name: str, hand: str) -> str:
        with self._skill():
            args = {"object_name": object_name, "hand": hand}
            obj = self.objects.get(object_name)
            reason = ""
            if obj is None or GRASP not in obj.affordances:
                reason = "no such graspable object"
            elif hand not in HANDS:
                reason = f"invalid hand {hand!r}"
            elif obj.held_by is not None:
                reason = f"object is held by {obj.held_by}"
            elif self.hands[hand] is not None:
                reason = f"{hand} hand is not free"
            elif obj.extra.get("bimanual") or "ladder" in obj.object_class:
                reason = f"needs the {BRING_LADDER_SKILL} skill"
            else:
                furn = self._furniture_of(obj)
                nav = navigation_location(furn.name) if furn else obj.location
                if nav is None or not self._near(nav):
                    reason = "object out of reach: move to its location first"
                elif furn is not None and furn.height > self.max_reach_height:
                    reason = "surface too high"
            if reason:
                return self._record("grasp", args, FAILURE, 0.0, reason)

            def take() -> None:
                obj.held_by, obj.location = hand, None
            return self._act("grasp", args, self.durations["grasp"], object_name, take)

    def place(self, object_name: str, destination: str) -> str:
        with self._skill():
            args = {"object_name": object_name, "destination": destination}
            obj = self.objects.get(object_name)
            furn = self.furniture.get(destination)
            reason = ""
            if obj is None or obj.held_by not in HANDS:
                reason = "object not in a hand"
            elif furn is None or PLACE_ON_TOP not in furn.affordances:
                reason = f"cannot place on {destination!r}"
            elif not self._near(navigation_location(destination)):
                reason = "destination out of reach: move in front of it first"
            elif furn.height > self.max_reach_height:
                reason = "surface too high"
            if reason:
                return self._record("place", args, FAILURE, 0.0, reason)

            def put_down() -> None:
                # on the surface in front of the robot, spread a little per object there
                n_there = sum(
                    1 for o in self.objects.values() if o.location == surface_name(destination)
                )
                rel = self.base_pose[:2] - furn.xy
                c, s = math.cos(-furn.yaw), math.sin(-furn.yaw)
                local = np.array([c * rel[0] - s * rel[1], c * rel[1] + s * rel[0]])
                local = np.clip(local * 0.2, -0.2, 0.2) + np.array(
                    [0.08 * ((n_there % 3) - 1), 0.0]
                )
                obj.pose = self._pose_on(furn, local, obj.size)
                obj.held_by, obj.location = None, surface_name(destination)
            return self._act("place", args, self.durations["place"], object_name, put_down)

    def handover(self, object_name: str) -> str:
        with self._skill():
            args = {"object_name": object_name}
            obj = self.objects.get(object_name)
            reason = ""
            if obj is None or obj.held_by not in HANDS:
                reason = "object not in a hand"
            elif not self._near(HANDOVER_LOCATION):
                reason = f"human out of reach: move to {HANDOVER_LOCATION} first"
            if reason:
                return self._record("handover", args, FAILURE, 0.0, reason)

            def give() -> None:
                obj.held_by, obj.location = HUMAN, None
            return self._act("handover", args, self.durations["handover"], object_name, give)

    def receive(self, object_name: str, hand: str) -> str:
        with self._skill():
            args = {"object_name": object_name, "hand": hand}
            obj = self.objects.get(object_name)
            reason = ""
            if hand not in HANDS or self.hands[hand] is not None:
                reason = f"{hand} hand is not free"
            elif obj is None or obj.held_by != HUMAN:
                reason = "the human does not hold this object"
            elif not self._near(HANDOVER_LOCATION):
                reason = f"human out of reach: move to {HANDOVER_LOCATION} first"
            if reason:
                return self._record("receive", args, FAILURE, 0.0, reason)

            def take() -> None:
                obj.held_by, obj.location = hand, None
            return self._act("receive", args, self.durations["receive"], object_name, take)

    def run_skill(self, name: str, arguments: dict) -> str:
        with self._skill():
            args = {
                k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in arguments.items()
            }
            if name != BRING_LADDER_SKILL:
                return self._record(name, args, FAILURE, 0.0, f"unknown skill {name!r}")
            return self._bring_ladder(args)

    def _bring_ladder(self, args: dict[str, Any]) -> str:
        """Walk to the ladder, take it with both hands, carry it to the target and set it up."""
        obj = self.objects.get(str(args.get("object_name")))
        location = args.get("location_name")
        reason = ""
        goal = None
        if obj is None or "ladder" not in obj.object_class:
            reason = "no such ladder"
        elif obj.held_by is not None:
            reason = f"ladder is held by {obj.held_by}"
        elif any(self.hands.values()):
            reason = "both hands must be free"
        else:
            goal = (
                self._locations[location].copy()
                if location in self._locations
                else _vec(args.get("pose"), 3, "bring_ladder pose")
                if args.get("pose") is not None
                else None
            )
            if goal is None:
                reason = "no target pose"
            elif not self._in_room(goal[:2]):
                reason = "target outside the room"
        if reason:
            return self._record(BRING_LADDER_SKILL, args, FAILURE, 0.0, reason)
        # approach the ladder from 0.6 m in front of its stored pose, facing it
        lx, ly, lyaw = obj.pose[0], obj.pose[1], obj.pose[5]
        pickup = np.array(
            [lx + 0.6 * math.cos(lyaw), ly + 0.6 * math.sin(lyaw), _wrap(lyaw + math.pi)]
        )
        duration = (
            self._travel_time(self.base_pose, pickup, 1.0)
            + self.durations["ladder_pickup"]
            + self._travel_time(pickup, goal, self.ladder_speed_factor)
            + self.durations["ladder_setup"]
        )
        if self._injected(BRING_LADDER_SKILL, obj.name):
            return self._record(BRING_LADDER_SKILL, args, FAILURE, duration, "injected failure")
        arrived, frac = self._drive(goal, duration)
        if not arrived:
            return self._record(BRING_LADDER_SKILL, args, FAILURE, duration * frac, CANCELED)
        gx, gy, gyaw = goal
        with self._lock:
            obj.pose = np.array(
                [gx + 0.7 * math.cos(gyaw), gy + 0.7 * math.sin(gyaw), 0.0, 0.0, 0.0, gyaw]
            )
            obj.location = location if location in self._locations else None
            obj.extra["state"] = "open"
        return self._record(BRING_LADDER_SKILL, args, SUCCESS, duration)


__all__ = ["HouseholdWorld", "SkillCall", "CANCELED"]

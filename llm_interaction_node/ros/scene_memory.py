"""What the robot currently perceives: the latest Scene message plus static knowledge.

Perception publishes the whole scene (``llm_interaction_interfaces/msg/Scene``); the
memory keeps the latest valid one. Entries with no name, a duplicate name or a non-finite
pose are dropped (with a warning), never the whole message. Furniture from the static
knowledge fills in what perception does not report; objects whose message carries no
affordances get their class's configured ones. Callbacks store, the worker reads:
a lock, never a wait, in the callback.
"""
from __future__ import annotations

import math
import threading
import time
from typing import Callable

import numpy as np

from ..core.apis.humanoid import SceneObject
from ..core.apis.knowledge import StaticKnowledge
from .conversions import msg_to_scene_object

MAX_OBJECTS = 1000


class SceneMemory:
    def __init__(self, knowledge: StaticKnowledge, warn: Callable[[str], None] = lambda m: None):
        self.knowledge = knowledge
        self._warn = warn
        self._lock = threading.Condition()
        self._objects: list[SceneObject] = []
        self._stamp_ns = 0          # header stamp of the latest scene (0 if none)
        self.updates = 0
        self.dropped = 0

    def update(self, msg) -> None:
        """Executor callback for the scene topic."""
        objects, seen, problems = [], set(), []
        for entry in list(msg.objects)[:MAX_OBJECTS]:
            try:
                obj = msg_to_scene_object(entry)
            except Exception as exc:  # noqa: BLE001 - garbage in one entry
                problems.append(f"unreadable entry ({exc})")
                continue
            if not obj.name or obj.name in seen:
                problems.append(f"entry without a unique name ({obj.name!r})")
                continue
            if not all(math.isfinite(v) for v in obj.pose):
                problems.append(f"{obj.name}: non-finite pose")
                continue
            if not obj.affordances:
                obj = SceneObject(obj.name, obj.object_class, obj.pose, obj.location,
                                  self.knowledge.affordances_of(obj.object_class), obj.held_by)
            seen.add(obj.name)
            objects.append(obj)
        if len(msg.objects) > MAX_OBJECTS:
            problems.append(f"{len(msg.objects) - MAX_OBJECTS} entries beyond {MAX_OBJECTS} ignored")
        if problems:
            self.dropped += len(problems)
            self._warn("scene message: dropped " + "; ".join(problems[:5]))
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        with self._lock:
            self._objects = objects
            self._stamp_ns = stamp
            self.updates += 1
            self._lock.notify_all()

    def objects(self) -> list[SceneObject]:
        """Perceived objects, then configured furniture that perception did not report."""
        with self._lock:
            perceived = list(self._objects)
        names = {o.name for o in perceived}
        return perceived + [f for f in self.knowledge.furniture if f.name not in names]

    def locations(self) -> dict[str, np.ndarray]:
        return {n: p.copy() for n, p in self.knowledge.locations.items()}

    def wait_for_stamp(self, min_stamp_ns: int, timeout: float) -> bool:
        """Block until a scene stamped at or after ``min_stamp_ns`` arrived (or timeout)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._stamp_ns < min_stamp_ns:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def wait_for_first(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            while self.updates == 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

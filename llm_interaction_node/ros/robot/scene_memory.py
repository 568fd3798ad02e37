"""What the robot currently perceives: the latest Scene message plus static knowledge.

Perception publishes the whole scene (``llm_interaction_interfaces/msg/Scene``). A clean
message replaces the view. A message with bad entries (no name, a non-finite pose, an
unreadable entry, a name given twice) only updates the view with its good entries: nothing
else vanishes (an object whose entry was bad keeps its last good state), and a duplicated
name is reported and the previous view of it stays (with none yet, the first entry, said
so in the warning), never silently the first. Furniture from the static knowledge fills in what \
perception does not
report; objects whose message carries no affordances get their class's configured ones.
Callbacks store, the worker reads: a lock, never a wait, in the callback.
"""
from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Callable

import numpy as np

from ...core.apis.humanoid import SceneObject
from ...core.apis.knowledge import StaticKnowledge
from ..conversions import msg_to_scene_object

MAX_OBJECTS = 1000


class SceneMemory:
    def __init__(self, knowledge: StaticKnowledge, warn: Callable[[str], None] = lambda m: None):
        self.knowledge = knowledge
        self._warn = warn
        self._lock = threading.Condition()
        self._objects: list[SceneObject] = []
        self._stamp_ns = 0          # header stamp of the latest scene (0 if none)
        self.updates = 0
        self.dropped = 0            # bad entries seen (duplicates included)
        self.duplicates = 0         # names given more than once in one message

    def update(self, msg) -> None:
        """Executor callback for the scene topic."""
        good, problems = [], []
        for entry in list(msg.objects)[:MAX_OBJECTS]:
            try:
                obj = msg_to_scene_object(entry)
            except Exception as exc:  # noqa: BLE001 - garbage in one entry
                problems.append(f"unreadable entry {getattr(entry, 'name', '')!r} ({exc})")
                continue
            if not obj.name:
                problems.append("an entry without a name")
                continue
            if not all(math.isfinite(v) for v in obj.pose):
                problems.append(f"{obj.name}: non-finite pose")
                continue
            if not obj.affordances:
                obj = SceneObject(obj.name, obj.object_class, obj.pose, obj.location,
                                  self.knowledge.affordances_of(obj.object_class), obj.held_by)
            good.append(obj)
        if len(msg.objects) > MAX_OBJECTS:
            problems.append(
                f"{len(msg.objects) - MAX_OBJECTS} entries beyond {MAX_OBJECTS} ignored"
            )
        counts = Counter(o.name for o in good)
        duplicated = sorted(name for name, n in counts.items() if n > 1)
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        with self._lock:
            previous = {o.name for o in self._objects}
            for name in duplicated:
                kept = "kept the previous view of it" if name in previous else \
                    "no previous view: kept the first entry"
                problems.append(f"{name!r} given {counts[name]} times ({kept})")
            first: dict[str, SceneObject] = {}
            for o in good:
                if o.name not in duplicated or o.name not in previous:
                    first.setdefault(o.name, o)
            if problems:            # a partial message: update, keep everything else
                objects = [first.pop(o.name, o) for o in self._objects] + list(first.values())
            else:
                objects = list(first.values())
            self._objects = objects
            self._stamp_ns = stamp
            self.updates += 1
            self.dropped += len(problems)
            self.duplicates += len(duplicated)
            self._lock.notify_all()
        if problems:
            self._warn(f"scene message: dropped {'; '.join(problems[:5])}"
                       + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
                       + f"; {len(good)} good entries updated the view, the other "
                       "objects keep their last good state")

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

"""What the robot currently perceives: the latest Scene message plus static knowledge.

Perception publishes the whole scene (``llm_interaction_interfaces/msg/Scene``). A clean
message replaces the view. A message with bad entries (no name, a non-finite pose, an
unreadable entry, a name given twice) only updates the view with its good entries: nothing
else vanishes (an object whose entry was bad keeps its last good state), and a duplicated
name is reported and the previous view of it stays (with none yet, the first entry, said
so in the warning), never silently the first. Furniture from the static knowledge fills in what \
perception does not
report; objects whose message carries no affordances get their class's configured ones.
A scene stamped before the one held is late and dropped (an unstamped one, stamp 0, counts
as new). An empty scene while the view holds objects is a glitch until perception says so
again: the view is kept (with a warning) until ``empty_messages`` empty scenes came in a row
and the first of them is ``empty_after_s`` old (:class:`SceneSettings`, the node's
``scene.*`` parameters), and never empties while a console statement runs: the node calls
:meth:`SceneMemory.statement_started` before each statement and
:meth:`SceneMemory.statement_ended` after it, so a statement keeps the objects it started
with (issue 60: ``list_objects()`` listed 6 objects and a ``grasp()`` of the same turn
failed on ``[]``); an empty view takes effect at a statement boundary. A scene with objects
replaces the view at once, also mid-statement (a skill's effect must be seen).
Callbacks store, the worker reads: a lock, never a wait, in the callback.
"""
from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...core.apis.humanoid import SceneObject
from ...core.apis.knowledge import StaticKnowledge
from ...core.settings.config import setting
from ..conversions import msg_to_scene_object

MAX_OBJECTS = 1000
WARN_EVERY_S = 10.0         # the same kind of warning at most this often


@dataclass
class SceneSettings:
    """``scene.*``: when the interaction node takes an empty scene for an empty world."""

    empty_messages: int = setting(
        2, "an empty scene while the view holds objects is a glitch until this many empty "
        "scenes came in a row (and the first is scene.empty_after_s old); never mid-statement",
        minimum=1)
    empty_after_s: float = setting(
        2.0, "... and until the first of those empty scenes is this old (seconds)", minimum=0.0)


_DEFAULTS = SceneSettings()


class SceneMemory:
    def __init__(self, knowledge: StaticKnowledge, warn: Callable[[str], None] = lambda m: None,
                 empty_after_s: float = _DEFAULTS.empty_after_s,
                 empty_messages: int = _DEFAULTS.empty_messages):
        self.knowledge = knowledge
        self._warn = warn
        self.empty_after_s = empty_after_s
        self.empty_messages = empty_messages
        self._lock = threading.Condition()
        self._objects: list[SceneObject] = []
        self._stamp_ns = 0          # header stamp of the latest scene (0 if none)
        self._empty_since: float | None = None   # empty scenes held back since (monotonic)
        self._empty_count = 0       # ... how many of them in a row
        self._in_statement = False  # a console statement runs: the view does not empty
        self._warned: dict[str, tuple[float, int]] = {}   # kind -> (last warned, held since)
        self.updates = 0
        self.dropped = 0            # bad entries seen (duplicates included)
        self.duplicates = 0         # names given more than once in one message
        self.late = 0               # scenes older than the one held, dropped

    def _warn_limited(self, kind: str, text: str) -> None:
        """Warn, at most every WARN_EVERY_S per kind (a flood is counted, not logged)."""
        now = time.monotonic()
        last, held = self._warned.get(kind, (-WARN_EVERY_S, 0))
        if now - last < WARN_EVERY_S:
            self._warned[kind] = (last, held + 1)
            return
        self._warned[kind] = (now, 0)
        self._warn(text + (f" ({held} more since the last warning)" if held else ""))

    def update(self, msg) -> None:
        """Executor callback for the scene topic."""
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        with self._lock:
            if 0 < stamp < self._stamp_ns:
                self.late += 1
                late_by = (self._stamp_ns - stamp) / 1e9
                self._warn_limited("late", f"scene message: dropped, stamped {late_by:.3f} s "
                                   "before the scene held (it came late)")
                return
            if not msg.objects and self._objects:
                if self._empty_since is None:
                    self._empty_since = time.monotonic()
                self._empty_count += 1
                if stamp:
                    self._stamp_ns = stamp
                self.updates += 1
                self._lock.notify_all()
                self._warn_limited("empty", f"scene message: no objects; kept the last view "
                                   f"of {len(self._objects)} objects (taken as empty after "
                                   f"{self.empty_messages} empty scenes in a row over "
                                   f"{self.empty_after_s:g} s, between two statements)")
                return
            self._empty_since, self._empty_count = None, 0
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
            self._stamp_ns = max(self._stamp_ns, stamp)
            self.updates += 1
            self.dropped += len(problems)
            self.duplicates += len(duplicated)
            self._lock.notify_all()
        if problems:
            self._warn(f"scene message: dropped {'; '.join(problems[:5])}"
                       + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
                       + f"; {len(good)} good entries updated the view, the other "
                       "objects keep their last good state")

    def statement_started(self) -> None:
        """A console statement starts (a statement boundary): an empty scene that is due
        empties the view now, then the view keeps its objects until :meth:`statement_ended`."""
        with self._lock:
            self._empty_if_due()
            self._in_statement = True

    def statement_ended(self) -> None:
        """The statement ended: an empty scene that is due empties the view at the next look."""
        with self._lock:
            self._in_statement = False

    def _empty_if_due(self) -> None:
        """With the lock: empty the view if perception said so often and long enough."""
        if self._empty_since is None or self._in_statement \
                or self._empty_count < self.empty_messages \
                or time.monotonic() - self._empty_since < self.empty_after_s:
            return
        self._warn(f"scene: perception has reported no objects {self._empty_count} times in "
                   f"{time.monotonic() - self._empty_since:.1f} s; the view is empty now")
        self._empty_since, self._empty_count = None, 0
        self._objects = []

    def objects(self) -> list[SceneObject]:
        """Perceived objects, then configured furniture that perception did not report."""
        with self._lock:
            self._empty_if_due()
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

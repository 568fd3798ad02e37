"""Skill goals and results as the interaction node sees them, on a topic.

A skill is an action: its goal and result travel over services (``_action/send_goal``,
``_action/get_result``), which neither ``ros2 bag record`` nor Foxglove show. So the node
publishes each skill call twice on ``interaction/skills`` (``std_msgs/String``, JSON):

* ``{"event": "goal", "call": N, "skill": "grasp", "action": "skills/grasp", "goal": {...}}``
  when the goal is about to be sent;
* ``{"event": "result", "call": N, "skill": ..., "status": "success" | "failure" | "stopped",
  "message": ..., "infrastructure": bool, "wall_s": ..., "result": {...} | null}`` when the
  call ended (``stopped``: a stop request ended it).

``goal`` and ``result`` are the action messages as plain data (:func:`message_to_data`).
:class:`SkillEventClient` wraps a :class:`~.skill_client.SkillClient` (same ``run``), so the
robot and the skills stay unchanged; it also remembers the base pose the last ``move_to``
ended at, the robot's pose in the node's own markers.
"""
from __future__ import annotations

import array
import itertools
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.transcript.errors import InteractionAborted
from ..conversions import msg_to_base_pose

GOAL, RESULT = "goal", "result"
STOPPED = "stopped"


def message_to_data(msg: Any) -> Any:
    """A ROS message (or a field value) as JSON-able plain data: nested messages -> dicts,
    arrays -> lists."""
    fields = getattr(type(msg), "get_fields_and_field_types", None)
    if fields is not None:
        return {name: message_to_data(getattr(msg, name)) for name in fields()}
    if isinstance(msg, (bytes, bytearray)):
        return list(msg)
    if isinstance(msg, (list, tuple, array.array, np.ndarray)):
        return [message_to_data(v) for v in msg]
    if isinstance(msg, np.generic):
        return msg.item()
    return msg


class SkillEventClient:
    """A SkillClient that publishes each call's goal and result (``publish(text)``)."""

    _calls = itertools.count(1)

    def __init__(self, skill: str, client, publish: Callable[[str], None],
                 on_outcome: Callable[[str, Any], None] = lambda skill, outcome: None):
        self.skill, self.inner, self._publish, self._on_outcome = skill, client, publish, on_outcome

    def __getattr__(self, name: str) -> Any:          # name, client, action_type, ...
        return getattr(self.inner, name)

    def _send(self, event: dict) -> None:
        try:
            self._publish(json.dumps(event, default=str))
        except Exception:  # noqa: BLE001 - viewing must never break a skill call
            pass

    def run(self, goal, timeout: float):
        call = next(self._calls)
        head = {"call": call, "skill": self.skill, "action": getattr(self.inner, "name", "")}
        self._send({"event": GOAL, **head, "goal": message_to_data(goal)})
        started = time.monotonic()
        try:
            outcome = self.inner.run(goal, timeout)
        except InteractionAborted as exc:
            self._send({"event": RESULT, **head, "status": STOPPED, "message": str(exc),
                        "infrastructure": False, "wall_s": round(time.monotonic() - started, 4),
                        "result": None})
            raise
        result = getattr(outcome, "result", None)
        self._send({"event": RESULT, **head, "status": outcome.status, "message": outcome.message,
                    "infrastructure": bool(outcome.infrastructure),
                    "wall_s": round(float(outcome.wall_s), 4),
                    "result": None if result is None else message_to_data(result)})
        self._on_outcome(self.skill, outcome)
        return outcome


class BasePoseTracker:
    """The base pose ``[x, y, yaw]`` the last move_to ended at (its result's ``final_pose``;
    a move that failed half-way too), or None before the first one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pose: np.ndarray | None = None

    def on_outcome(self, skill: str, outcome) -> None:
        final = getattr(getattr(outcome, "result", None), "final_pose", None)
        if skill == "move_to" and final is not None and final.header.frame_id:
            with self._lock:
                self._pose = msg_to_base_pose(final)

    @property
    def pose(self) -> np.ndarray | None:
        with self._lock:
            return None if self._pose is None else self._pose.copy()

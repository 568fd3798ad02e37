"""The humanoid robot over ROS: skills are action goals, the scene comes from perception.

Implements :class:`~llm_interaction_node.core.apis.humanoid.HumanoidRobot`, so the API
functions the LLM calls (with their checks and hints) are the same as in simulation.
After a skill the robot waits briefly for a scene that is at least as new as the skill's
end, so the next call's checks see the skill's effect (``scene_refresh_s``).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from llm_interaction_interfaces.action import Grasp, Handover, MoveTo, Place, Receive, RunSkill

from ..core.apis.humanoid import FAILURE, SceneObject
from .conversions import base_pose_to_msg
from .scene_memory import SceneMemory
from .skill_client import SkillClient, SkillOutcome

SKILL_TYPES = {"move_to": MoveTo, "grasp": Grasp, "place": Place, "handover": Handover,
               "receive": Receive, "run_skill": RunSkill}


@dataclass
class SkillTimeouts:
    move_to: float = 120.0
    grasp: float = 60.0
    place: float = 60.0
    handover: float = 60.0
    receive: float = 60.0
    run_skill: float = 180.0
    scene_refresh: float = 1.0

    @classmethod
    def from_dict(cls, values: dict[str, float]) -> "SkillTimeouts":
        return cls(**{k: float(v) for k, v in values.items() if k in cls.__dataclass_fields__})


@dataclass
class RosHumanoidRobot:
    """``skills``: skill name -> SkillClient; ``now_ns``: the node's clock."""

    skills: dict[str, SkillClient]
    scene_memory: SceneMemory
    now_ns: Callable[[], int]
    timeouts: SkillTimeouts = field(default_factory=SkillTimeouts)
    on_failure: Callable[[str, SkillOutcome], None] = lambda skill, outcome: None
    outcomes: list[tuple[str, SkillOutcome]] = field(default_factory=list)

    # -- perception ---------------------------------------------------------------------
    def scene(self) -> list[SceneObject]:
        return self.scene_memory.objects()

    def named_locations(self) -> dict[str, np.ndarray]:
        return self.scene_memory.locations()

    # -- skills -------------------------------------------------------------------------
    def _run(self, skill: str, goal) -> str:
        started_ns = self.now_ns()
        outcome = self.skills[skill].run(goal, getattr(self.timeouts, skill))
        self.outcomes.append((skill, outcome))
        del self.outcomes[:-100]
        if outcome.infrastructure:
            self.on_failure(skill, outcome)
            return f"{FAILURE}: {outcome.message}"
        self.scene_memory.wait_for_stamp(started_ns, self.timeouts.scene_refresh)
        return outcome.status

    def move_to(self, pose: np.ndarray, speed_factor: float) -> str:
        return self._run("move_to", MoveTo.Goal(target=base_pose_to_msg(pose),
                                                speed_factor=float(speed_factor)))

    def grasp(self, object_name: str, hand: str) -> str:
        return self._run("grasp", Grasp.Goal(object_name=object_name, hand=hand or ""))

    def place(self, object_name: str, destination: str) -> str:
        return self._run("place", Place.Goal(object_name=object_name, destination=destination))

    def handover(self, object_name: str) -> str:
        return self._run("handover", Handover.Goal(object_name=object_name))

    def receive(self, object_name: str, hand: str) -> str:
        return self._run("receive", Receive.Goal(object_name=object_name, hand=hand))

    def run_skill(self, name: str, arguments: dict) -> str:
        return self._run("run_skill", RunSkill.Goal(
            name=name, arguments_json=json.dumps(arguments, default=_jsonable)))


def _jsonable(value: Any):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")

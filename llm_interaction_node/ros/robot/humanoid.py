"""The humanoid robot over ROS: skills are action goals, the scene comes from perception.

Implements :class:`~llm_interaction_node.core.apis.humanoid.HumanoidRobot`, so the API
functions the LLM calls (with their checks and hints) are the same as in simulation.
After a skill the robot waits briefly for a scene that is at least as new as the skill's
end, so the next call's checks see the skill's effect (``scene_refresh_s``). A skill returns
exactly what the robot protocol promises ('success' or 'failure'; the API says why in the
world's terms); why a skill could not run at all reaches the node as a SkillOutcome
(``on_failure``, ``outcomes``) and the log. The base pose is not perceived: the robot knows
it from the last move's result (``final_pose``), and not before its first move.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, make_dataclass
from typing import Any

import numpy as np
from llm_interaction_interfaces.action import Grasp, Handover, MoveTo, Place, Receive, RunSkill

from ...core.apis.humanoid import FAILURE, SUCCESS, SceneObject
from ...core.apis.sets import HUMANOID
from ...core.settings.config import setting
from ..conversions import base_pose_to_msg, msg_to_base_pose
from ..skills import SKILLS
from .scene_memory import SceneMemory
from .skill_client import ACCEPT_S, SERVER_WAIT_S, SkillClient, SkillOutcome

_TIMEOUTS = [
    ("server_wait_s", float, setting(SERVER_WAIT_S, "wait for a skill's action server before "
                                     "failing the call")),
    ("accept_s", float, setting(ACCEPT_S, "wait for a goal to be accepted")),
    *[(skill.timeout_field, float, setting(skill.result_s, skill.about)) for skill in SKILLS],
    ("scene_refresh_s", float, setting(1.0, "after a skill, wait this long for a scene at "
                                       "least as new")),
    ("first_scene_s", float, setting(10.0, "at start, wait this long for perception before "
                                     "serving")),
]


def _result_s(self, skill: str) -> float:
    """The result timeout of one of SKILLS."""
    return getattr(self, _TIMEOUT_FIELDS[skill])


_TIMEOUT_FIELDS = {skill.name: skill.timeout_field for skill in SKILLS}
SkillTimeouts = make_dataclass("SkillTimeouts", _TIMEOUTS, namespace={"result_s": _result_s})
SkillTimeouts.__module__ = __name__
SkillTimeouts.__doc__ = ("The node's ``timeouts.*`` parameters, in seconds (derived into the "
                         "parameter list); one result timeout per skill of ``ros/skills.py``.")


@dataclass
class RosHumanoidRobot:
    """``skills``: skill name -> SkillClient; ``now_ns``: the node's clock."""

    API_SET = HUMANOID                  # the API set this robot implements (not a field)

    skills: dict[str, SkillClient]
    scene_memory: SceneMemory
    now_ns: Callable[[], int]
    timeouts: SkillTimeouts = field(default_factory=SkillTimeouts)
    on_failure: Callable[[str, SkillOutcome], None] = lambda skill, outcome: None
    outcomes: list[tuple[str, SkillOutcome]] = field(default_factory=list)
    pose: np.ndarray | None = None      # the base pose from the last move (None: unknown)

    # -- perception ---------------------------------------------------------------------
    def scene(self) -> list[SceneObject]:
        return self.scene_memory.objects()

    def named_locations(self) -> dict[str, np.ndarray]:
        return self.scene_memory.locations()

    def robot_pose(self) -> np.ndarray | None:
        return None if self.pose is None else self.pose.copy()

    # -- skills -------------------------------------------------------------------------
    def _run(self, skill: str, goal) -> str:
        """'success' or 'failure', as the API promises; why a skill could not run at all
        goes to ``on_failure`` (the node tells the user) and ``outcomes``, not to the LLM."""
        started_ns = self.now_ns()
        outcome = self.skills[skill].run(goal, self.timeouts.result_s(skill))
        self.outcomes.append((skill, outcome))
        del self.outcomes[:-100]
        if outcome.infrastructure:
            self.on_failure(skill, outcome)
            return FAILURE
        self.scene_memory.wait_for_stamp(started_ns, self.timeouts.scene_refresh_s)
        return outcome.status

    def move_to(self, pose: np.ndarray, speed_factor: float) -> str:
        status = self._run("move_to", MoveTo.Goal(target=base_pose_to_msg(pose),
                                                  speed_factor=float(speed_factor)))
        result = self.outcomes[-1][1].result
        if result is not None and result.final_pose.header.frame_id:   # set: where it ended,
            self.pose = msg_to_base_pose(result.final_pose)               # also after a failure
        return status

    def grasp(self, object_name: str, hand: str) -> str:
        return self._run("grasp", Grasp.Goal(object_name=object_name, hand=hand or ""))

    def place(self, object_name: str, destination: str) -> str:
        return self._run("place", Place.Goal(object_name=object_name, destination=destination))

    def handover(self, object_name: str) -> str:
        return self._run("handover", Handover.Goal(object_name=object_name))

    def receive(self, object_name: str, hand: str) -> str:
        return self._run("receive", Receive.Goal(object_name=object_name, hand=hand))

    def run_skill(self, name: str, arguments: dict) -> str:
        status = self._run("run_skill", RunSkill.Goal(
            name=name, arguments_json=json.dumps(arguments, default=_jsonable)))
        if not self.outcomes[-1][1].infrastructure:     # it may have moved the base
            target = arguments.get("pose")
            self.pose = (np.asarray(target, dtype=float).copy()
                         if status == SUCCESS and target is not None else None)
        return status


def _jsonable(value: Any):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")

"""The humanoid's skills over ROS, declared once: each skill's action type, default result
timeout and (derived) default action server name.

Everything that lists the skills derives from :data:`SKILLS`: the interaction node's action
clients (:data:`SKILL_TYPES`) and its ``actions.*`` and ``timeouts.*`` parameters
(``interaction_parameters``, ``robot.humanoid.SkillTimeouts``), the simulator's action
servers and their ``actions.*`` parameters. Adding a skill is a row here, plus what only that
skill can say: the robot's method (``RosHumanoidRobot``), the simulator's handler, and the
params files that repeat the defaults (tests keep them equal)."""
from __future__ import annotations

from dataclasses import dataclass

from llm_interaction_interfaces.action import Grasp, Handover, MoveTo, Place, Receive, RunSkill


@dataclass(frozen=True)
class Skill:
    """One skill: ``name`` is the robot protocol's method and the key of every derived map."""

    name: str
    action: type            # its llm_interaction_interfaces action
    result_s: float         # default result timeout (parameter ``timeouts.<name>_s``)
    about: str              # the timeout parameter's description

    @property
    def action_name(self) -> str:
        """The action server's default name (relative: remappable, follows the namespace)."""
        return f"skills/{self.name}"

    @property
    def timeout_field(self) -> str:
        """The :class:`~.robot.humanoid.SkillTimeouts` field of its result timeout."""
        return f"{self.name}_s"


SKILLS: tuple[Skill, ...] = (
    Skill("move_to", MoveTo, 120.0, "result timeout of move_to (the goal is canceled after it)"),
    Skill("grasp", Grasp, 60.0, "result timeout of grasp"),
    Skill("place", Place, 60.0, "result timeout of place"),
    Skill("handover", Handover, 60.0, "result timeout of handover"),
    Skill("receive", Receive, 60.0, "result timeout of receive"),
    Skill("run_skill", RunSkill, 180.0, "result timeout of generic skills (bring_ladder, ...)"),
)
SKILL_TYPES: dict[str, type] = {skill.name: skill.action for skill in SKILLS}
SKILL_ACTIONS: dict[str, str] = {skill.name: skill.action_name for skill in SKILLS}

"""What the humanoid API needs from a robot (:class:`HumanoidRobot`) and the names of
surfaces and navigation locations (core/apis/humanoid.py says the conventions)."""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from .humanoid_scene import NAV_PREFIX, SURFACE_PREFIX, SceneObject


@runtime_checkable
class HumanoidRobot(Protocol):
    """What the API needs from a robot: scene knowledge and blocking skill calls.

    Skill calls block until the skill finished and return ``'success'`` or ``'failure'``.
    ``robot_pose`` is optional: without it a failure does not say where the robot is.
    """

    def scene(self) -> list[SceneObject]:
        """All known objects and furniture (perception + static knowledge), in a stable order."""
        ...

    def named_locations(self) -> dict[str, np.ndarray]:
        """Navigable locations, name -> base pose ``[x, y, yaw]``, in listing order."""
        ...

    def move_to(self, pose: np.ndarray, speed_factor: float) -> str:
        """Drive the base to ``[x, y, yaw]`` with velocity limit ``base_speed * speed_factor``."""
        ...

    def grasp(self, object_name: str, hand: str) -> str:
        """Grasp the object with ``'left'`` or ``'right'``."""
        ...

    def place(self, object_name: str, destination: str) -> str:
        """Put the held object on top of the furniture named ``destination`` (no ``on_``)."""
        ...

    def handover(self, object_name: str) -> str:
        """Hand the held object to the human."""
        ...

    def receive(self, object_name: str, hand: str) -> str:
        """Take the object the human hands over into the (free) ``hand``."""
        ...

    def run_skill(self, name: str, arguments: dict) -> str:
        """Robot-specific extra skills, e.g. ``'bring_ladder'``."""
        ...

    def robot_pose(self) -> np.ndarray | None:
        """The base pose ``[x, y, yaw]`` as far as the robot knows it, None if unknown."""
        ...


def surface_name(furniture: str) -> str:
    """``'table_0'`` -> ``'on_table_0'``."""
    return SURFACE_PREFIX + furniture


def navigation_location(furniture: str) -> str:
    """``'table_0'`` -> ``'inFrontOf_table_0'``."""
    return NAV_PREFIX + furniture


def is_ladder(obj: SceneObject) -> bool:
    """The ladder is brought with its own bimanual skill, never grasped directly."""
    return "ladder" in obj.object_class

"""Static scene knowledge of a humanoid robot: named locations, furniture, object classes.

A real robot's perception reports objects and their poses; what it does not perceive is
configured: where the robot can navigate to, the furniture (surfaces to put things on) and
which affordances an object class has. The file format is the world file format
(``config/worlds/*.yaml``: ``furniture`` with ``approach`` poses, ``locations``,
``objects`` with ``class`` / ``affordances``), so a simulated world doubles as the
knowledge file of the robot that acts in it. Dynamic parts of a world file (object
locations, the human, failures) are ignored here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..settings.world_file import read_world_file
from .humanoid import GRASP, PLACE_ON_TOP, SceneObject, navigation_location


def object_class(name: str) -> str:
    """``'mango-juice_0'`` -> ``'mango-juice'``."""
    return re.sub(r"_\d+$", "", name)


def _floats(value: Any, n: int, what: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float).reshape(-1)
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{what}: expected {n} finite numbers, got {value!r}")
    return arr


@dataclass
class StaticKnowledge:
    locations: dict[str, np.ndarray] = field(default_factory=dict)   # name -> [x, y, yaw]
    furniture: list[SceneObject] = field(default_factory=list)
    class_affordances: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, cfg: dict[str, Any]) -> StaticKnowledge:
        knowledge = cls()
        for name, spec in (cfg.get("furniture") or {}).items():
            spec = spec or {}
            xy = _floats(spec["position"], 2, f"furniture {name} position")
            yaw = float(spec.get("yaw", 0.0))
            affordances = tuple(spec.get("affordances", [PLACE_ON_TOP]))
            klass = spec.get("class", object_class(name))
            knowledge.furniture.append(SceneObject(
                name=name, object_class=klass,
                pose=np.array([xy[0], xy[1], float(spec.get("height", 0.75)), 0.0, 0.0, yaw]),
                location=None, affordances=affordances))
            knowledge.class_affordances.setdefault(klass, affordances)
            if "approach" in spec:
                knowledge.locations[navigation_location(name)] = _floats(
                    spec["approach"], 3, f"furniture {name} approach")
        for name, pose in (cfg.get("locations") or {}).items():
            knowledge.locations[name] = _floats(pose, 3, f"location {name}")
        for name, spec in (cfg.get("objects") or {}).items():
            spec = spec or {}
            klass = spec.get("class", object_class(name))
            knowledge.class_affordances.setdefault(klass, tuple(spec.get("affordances", [GRASP])))
        for klass, affordances in (cfg.get("classes") or {}).items():
            knowledge.class_affordances[klass] = tuple(affordances or ())
        return knowledge

    @classmethod
    def from_yaml(cls, path: str | Path) -> StaticKnowledge:
        """The knowledge of a world file (ValueError of one line for a file not in the
        format, :mod:`..settings.world_file`)."""
        return cls.from_dict(read_world_file(path))

    def affordances_of(self, klass: str) -> tuple[str, ...]:
        """Configured affordances of a class; unknown classes can be grasped."""
        return self.class_affordances.get(klass, (GRASP,))

"""The household's names (affordances, hands, location prefixes, skill results) and its scene
entry, below the humanoid API and its words (core/apis/humanoid.py, humanoid_words.py)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GRASP = "grasp"
PLACE_ON_TOP = "place_something_on_top"
AFFORDANCES = (None, GRASP, PLACE_ON_TOP)
HANDS = ("left", "right")
HUMAN = "human"
SURFACE_PREFIX = "on_"
NAV_PREFIX = "inFrontOf_"
HANDOVER_LOCATION = "handover_to_human"
SUCCESS = "success"
FAILURE = "failure"


def in_front_of(location: str | None) -> str | None:
    """Where the robot stands to reach a surface: ``'on_long-table_0'`` ->
    ``'inFrontOf_long-table_0'``; None for a location that is no surface (held, the floor)."""
    if not location or not location.startswith(SURFACE_PREFIX):
        return None
    return NAV_PREFIX + location[len(SURFACE_PREFIX):]


def furniture_of(place: str) -> str:
    """The furniture a surface or the place in front of it names (``'on_table_0'``,
    ``'inFrontOf_table_0'`` -> ``'table_0'``: the spellings of one destination that
    ``place_object`` takes); another place as it is."""
    for prefix in (SURFACE_PREFIX, NAV_PREFIX):
        if place.startswith(prefix):
            return place[len(prefix):]
    return place


def surface_at(location: str | None) -> str | None:
    """The surface the robot reaches from where it stands: ``'inFrontOf_long-table_0'`` ->
    ``'on_long-table_0'``; None for a place that is in front of no furniture."""
    if not location or not location.startswith(NAV_PREFIX):
        return None
    return SURFACE_PREFIX + location[len(NAV_PREFIX):]


@dataclass(frozen=True)
class SceneObject:
    """One entry of the robot's scene knowledge (perception plus static prior knowledge).

    ``location`` is the symbolic location: ``'on_<furniture>'`` for an object standing on a
    piece of furniture, a named navigation location for an object standing on the floor
    there (e.g. the ladder after it was set up at ``'handover_to_human'``), or ``None``
    (held, or unknown). ``held_by`` is ``'left'`` / ``'right'`` (a robot hand),
    ``'human'`` (the human holds it) or ``None``.
    """

    name: str
    object_class: str
    pose: np.ndarray  # 6-D: x, y, z, roll, pitch, yaw (m, rad), world frame
    location: str | None
    affordances: tuple[str, ...]
    held_by: str | None = None

    def has(self, affordance: str | None) -> bool:
        return affordance is None or affordance in self.affordances

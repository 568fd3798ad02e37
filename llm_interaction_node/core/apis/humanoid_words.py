"""The household in the user's words: where an object is, where the robot is, what it holds.

A skill that fails returns ``'failure: <why>'`` instead of a bare ``'failure'`` (issue 31): the
reasons are read from what the API knows after the call (the scene, the named locations and
the robot's base pose), never from a simulator's internals, so the in-process world and the
ROS robot give the same text. Objects keep their names (``milk-carton_0``, what the LLM must
pass); furniture and places are said as words (``on the dining table``, ``in front of the
kitchen counter``, ``at the handover place``). A cause that the scene cannot show (a handover
the human did not take, a surface too high) is said as what is seen: the object still in the
hand, the robot where it should be.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .humanoid_scene import (
    FAILURE,
    GRASP,
    HANDOVER_LOCATION,
    HANDS,
    HUMAN,
    NAV_PREFIX,
    PLACE_ON_TOP,
    SURFACE_PREFIX,
    SceneObject,
)

NEAR_M = 0.3        # the base within this of a named pose is "at" it (the world's reach tolerance)


def failure(*facts: str) -> str:
    """``'failure: fact; fact'`` (a bare ``'failure'`` without facts)."""
    facts = tuple(f for f in facts if f)
    return f"{FAILURE}: {'; '.join(facts)}" if facts else FAILURE


class Words:
    """One view of the household (scene, locations, base pose) and its phrases."""

    def __init__(self, scene: Sequence[SceneObject], locations: Mapping[str, np.ndarray],
                 base_pose: np.ndarray | None):
        self.scene = list(scene)
        self.locations = dict(locations)
        self.base_pose = None if base_pose is None else np.asarray(base_pose, dtype=float)
        self._furniture_classes = [o.object_class for o in self.scene
                                   if PLACE_ON_TOP in o.affordances and GRASP not in o.affordances]

    # -- things
    def furniture(self, name: str) -> str:
        """``'dining-table_0'`` -> ``'the dining table'`` (the index kept if the class repeats)."""
        klass = re.sub(r"_\d+$", "", name)
        if self._furniture_classes.count(klass) > 1:
            return "the " + name.replace("-", " ").replace("_", " ")
        return "the " + klass.replace("-", " ").replace("_", " ")

    def place(self, location: str | None) -> str:
        """A symbolic or navigation location as words, with its preposition."""
        if location is None:
            return "at an unknown place"
        if location.startswith(SURFACE_PREFIX):
            return "on " + self.furniture(location[len(SURFACE_PREFIX):])
        if location.startswith(NAV_PREFIX):
            return "in front of " + self.furniture(location[len(NAV_PREFIX):])
        if location == HANDOVER_LOCATION:
            return "at the handover place"
        return "in the " + location.replace("_", " ").replace("-", " ")

    def object_is(self, obj) -> str:
        """Where the object is: ``'milk-carton_0 is on the dining table'``."""
        if obj.held_by in HANDS:
            return f"{obj.name} is in the {obj.held_by} hand"
        if obj.held_by == HUMAN:
            return f"the human holds {obj.name}"
        if obj.location is None:
            return f"{obj.name} is not at a named place"
        return f"{obj.name} is {self.place(obj.location)}"

    # -- the robot
    def robot_location(self) -> str | None:
        """The named location the base is at (within NEAR_M), '' between places, None unknown."""
        if self.base_pose is None:
            return None
        best, best_d = "", NEAR_M
        for name, pose in self.locations.items():
            d = float(np.hypot(*(self.base_pose[:2] - np.asarray(pose, dtype=float)[:2])))
            if d <= best_d:
                best, best_d = name, d
        return best

    def at(self, location: str) -> bool | None:
        """Whether the base is at the named location (None: the robot's pose is unknown)."""
        here = self.robot_location()
        return None if here is None else here == location

    def robot_is(self) -> str:
        """``'the robot is in front of the kitchen counter'`` ('' if the pose is unknown)."""
        here = self.robot_location()
        if here is None:
            return ""
        return "the robot is " + (self.place(here) if here else "between places")

    def holding(self) -> dict[str, str | None]:
        held: dict[str, str | None] = {h: None for h in HANDS}
        for obj in self.scene:
            if obj.held_by in HANDS:
                held[obj.held_by] = obj.name
        return held

    def hands(self) -> str:
        """``'the robot holds nothing'``, ``'the right hand holds coffee-cup_0'``, ``'both
        hands are full (left: a, right: b)'``."""
        held = self.holding()
        full = [h for h in HANDS if held[h]]
        if not full:
            return "the robot holds nothing"
        if len(full) == 2:
            return f"both hands are full (left: {held['left']}, right: {held['right']})"
        return f"the {full[0]} hand holds {held[full[0]]}"


def nav_of(location: str | None) -> str | None:
    """Where the robot must stand to reach an object at ``location``."""
    if location is None:
        return None
    if location.startswith(SURFACE_PREFIX):
        return NAV_PREFIX + location[len(SURFACE_PREFIX):]
    return location


def find(scene: Iterable[SceneObject], name: str) -> SceneObject | None:
    return next((o for o in scene if o.name == name), None)


# -- why each skill failed ---------------------------------------------------------------------
def grasp_failed(w: Words, name: str, hand: str | None) -> str:
    obj = find(w.scene, name)
    if obj is None:
        return failure(f"{name} is not seen any more", w.robot_is())
    if obj.held_by is not None:
        return failure(w.object_is(obj))
    held = w.holding()
    if (hand in HANDS and held[hand]) or all(held.values()):
        return failure(w.hands())
    where = nav_of(obj.location)
    here = w.at(where) if where else None
    if here is False:
        return failure(w.object_is(obj), w.robot_is())
    if here:
        there = "in front of the robot" if where.startswith(NAV_PREFIX) else "where the robot is"
        return failure(f"{w.object_is(obj)}, {there}", "grasping it did not work")
    return failure(w.object_is(obj), f"grasping {name} did not work")


def place_failed(w: Words, name: str, destination: str) -> str:
    obj = find(w.scene, name)
    if obj is None or obj.held_by not in HANDS:
        return failure(w.hands(), w.object_is(obj) if obj is not None else "")
    if w.at(NAV_PREFIX + destination) is False:
        return failure(f"{w.robot_is()}, not in front of {w.furniture(destination)}")
    return failure(f"{name} is still in the {obj.held_by} hand",
                   f"the robot could not put it on {w.furniture(destination)}")


def handover_failed(w: Words, name: str) -> str:
    obj = find(w.scene, name)
    if obj is None or obj.held_by not in HANDS:
        return failure(w.hands(), w.object_is(obj) if obj is not None else "")
    if w.at(HANDOVER_LOCATION) is False:
        return failure(f"{w.robot_is()}, not at the handover place")
    return failure(f"the human did not take {name}", f"it is still in the {obj.held_by} hand")


def receive_failed(w: Words, name: str) -> str:
    obj = find(w.scene, name)
    if obj is not None and obj.held_by != HUMAN:
        return failure(f"the human does not hold {name}", w.object_is(obj))
    if all(w.holding().values()):
        return failure(w.hands())
    if w.at(HANDOVER_LOCATION) is False:
        return failure(f"{w.robot_is()}, not at the handover place")
    return failure(f"the robot could not take {name} from the human")


def move_failed(w: Words, target: str | None) -> str:
    if not target:
        aim = "did not reach the target"
    elif target.startswith(NAV_PREFIX):
        aim = "did not get in front of " + w.furniture(target[len(NAV_PREFIX):])
    elif target == HANDOVER_LOCATION:
        aim = "did not get to the handover place"
    else:
        aim = "did not get to the " + target.replace("_", " ").replace("-", " ")
    return failure(f"the robot {aim}", w.robot_is().replace("the robot is", "it is", 1))


def ladder_failed(w: Words, name: str, target: str) -> str:
    obj = find(w.scene, name)
    return failure(f"{name} was not set up {w.place(target)}",
                   w.object_is(obj) if obj is not None else "", w.robot_is())


__all__ = ["Words", "failure", "grasp_failed", "place_failed", "handover_failed",
           "receive_failed", "move_failed", "ladder_failed", "NEAR_M"]

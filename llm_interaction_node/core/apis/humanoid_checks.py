"""The scene look-ups and argument checks of the humanoid API (objects, surfaces, hands,
speeds, navigation locations) and its failure texts: :class:`HumanoidChecks`, the base
of :class:`.humanoid.HumanoidApi`, which sets the attributes they read."""
from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from ..transcript.errors import SemanticHintError, UnknownNameError
from .humanoid_robot import navigation_location, surface_name
from .humanoid_scene import (
    AFFORDANCES,
    FAILURE,
    GRASP,
    HANDS,
    HUMAN,
    NAV_PREFIX,
    PLACE_ON_TOP,
    SUCCESS,
    SURFACE_PREFIX,
    SceneObject,
)
from .humanoid_words import Words


class HumanoidChecks:
    """Look-ups and checks over the robot's scene for :class:`.humanoid.HumanoidApi`
    (``robot``, ``explain_failures``, ``moves``, ``at``, ``min_speed`` / ``max_speed``
    are its attributes)."""

    # ------------------------------------------------------------------ failures in words
    def _words(self, scene: list[SceneObject] | None = None) -> Words:
        """The household as the robot knows it now, for failure texts and hints."""
        pose_of = getattr(self.robot, "robot_pose", None)
        pose = pose_of() if callable(pose_of) else None
        return Words(self._scene() if scene is None else scene,
                     self.robot.named_locations(), pose)

    def _why(self, result: str, why: Callable[..., str], *args: object) -> str:
        """A bare 'failure' from the robot -> 'failure: <why>' (``why``: a function of
        :mod:`.humanoid_words`, given the Words and ``args``); anything else unchanged."""
        if result != FAILURE or not self.explain_failures:
            return result
        return why(self._words(), *args)

    # ------------------------------------------------------------------ scene helpers
    def _scene(self) -> list[SceneObject]:
        return list(self.robot.scene())

    @staticmethod
    def _display_name(obj: SceneObject) -> str:
        """The name the LLM sees: grasp objects by name, pure surfaces as ``on_<name>``."""
        if GRASP in obj.affordances or PLACE_ON_TOP not in obj.affordances:
            return obj.name
        return surface_name(obj.name)

    def _names(self, affordance: str | None, scene: list[SceneObject] | None = None) -> list[str]:
        scene = self._scene() if scene is None else scene
        if affordance == PLACE_ON_TOP:
            return [surface_name(o.name) for o in scene if o.has(PLACE_ON_TOP)]
        return [self._display_name(o) for o in scene if o.has(affordance)]

    def _graspable(
        self, name: object, scene: list[SceneObject], argument: str = "object"
    ) -> SceneObject:
        for obj in scene:
            if isinstance(name, str) and obj.name == name and obj.has(GRASP):
                return obj
        message = (f"unknown {argument} {name!r}. Use one of the names returned by "
                   f"list_objects(affordance='grasp'): {self._names(GRASP, scene)!r}")
        if any(name in (o.name, self._display_name(o)) for o in scene):
            raise SemanticHintError(message)         # known, but nothing to grasp
        raise UnknownNameError(message, name)

    def _any_object(self, name: object, scene: list[SceneObject]) -> SceneObject:
        if isinstance(name, str):
            for obj in scene:
                if name in (obj.name, self._display_name(obj)) or (
                        obj.has(PLACE_ON_TOP) and name == surface_name(obj.name)):
                    return obj
        raise UnknownNameError(
            f"unknown object {name!r}. Use one of the names returned by "
            f"list_objects(affordance=None): {self._names(None, scene)!r}", name)

    def _surface(self, name: object, scene: list[SceneObject]) -> SceneObject | None:
        if isinstance(name, str):
            for obj in scene:
                if obj.has(PLACE_ON_TOP) and name in (obj.name, surface_name(obj.name)):
                    return obj
        return None

    def _destination(self, name: object, scene: list[SceneObject]) -> SceneObject:
        dest = self._surface(name, scene)
        if dest is None:
            raise SemanticHintError(
                f"Invalid value for destination_object_name {name!r}: it is not an object with "
                f"the affordance {PLACE_ON_TOP}. Pass one of the names returned by "
                f"list_objects(affordance='{PLACE_ON_TOP}'): {self._names(PLACE_ON_TOP, scene)!r}")
        return dest

    @staticmethod
    def _check_hand(hand: object) -> None:
        if hand is not None and hand not in HANDS:
            raise SemanticHintError(
                f"invalid hand {hand!r}. Use 'left', 'right' or None (any free hand)"
            )

    @staticmethod
    def _holding(scene: Iterable[SceneObject]) -> dict[str, str | None]:
        held: dict[str, str | None] = {h: None for h in HANDS}
        for obj in scene:
            if obj.held_by in HANDS:
                held[obj.held_by] = obj.name
        return held

    def _free_hand(self, hand: str | None, scene: list[SceneObject], action: str) -> str:
        held = self._holding(scene)
        if hand is not None:
            if held[hand] is None:
                return hand
            other = "left" if hand == "right" else "right"
            tip = (f"use the other hand ({other!r})" if held[other] is None
                   else "place it or hand it over first")
            raise SemanticHintError(
                f"cannot {action}: the {hand} hand already holds {held[hand]!r}; {tip}"
            )
        for h in ("right", "left"):
            if held[h] is None:
                return h
        raise SemanticHintError(
            f"cannot {action}: both hands are full (left: {held['left']!r}, right: "
            f"{held['right']!r}). "
            "Put an object down with place_object(...) or give it with "
            "handover_object_to_human(...) first"
        )

    def _not_held_hint(self, obj: SceneObject, scene: list[SceneObject]) -> SemanticHintError:
        where = (
            "the human holds it" if obj.held_by == HUMAN else f"its location is {obj.location!r}"
        )
        if not self.explain_failures:           # the hint as it was before failures said why
            held = [n for n in self._holding(scene).values() if n]
            return SemanticHintError(
                f"{obj.name!r} is not in a hand of the robot ({where}; the hands hold {held!r}). "
                "Move to its location and grasp(...) it first")
        words = self._words(scene)
        return SemanticHintError(
            f"{obj.name!r} is not in a hand of the robot ({words.hands()}; {words.object_is(obj)}, "
            f"{where}). Move to its location and grasp(...) it first")

    def _nav_pose(self, location: str) -> np.ndarray:
        locations = self.robot.named_locations()
        if location not in locations:
            raise SemanticHintError(
                f"no navigation location {location!r} is known. Locations returned by "
                f"list_locations(): {list(locations)!r}")
        return np.asarray(locations[location], dtype=float).copy()

    def _moved(self, name: str, where: str, result: str) -> str:
        """Keep a move that worked in :attr:`moves`; ``result`` unchanged."""
        if result == SUCCESS:
            self.moves.append((name, where))
        return result

    def _source_location(self, obj: SceneObject) -> str:
        loc = obj.location
        if loc is None:
            raise SemanticHintError(
                f"the location of {obj.name!r} is unknown; ask the user where it is")
        if loc.startswith(SURFACE_PREFIX):
            return navigation_location(loc[len(SURFACE_PREFIX):])
        return loc

    def _held_already(self, obj: SceneObject, hand: str | None) -> str:
        """Why a held object is not grasped; to hold it in the other hand, how (measured, issue
        44: after "use your left hand" the model grasped again with the left and got only
        "already in the right hand")."""
        held = f"{obj.name!r} is already in the {obj.held_by} hand"
        if hand is None or hand == obj.held_by:
            return held
        here = self.at[len(NAV_PREFIX):] if self.at and self.at.startswith(NAV_PREFIX) else None
        down = f"place_object({obj.name!r}, {surface_name(here)!r})" if here else \
            "place_object(...) on a surface"
        return (f"{held}; to hold it in the {hand} hand, put it down first ({down}) and grasp "
                f"it again: grasp({obj.name!r}, {hand!r})")

    def _check_affordance(self, affordance: object) -> None:
        if affordance not in AFFORDANCES:
            raise SemanticHintError(
                f"invalid affordance {affordance!r}. Use one of {list(AFFORDANCES)!r}")

    def _speed(self, speed_factor: object) -> float:
        """``speed_factor`` checked against the limits."""
        if isinstance(speed_factor, bool) or not isinstance(speed_factor, (int, float, np.number)) \
                or not self.min_speed <= float(speed_factor) <= self.max_speed:
            raise SemanticHintError(
                f"speed_factor must be a number between {self.min_speed} and {self.max_speed} "
                f"(1.0 is the normal speed), got {speed_factor!r}")
        return float(speed_factor)

    def _location_at(self, pose: np.ndarray) -> str | None:
        """The named location whose pose this is (None: a pose of its own)."""
        for name, p in self.robot.named_locations().items():
            if np.allclose(np.asarray(p, dtype=float)[:2], pose[:2], atol=1e-3):
                return name
        return None

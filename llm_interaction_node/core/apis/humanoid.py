"""The humanoid robot API the LLM calls: perception queries and mobile-manipulation skills.

The functions follow section D of the paper. They call a small :class:`HumanoidRobot`
protocol (the skills and the perception/scene memory a real robot offers); an in-process
world (``sims.household``) implements it for tests and evaluation, a ROS client later
implements it with action goals. Every check that can be made from the scene knowledge
(does the object exist, does it have the affordance, is a hand free, ...) is made here, so
both implementations share it and the LLM gets the same :class:`SemanticHintError` hints.
Physical outcomes that cannot be known in advance (out of reach, a failed handover) come
back from the robot as the strings ``'success'`` / ``'failure'``; the API tells the LLM why
a skill failed in the world's terms, ``'failure: milk-carton_0 is on the dining table; the
robot is in front of the kitchen counter'`` (:mod:`.humanoid_words`, read from the scene and
the robot's pose after the call; ``explain_failures=False`` keeps the bare ``'failure'``).

Naming conventions (shared with the world files):

* objects are ``<class-name>_<n>``, e.g. ``mango-juice_0``;
* a piece of furniture ``<furniture>`` (affordance ``place_something_on_top``) is listed to
  the LLM as its surface ``on_<furniture>``, which is also the symbolic location of the
  objects on it; ``place_object`` accepts both spellings as destination;
* the robot navigates to ``inFrontOf_<furniture>``, ``handover_to_human`` and ``room_center``.
"""
from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Literal

import numpy as np

from ..transcript.errors import SemanticHintError
from .humanoid_checks import HumanoidChecks
from .humanoid_robot import (  # noqa: F401 - importable from here too
    HumanoidRobot,
    is_ladder,
    navigation_location,
    surface_name,
)
from .humanoid_scene import (
    FAILURE,
    GRASP,
    HANDOVER_LOCATION,
    HANDS,
    HUMAN,
    NAV_PREFIX,
    PLACE_ON_TOP,
    SUCCESS,
    SURFACE_PREFIX,
    SceneObject,
)
from .humanoid_words import (
    grasp_failed,
    handover_failed,
    ladder_failed,
    move_failed,
    place_failed,
    receive_failed,
)
from .registry import COMMENT_ATTR, MoveSpec, comment, moves, query, recommented

log = logging.getLogger(__name__)

# the speed of a drive the user taught: (where the robot is, where it drives) -> a factor, or
# None (navigation location names; where the robot is: None where unknown)
RouteSpeed = Callable[[str | None, str], float | None]

BRING_LADDER_SKILL = "bring_ladder"
FAILS_SAYING_WHY = "a failure says why"     # in the listing comments; left out with plain failures
PAPER_BRING_COMMENT = ("full pick and place: the object must already be detected, so check it "
                       "with list_objects() before calling this")
# bring_object_to is the household's one move (the decoding after a correction restricts its
# arguments, core/decoding/correction.py): an object (never a surface or a place) to a surface,
# or to the user through the handover place (a reading's "me")
MOVE = MoveSpec("object_name", "destination_object_name", (HANDOVER_LOCATION,),
                to_user=HANDOVER_LOCATION, fixed_prefixes=(SURFACE_PREFIX, NAV_PREFIX))


class HumanoidApi(HumanoidChecks):
    """The LLM-facing functions of the humanoid robot (all but the console built-ins).

    ``min_speed`` / ``max_speed`` bound the ``speed_factor`` of :meth:`move_to`;
    ``explain_failures`` (default True) makes a failed skill return ``'failure: <why>'``,
    False the bare ``'failure'`` of the paper's API (its listing promises no reasons, and the
    not-held hint does not describe the hands and the object in words): the ``paper`` API
    preset (:data:`.sets.API_PRESETS`). The functions that only look (lists, positions, what
    a hand holds) are marked :func:`~.registry.query`: a statement of queries alone is no
    attempt to act (the agent's repeat note over actions leaves it out). ``bring_object_to``
    is the move (:data:`MOVE`: fetch an object from wherever it is, the human's hand too, and
    put it on a surface or hand it to the user), and ``moves`` keeps each object move that
    worked, by any skill: (object, the surface it was put on or ``'handover_to_human'``), as
    the tabletop's API keeps its puts (the agent reads what an attempt did from it).
    """

    API = (
        "bring_object_to",
        "get_location_coordinates",
        "get_obj_pos",
        "get_object_in_hand",
        "grasp",
        "handover_object_to_human",
        "is_object_at_location",
        "list_locations",
        "list_object_locations",
        "list_objects",
        "move_to",
        "place_object",
        "receive_object_from_human",
    )

    def __init__(self, robot: HumanoidRobot, min_speed: float = 0.1, max_speed: float = 2.0,
                 explain_failures: bool = True, route_speed: RouteSpeed | None = None):
        """``route_speed``: the speeds the user taught on routes (the session's
        :class:`~..learning.route.RememberedRoutes`); a drive at the normal speed on such a
        route goes at the taught speed, whichever call drives it. A hand taught for a thing is
        a habit the agent writes into the call (core/reading/edit.py: ``set hand``)."""
        if not 0 < min_speed <= 1.0 <= max_speed:
            raise ValueError("need 0 < min_speed <= 1.0 <= max_speed")
        self.robot = robot
        self.route_speed = route_speed
        self.at: str | None = None           # the navigation location the last drive reached
        self.min_speed = float(min_speed)
        self.max_speed = float(max_speed)
        self.explain_failures = bool(explain_failures)
        self.moves: list[tuple[str, str | None]] = []   # (object, surface or the handover place)
        if not self.explain_failures:
            self._plain_comments()

    def _plain_comments(self) -> None:
        """With bare failures the listing must not promise reasons: this instance's methods
        become copies whose comment leaves the clause out (the class keeps its own); the
        paper's listing says bring_object_to as the paper does (it takes the human's hand and
        the handover place all the same: the decoding after a correction may name them)."""
        self.bring_object_to = recommented(self.bring_object_to, PAPER_BRING_COMMENT)
        for name in self.API:
            text = getattr(getattr(type(self), name), COMMENT_ATTR, None)
            if not text or FAILS_SAYING_WHY not in text:
                continue
            plain = text.split(f"; {FAILS_SAYING_WHY}")[0].split(FAILS_SAYING_WHY)[0].strip("; ")
            setattr(self, name, recommented(getattr(self, name), plain or None))

    # ------------------------------------------------------------------ API functions
    @comment("full pick and place: the object must already be detected, so check it with "
             "list_objects() before calling this; it is fetched from where it is (also from "
             f"the human's hand); destination {HANDOVER_LOCATION!r} hands it to the human; "
             "change speed only on user request")
    @moves(MOVE)
    def bring_object_to(self, object_name: str, destination_object_name: str,
                        speed_factor: float = 1.0,
                        hand: Literal['left', 'right', None] = None) -> str:
        """Fetch the object and put it on the destination; the ladder is brought and set up.

        Moves to the object's navigation location, grasps it (any free hand), moves to the
        destination's navigation location and places it there; an object the human holds is
        taken at the handover place first; destination ``'handover_to_human'`` hands it to
        the human there; ``speed_factor`` scales the base velocity of every drive, as in
        :meth:`move_to`; ``hand``: the hand it is taken with, as in :meth:`grasp` (a habit
        "always take the sponge with your left hand" sets it, core/reading/edit.py). For the
        ladder the destination may also be a navigation location (e.g.
        ``'handover_to_human'``) and the robot's bimanual ``bring_ladder`` skill does all of
        it.
        """
        speed = self._speed(speed_factor)
        self._check_hand(hand)
        scene = self._scene()
        obj = self._graspable(object_name, scene)
        if is_ladder(obj):
            return self._bring_ladder(obj, destination_object_name, scene)
        to_human = destination_object_name == HANDOVER_LOCATION
        dest = None if to_human else self._destination(destination_object_name, scene)
        if obj.held_by == HUMAN:
            if to_human:
                raise SemanticHintError(f"the human holds {obj.name!r} already")
            hand = self._free_hand(hand, scene,
                                   f"take {obj.name!r} from the human")
            result = self._drive(HANDOVER_LOCATION, speed)
            if result != SUCCESS:
                return self._why(result, move_failed, HANDOVER_LOCATION)
            result = self.robot.receive(obj.name, hand)
            if result != SUCCESS:
                return self._why(result, receive_failed, obj.name)
        elif obj.held_by not in HANDS:
            hand = self._free_hand(hand, scene,
                                   f"grasp {obj.name!r}")
            source = self._source_location(obj)
            result = self._drive(source, speed)
            if result != SUCCESS:
                return self._why(result, move_failed, source)
            result = self.robot.grasp(obj.name, hand)
            if result != SUCCESS:
                return self._why(result, grasp_failed, obj.name, hand)
        target = HANDOVER_LOCATION if to_human else navigation_location(dest.name)
        result = self._drive(target, speed)
        if result != SUCCESS:
            return self._why(result, move_failed, target)
        if to_human:
            return self._moved(obj.name, HANDOVER_LOCATION, self._why(
                self.robot.handover(obj.name), handover_failed, obj.name))
        return self._moved(obj.name, surface_name(dest.name), self._why(
            self.robot.place(obj.name, dest.name), place_failed, obj.name, dest.name))

    def _bring_ladder(
        self, ladder: SceneObject, destination: object, scene: list[SceneObject]
    ) -> str:
        locations = self.robot.named_locations()
        target = None
        if isinstance(destination, str):
            if destination in locations:
                target = destination
            else:
                surface = self._surface(destination, scene)
                if surface is not None and navigation_location(surface.name) in locations:
                    target = navigation_location(surface.name)
        if target is None:
            raise SemanticHintError(
                f"unknown destination {destination!r} for {ladder.name!r}. Use one of the "
                f"locations returned by list_locations(): {list(locations)!r}")
        held = self._holding(scene)
        if any(held.values()):
            raise SemanticHintError(
                f"bringing {ladder.name!r} needs both hands free, but the hands hold "
                f"{[n for n in held.values() if n]!r}; put those objects down or hand them over "
                f"first"
            )
        pose = np.asarray(locations[target], dtype=float).copy()
        self.at = None                      # the ladder skill drives: where it ends is its own
        return self._moved(ladder.name, target, self._why(self.robot.run_skill(
            BRING_LADDER_SKILL, {"object_name": ladder.name, "location_name": target,
                                 "pose": pose}), ladder_failed, ladder.name, target))

    @query
    def get_location_coordinates(self, location_name: str) -> np.ndarray:
        """Base pose ``[x, y, yaw]`` of a named location (pass it to :meth:`move_to`)."""
        locations = self.robot.named_locations()
        if isinstance(location_name, str) and location_name in locations:
            return np.asarray(locations[location_name], dtype=float).copy()
        tip = ""
        if isinstance(location_name, str):
            base = location_name[len(SURFACE_PREFIX):] if location_name.startswith(SURFACE_PREFIX) \
                else location_name
            if navigation_location(base) in locations:
                tip = f" To reach {location_name!r}, use {navigation_location(base)!r}."
        raise SemanticHintError(
            f"unknown location {location_name!r}.{tip} Use one of the names returned by "
            f"list_locations(): {list(locations)!r}")

    @query
    def get_obj_pos(self, obj_name: str) -> np.ndarray:
        """6-D pose ``[x, y, z, roll, pitch, yaw]`` of an object in world coordinates."""
        obj = self._any_object(obj_name, self._scene())
        return np.asarray(obj.pose, dtype=float).copy()

    @query
    def get_object_in_hand(self, hand: Literal['left', 'right', None] = None) -> str | None:
        """Name of the object in the given hand (any hand if None), or None."""
        self._check_hand(hand)
        held = self._holding(self._scene())
        if hand is not None:
            return held[hand]
        return held["left"] or held["right"]

    @comment("move to the location of the object before grasping it; "
             f"{FAILS_SAYING_WHY}, e.g. 'failure: <object> is on the dining table; the robot "
             "is in front of the kitchen counter'")
    def grasp(self, object_name: str, hand: Literal['left', 'right', None] = None) -> str:
        """Grasp the object with the given hand (a free one if None); 'success' or 'failure: \
<why>'."""
        self._check_hand(hand)
        scene = self._scene()
        obj = self._graspable(object_name, scene)
        if is_ladder(obj):
            raise SemanticHintError(
                f"{obj.name!r} cannot be grasped with one hand; bring it with "
                f"bring_object_to({obj.name!r}, <location from list_locations()>)")
        if obj.held_by in HANDS:
            raise SemanticHintError(self._held_already(obj, hand))
        if obj.held_by == HUMAN:
            raise SemanticHintError(
                f"the human holds {obj.name!r}; use receive_object_from_human({obj.name!r})")
        hand = self._free_hand(hand, scene,
                               f"grasp {obj.name!r}")
        return self._why(self.robot.grasp(obj.name, hand), grasp_failed, obj.name, hand)

    @comment(FAILS_SAYING_WHY)
    def handover_object_to_human(self, object_name: str) -> str:
        """Hand a held object to the human (move to 'handover_to_human' first)."""
        scene = self._scene()
        obj = self._graspable(object_name, scene)
        if obj.held_by == HUMAN:
            # what was asked holds already (bring_object_to(x, 'handover_to_human') hands it
            # over; measured, issue 44: told to grasp it first, the model took it back)
            return f"the human already holds {obj.name!r}"
        if obj.held_by not in HANDS:
            raise self._not_held_hint(obj, scene)
        return self._moved(obj.name, HANDOVER_LOCATION, self._why(
            self.robot.handover(obj.name), handover_failed, obj.name))

    @query
    def is_object_at_location(self, object_name: str, location_name: str) -> bool:
        """Whether the object is at the location (a surface 'on_...', or a navigation location)."""
        scene = self._scene()
        obj = self._any_object(object_name, scene)
        locations = self.robot.named_locations()
        surface = self._surface(location_name, scene)
        if surface is not None:
            return obj.location == surface_name(surface.name)
        if isinstance(location_name, str) and location_name in locations:
            if obj.location == location_name:
                return True
            if location_name.startswith(NAV_PREFIX):
                return obj.location == surface_name(location_name[len(NAV_PREFIX):])
            if location_name == HANDOVER_LOCATION:
                return obj.held_by == HUMAN
            return False
        raise SemanticHintError(
            f"unknown location {location_name!r}. Use a name returned by list_locations(): "
            f"{list(locations)!r} or by list_objects(affordance='{PLACE_ON_TOP}'): "
            f"{self._names(PLACE_ON_TOP, scene)!r}")

    @query
    def list_locations(self) -> list[str]:
        """Names of all locations the robot can navigate to."""
        return list(self.robot.named_locations())

    @query
    def list_object_locations(
        self, affordance: Literal[None, 'grasp', 'place_something_on_top'] = 'grasp'
    ) -> list[tuple[str, str | None]]:
        """(object name, symbolic location) for each object with the affordance (None: all)."""
        self._check_affordance(affordance)
        scene = self._scene()
        if affordance == PLACE_ON_TOP:
            return [(surface_name(o.name), None) for o in scene if o.has(PLACE_ON_TOP)]
        return [(self._display_name(o), o.location if GRASP in o.affordances else None)
                for o in scene if o.has(affordance)]

    @query
    def list_objects(
        self, affordance: Literal[None, 'grasp', 'place_something_on_top'] = 'grasp'
    ) -> list[str]:
        """Names of the objects with the affordance (None: all objects)."""
        self._check_affordance(affordance)
        return self._names(affordance)

    @comment("Change speed only on user request")
    def move_to(self, position: np.ndarray, speed_factor: float = 1.0) -> str:
        """Navigate to ``[x, y, yaw]``; ``speed_factor`` scales the base velocity limit."""
        self._speed(speed_factor)
        try:
            pose = np.asarray(position, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            pose = None
        if pose is None or pose.shape != (3,) or not np.all(np.isfinite(pose)):
            raise SemanticHintError(
                f"invalid position {position!r}: move_to expects the base pose [x, y, yaw], "
                "e.g. move_to(get_location_coordinates(name)) with a name from list_locations()")
        pose = pose.copy()
        pose[2] = math.remainder(pose[2], math.tau)
        location = self._location_at(pose)
        return self._why(self._drive(location, float(speed_factor), pose), move_failed,
                         location)

    def _drive(self, location: str | None, speed: float, pose: np.ndarray | None = None) -> str:
        """Drive to the navigation location ``location`` (or to ``pose``, a pose of its own
        where ``location`` is None) at ``speed``; at the normal speed on a route the user
        taught another speed for, at that one (:attr:`route_speed`)."""
        taught = self._taught_speed(location) if speed == 1.0 else None
        if taught is not None:
            log.info("the drive from %s to %s goes at %.1f: the user taught that route",
                     self.at or "here", location, taught)
            speed = taught
        result = self.robot.move_to(self._nav_pose(location) if pose is None else pose, speed)
        self.at = location if result == SUCCESS else None
        return result

    def _taught_speed(self, location: str | None) -> float | None:
        if self.route_speed is None or location is None:
            return None
        try:
            factor = self.route_speed(self.at, location)
        except Exception as exc:  # noqa: BLE001 - no taught speeds (memory down): the normal one
            log.warning("the taught route speeds are unknown (%s): the normal speed", exc)
            return None
        if factor is None:
            return None
        return min(max(float(factor), self.min_speed), self.max_speed)

    @comment("put the grasped object on top of the destination object; move to the location "
             f"of the destination object before placing; {FAILS_SAYING_WHY}")
    def place_object(self, object_in_hand_name: str, destination_object_name: str) -> str:
        """Place a held object on a surface ('on_<furniture>' or '<furniture>')."""
        scene = self._scene()
        obj = self._graspable(object_in_hand_name, scene, argument="object_in_hand_name")
        dest = self._destination(destination_object_name, scene)
        if obj.held_by not in HANDS:
            raise self._not_held_hint(obj, scene)
        return self._moved(obj.name, surface_name(dest.name), self._why(
            self.robot.place(obj.name, dest.name), place_failed, obj.name, dest.name))

    def receive_object_from_human(self, object_name: str) -> str:
        """Take the object from the human into a free hand (move to 'handover_to_human' first)."""
        scene = self._scene()
        obj = self._graspable(object_name, scene)
        if obj.held_by in HANDS:
            raise SemanticHintError(f"{obj.name!r} is already in the {obj.held_by} hand")
        hand = self._free_hand(None, scene, f"receive {obj.name!r}")
        return self._why(self.robot.receive(obj.name, hand), receive_failed, obj.name)


__all__ = [
    "SceneObject", "HumanoidRobot", "HumanoidApi", "surface_name", "navigation_location",
    "is_ladder", "GRASP", "PLACE_ON_TOP", "HANDS", "HUMAN", "HANDOVER_LOCATION",
    "SUCCESS", "FAILURE", "BRING_LADDER_SKILL", "MOVE",
]

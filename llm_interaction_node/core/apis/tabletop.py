"""The Code-as-Policies tabletop API: a gripper above a table with blocks and bowls.

Workspace geometry from CaP: x in [-0.3, 0.3], y in [-0.8, -0.2] (robot at the origin, "top"
is +y, "left" is -x). The named places of the table (corners, sides, middle) lie 5 cm inside
its edges, where a block can sit in the corner; ``denormalize_xy`` maps ``[0..1, 0..1]`` onto
the square they span, so ``[0, 0]`` is the bottom left corner, ``[1, 1]`` the top right one,
``[0.5, 1]`` the top side and ``[0.5, 0.5]`` the middle (the places the success checks of
the benchmark use). Those places can also be named: ``put_first_on_second('red block',
'left side')`` (``PLACE_NAMES``, as the reference's CaP accepts them), so a user's words for a
place can be passed as they are. Each move that worked is kept in ``moves`` (the object and
where it went, by name where that is a named place or an object), for the agent's view of the
attempt a user corrects. The API calls a :class:`TabletopRobot` (the 2-D world or PyBullet).

``paper=True`` is the API of the paper's code (``cap_simulation/api.py`` and its
environment's ``get_obj_pos``; the ``paper`` API preset): the named places are taken as they
are there (its ``get_obj_pos`` knew them) but the listing does not mention them; a covered
block is not refused (the robot picks what its gripper meets, the top block); every move
answers ``'success'``; names are looked up as it looked them up (``'the'`` and ``_`` dropped,
``circle``/``square``/``small`` read as bowl/block/nothing) and an unknown one is answered with
its hint, ``Unknown object "x". Use one of [...]``.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..transcript.errors import BlockedError, SemanticHintError
from .registry import MoveSpec, comment, moves, query, recommented

DEFAULT_BOUNDS = np.array([[-0.3, 0.3], [-0.8, -0.2], [0.0, 0.15]])
PLACE_INSET = 0.05          # m: the named places (corners, sides) lie this far inside the edges
OUT_OF_BOUNDS = "Point not in boundaries. Make sure to use denormalize_xy correctly."
STACK_RADIUS = 0.03         # m: a block this close (horizontally) and higher rests on another
STACK_HEIGHT = 0.02         # m: ... at least this much higher
IN_BOWL = 0.05              # m: a block this close (horizontally) to a bowl's centre is in it
AT_PLACE = 0.06             # m: a point this close to a named place is at it (the success check's)
# the named places, as normalized points of denormalize_xy
PLACE_NAMES: dict[str, tuple[float, float]] = {
    "top left corner": (0, 1), "top side": (0.5, 1), "top right corner": (1, 1),
    "left side": (0, 0.5), "middle": (0.5, 0.5), "right side": (1, 0.5),
    "bottom left corner": (0, 0), "bottom side": (0.5, 0), "bottom right corner": (1, 0),
}
MOVE = MoveSpec("obj_name_1", "target_name_or_xy_pos", tuple(PLACE_NAMES), " block")
# put_first_on_second's comment in the paper's API (cap_simulation/api.py)
PAPER_MOVE_COMMENT = "move gripper to object 1, pick it up, move to target, release the gripper"


@runtime_checkable
class TabletopRobot(Protocol):
    """Perception of the named objects and one pick-and-place primitive."""

    bounds: np.ndarray   # [[xmin, xmax], [ymin, ymax], [zmin, zmax]]

    def object_names(self) -> list[str]:
        """Names of the objects on the table, e.g. ``'red block'``, ``'blue bowl'``."""
        ...

    def object_position(self, name: str) -> np.ndarray:
        """Position ``[x, y, z]`` of the named object."""
        ...

    def pick_and_place(self, pick: np.ndarray, place: np.ndarray) -> str:
        """Suction at ``pick`` (xyz), release at ``place`` (xyz); 'success' or 'failure'."""
        ...


class TabletopApi:
    """The LLM-facing tabletop functions."""

    API = ("denormalize_xy", "get_obj_names", "get_obj_pos", "put_first_on_second")

    def __init__(self, robot: TabletopRobot, named_places: bool = True, paper: bool = False):
        self.robot = robot
        self.named_places = named_places    # False: place names are unknown objects
        self.paper = bool(paper)            # the paper's API and outputs (module docstring)
        self.moves: list[tuple[str, str | None]] = []   # (object, target name or None)
        if self.paper:
            self.put_first_on_second = recommented(self.put_first_on_second, PAPER_MOVE_COMMENT)

    def place_point(self, name: object) -> np.ndarray | None:
        """The table point of a named place (``'middle'``, ``'the top left corner'``), None
        for anything else (object names, positions) or without ``named_places``."""
        key = self.place_key(name)
        return self.denormalize_xy(PLACE_NAMES[key]) if key is not None else None

    def place_key(self, name: object) -> str | None:
        """The named place ``name`` says (``'the Top left corner'`` -> ``'top left corner'``)."""
        if not self.named_places or not isinstance(name, str):
            return None
        if self.paper:
            key = paper_key(name)
        else:
            key = " ".join(name.lower().replace("_", " ").split())
            key = key[4:] if key.startswith("the ") else key
        return key if key in PLACE_NAMES else None

    def place_at(self, point) -> str | None:
        """The named place ``point`` is at, if any."""
        p = np.asarray(point, dtype=float).reshape(-1)[:2]
        best = min(
            PLACE_NAMES,
            key=lambda k: float(np.linalg.norm(self.denormalize_xy(PLACE_NAMES[k]) - p)),
        )
        return (
            best
            if float(np.linalg.norm(self.denormalize_xy(PLACE_NAMES[best]) - p)) < AT_PLACE
            else None
        )

    @property
    def bounds(self) -> np.ndarray:
        return np.asarray(self.robot.bounds, dtype=float)

    def _check_name(self, *candidates: object) -> str:
        """The first candidate if every candidate is a known object name; else one hint that
        names all unknown ones, so the LLM can fix both arguments in one retry. With
        ``paper``: each looked up as the paper's environment did, the first unknown's hint."""
        names = list(self.robot.object_names())
        if self.paper:
            resolved = [paper_name(c, names) for c in candidates]
            return resolved[0]
        unknown = [c for c in candidates if not (isinstance(c, str) and c in names)]
        if not unknown:
            return candidates[0]
        listed = ", ".join(repr(c) for c in unknown)
        plural = "objects" if len(unknown) > 1 else "object"
        raise SemanticHintError(
            f"unknown {plural} {listed}. Use one of the names returned by get_obj_names(): "
            f"{names!r}")

    @query
    def denormalize_xy(self, pos_normalized) -> np.ndarray:
        """Map ``[0..1, 0..1]`` (0,0 = bottom left corner, 1,1 = top right corner) to table
        coordinates; the corners and sides are the named places, 5 cm inside the edges."""
        try:
            p = np.asarray(pos_normalized, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            p = None
        if p is None or p.shape != (2,):
            raise SemanticHintError(
                f"denormalize_xy expects [x, y] with values in [0, 1], got {pos_normalized!r}")
        lo, hi = self.bounds[:2, 0] + PLACE_INSET, self.bounds[:2, 1] - PLACE_INSET
        return lo + p * (hi - lo)

    @query
    def get_obj_names(self) -> list[str]:
        """Names of all objects on the table."""
        return list(self.robot.object_names())

    @query
    @comment("2D xy position")
    def get_obj_pos(self, obj_name: str) -> np.ndarray:
        """The object's ``[x, y]`` position (or a named place's)."""
        point = self.place_point(obj_name)
        if point is not None and obj_name not in self.robot.object_names():
            return point
        name = self._check_name(obj_name)      # the paper's lookup with ``paper``
        return np.asarray(self.robot.object_position(name), dtype=float)[:2].copy()

    @moves(MOVE)
    @comment("move the gripper to object 1, pick it up, move to the target and release it; "
             "the target: an object, a named place ('top left corner', 'left side', 'middle', "
             "...) or an [x, y] point")
    def put_first_on_second(self, obj_name_1: str, target_name_or_xy_pos: str | np.ndarray) -> str:
        """Pick object 1 and put it on the target object, at the named place or at the
        target ``[x, y]`` point."""
        point = self.place_point(target_name_or_xy_pos)
        if point is not None and target_name_or_xy_pos not in self.robot.object_names():
            return self._put(obj_name_1, point)      # moves notes the place it is at
        return self._put(obj_name_1, target_name_or_xy_pos)

    def _put(self, obj_name_1, target_name_or_xy_pos) -> str:
        names = (obj_name_1, target_name_or_xy_pos) if isinstance(target_name_or_xy_pos, str) \
            else (obj_name_1,)
        name = self._check_name(*names)
        pick = np.asarray(self.robot.object_position(name), dtype=float)
        if isinstance(target_name_or_xy_pos, str):
            target = self._check_name(target_name_or_xy_pos)
            if target == name:
                raise SemanticHintError(f"cannot put {name!r} on itself; choose another target")
            place = np.asarray(self.robot.object_position(target), dtype=float).copy()
        else:
            if hasattr(target_name_or_xy_pos, "geom_type") and hasattr(target_name_or_xy_pos, "x"):
                target_name_or_xy_pos = (target_name_or_xy_pos.x, target_name_or_xy_pos.y)  # Point
            try:
                point = np.asarray(target_name_or_xy_pos, dtype=float).reshape(-1)
            except (TypeError, ValueError):
                point = None
            if point is None or point.shape not in ((2,), (3,)) or not np.all(np.isfinite(point)):
                raise SemanticHintError(
                    f"invalid target {target_name_or_xy_pos!r}: pass an object name from "
                    "get_obj_names() or an [x, y] position (use denormalize_xy for named places)")
            b = self.bounds
            eps = 1e-9      # denormalize_xy([1, 1]) may round a hair outside the workspace
            if not (b[0, 0] - eps <= point[0] <= b[0, 1] + eps
                    and b[1, 0] - eps <= point[1] <= b[1, 1] + eps):
                raise SemanticHintError(OUT_OF_BOUNDS)
            x, y = np.clip(point[:2], b[:2, 0], b[:2, 1])
            place = np.array([x, y, point[2] if point.shape == (3,) else b[2, 0]])
        covering = [] if self.paper else self._resting_on(name, pick)
        if covering:
            # a gripper from above would take the top block (and report success)
            if self._already_at(pick, target_name_or_xy_pos, place):
                return "success"        # what a re-grasp of the top block would leave, too
            raise BlockedError(
                f"cannot pick {name!r}: {covering[0]!r} lies on top of it. "
                f"Move {covering[0]!r} off it first", name, covering[0],
                self._around(name, pick))
        result = self.robot.pick_and_place(pick, place)
        if result == "success":
            label = target if isinstance(target_name_or_xy_pos, str) else self.place_at(place)
            self.moves.append((name, label))
        return "success" if self.paper else result      # the paper's API always said success

    @staticmethod
    def _already_at(position: np.ndarray, target, place: np.ndarray) -> bool:
        """Whether a block at ``position`` already is in the target bowl or at the target
        point (a block target is never satisfied by a covered block)."""
        distance = float(np.linalg.norm(position[:2] - place[:2]))
        if isinstance(target, str):
            return target.endswith(" bowl") and distance < IN_BOWL
        return distance < STACK_RADIUS

    def _around(self, name: str, position: np.ndarray) -> tuple[str, ...]:
        """The other objects where ``name`` lies (its pile, the bowl it is in): a place to
        put what covers it would cover it again."""
        near = []
        for other in self.robot.object_names():
            q = np.asarray(self.robot.object_position(other), dtype=float).reshape(-1)
            if other != name and np.linalg.norm(q[:2] - position[:2]) < IN_BOWL:
                near.append(other)
        return tuple(near)

    def _resting_on(self, name: str, position: np.ndarray) -> list[str]:
        """The blocks stacked on block ``name``, highest first."""
        if not name.endswith(" block") or position.shape[0] < 3:
            return []
        above = []
        for other in self.robot.object_names():
            if other == name or not other.endswith(" block"):
                continue
            q = np.asarray(self.robot.object_position(other), dtype=float).reshape(-1)
            if q.shape[0] >= 3 and np.linalg.norm(q[:2] - position[:2]) < STACK_RADIUS \
                    and q[2] > position[2] + STACK_HEIGHT:
                above.append((float(q[2]), other))
        return [n for _, n in sorted(above, reverse=True)]


def paper_key(name: str) -> str:
    """A name as the paper's environment read it: ``'the'`` and ``_`` dropped."""
    return name.replace("the", "").replace("_", " ").strip()


def paper_name(name: object, names: list[str]) -> str:
    """The object ``name`` meant, looked up as the paper's environment did (``get_obj_id``:
    then ``circle``/``square``/``small`` read as bowl/block/nothing), or its hint."""
    if not isinstance(name, str):
        raise SemanticHintError(f"Unknown object {name!r}. Use one of {sorted(names)}")
    key = paper_key(name)
    if key not in names:
        key = key.replace("circle", "bowl").replace("square", "block").replace("small", "").strip()
    if key not in names:
        raise SemanticHintError(f'Unknown object "{key}". Use one of {sorted(names)}')
    return key


__all__ = ["TabletopApi", "TabletopRobot", "DEFAULT_BOUNDS", "OUT_OF_BOUNDS", "PLACE_NAMES"]

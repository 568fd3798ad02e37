"""What the robot sees, as ``visualization_msgs/MarkerArray`` for RViz and Foxglove.

Two builders from plain data, both in one fixed frame (``frame_id``, by default ``map``), so
RViz needs no TF tree (the tf2 packages are not on PyPI):

* :func:`household_markers`: objects (a cylinder and a label each), furniture (a box up to
  its surface height, labelled), named locations (an arrow along the base yaw, labelled),
  the robot (a base cylinder with a heading arrow and a label saying what each hand holds)
  and, if known, the human;
* :func:`tabletop_markers`: blocks (cubes) and bowls (flat cylinders) in their CaP colours,
  labelled, and the suction gripper.

Every array starts with a DELETEALL marker, so an object that is gone disappears; markers
never expire (``lifetime`` 0): publishers send a new array when the world changed, on a
latched topic (transient local) so a viewer that starts late sees the current one.
Namespaces (``ns``) group them so each kind can be switched off in RViz's display tree.
"""
from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from ..core.apis.humanoid import SceneObject
from .conversions import FRAME, pose6_to_msg
from .qos import LATCHED

# latched: the last array for a viewer that subscribes later (RViz: Durability "Transient Local")
MARKERS_QOS = LATCHED

# namespaces
NS_OBJECTS, NS_FURNITURE, NS_LOCATIONS = "objects", "furniture", "locations"
NS_ROBOT, NS_HUMAN, NS_LABELS = "robot", "human", "labels"
NS_BLOCKS, NS_BOWLS, NS_GRIPPER = "blocks", "bowls", "gripper"

# sizes (m): the world files give positions and surface heights, not shapes
OBJECT_DIAMETER, OBJECT_HEIGHT = 0.08, 0.15
FURNITURE_SIZE = (0.8, 0.8)
ROBOT_DIAMETER, ROBOT_HEIGHT = 0.5, 1.2
LOCATION_ARROW = 0.4
LABEL_HEIGHT = 0.12                 # text size of the household labels
TABLETOP_LABEL_HEIGHT = 0.025

_OBJECT = (0.95, 0.55, 0.15, 1.0)
_HELD = (0.95, 0.85, 0.1, 1.0)
_FURNITURE = (0.55, 0.4, 0.28, 0.8)
_LOCATION = (0.2, 0.75, 0.3, 0.9)
_ROBOT = (0.25, 0.45, 0.9, 0.9)
_HUMAN = (0.85, 0.75, 0.65, 0.9)
_TEXT = (1.0, 1.0, 1.0, 1.0)
_GRIPPER = (0.3, 0.3, 0.3, 1.0)


def marker_id(name: str) -> int:
    """A stable id per name (within a namespace), so a viewer can follow one object."""
    return zlib.crc32(name.encode("utf-8")) & 0x7FFFFFFF


def _color(rgba: Sequence[float]) -> ColorRGBA:
    r, g, b, a = (float(v) for v in rgba)
    return ColorRGBA(r=r, g=g, b=b, a=a)


def _marker(kind: int, ns: str, name: str, pose6: Sequence[float], scale: Sequence[float],
            rgba: Sequence[float], frame_id: str, stamp, text: str = "") -> Marker:
    m = Marker(type=kind, action=Marker.ADD, ns=ns, id=marker_id(name), text=text,
               frame_locked=False)
    m.header.frame_id = frame_id
    if stamp is not None:
        m.header.stamp = stamp
    m.pose = pose6_to_msg(pose6)
    m.scale.x, m.scale.y, m.scale.z = (float(v) for v in scale)
    m.color = _color(rgba)
    return m


def _label(name: str, text: str, xyz: Sequence[float], height: float, frame_id: str,
           stamp) -> Marker:
    x, y, z = (float(v) for v in xyz)
    return _marker(Marker.TEXT_VIEW_FACING, NS_LABELS, name, (x, y, z, 0, 0, 0),
                   (0.0, 0.0, height), _TEXT, frame_id, stamp, text=text)


def _delete_all(frame_id: str, stamp) -> Marker:
    m = Marker(action=Marker.DELETEALL)
    m.header.frame_id = frame_id
    if stamp is not None:
        m.header.stamp = stamp
    return m


def household_markers(objects: Iterable[SceneObject], locations: Mapping[str, Sequence[float]],
                      *, furniture: Iterable[str] = (), robot_pose: Sequence[float] | None = None,
                      hands: Mapping[str, str | None] | None = None,
                      human_xy: Sequence[float] | None = None, frame_id: str = FRAME,
                      stamp=None) -> MarkerArray:
    """The household scene: ``objects`` as the robot knows them (perceived objects and
    furniture; names in ``furniture`` are drawn as furniture), ``locations`` name -> base pose
    ``[x, y, yaw]``, the robot at ``robot_pose`` ``[x, y, yaw]`` (None: unknown, not drawn)
    with what ``hands`` hold (by default: the objects whose ``held_by`` names a hand)."""
    furniture = set(furniture)
    objects = list(objects)
    markers = [_delete_all(frame_id, stamp)]
    for obj in objects:
        pose = np.asarray(obj.pose, dtype=float)
        if obj.name in furniture:
            top = max(float(pose[2]), 0.05)
            markers.append(_marker(Marker.CUBE, NS_FURNITURE, obj.name,
                                   (pose[0], pose[1], top / 2, 0, 0, pose[5]),
                                   (*FURNITURE_SIZE, top), _FURNITURE, frame_id, stamp))
            markers.append(_label(f"furniture/{obj.name}", obj.name, (pose[0], pose[1], top + 0.5),
                                  LABEL_HEIGHT, frame_id, stamp))
            continue
        held = obj.held_by is not None
        markers.append(_marker(Marker.CYLINDER, NS_OBJECTS, obj.name, pose,
                               (OBJECT_DIAMETER, OBJECT_DIAMETER, OBJECT_HEIGHT),
                               _HELD if held else _OBJECT, frame_id, stamp))
        where = f"held by {obj.held_by}" if held else obj.location or "location unknown"
        markers.append(_label(f"object/{obj.name}", f"{obj.name}\n{where}",
                              (pose[0], pose[1], pose[2] + OBJECT_HEIGHT / 2 + 0.15),
                              LABEL_HEIGHT * 0.8, frame_id, stamp))
    for name, base in locations.items():
        x, y, yaw = (float(v) for v in base)
        markers.append(_marker(Marker.ARROW, NS_LOCATIONS, name, (x, y, 0.02, 0, 0, yaw),
                               (LOCATION_ARROW, 0.06, 0.06), _LOCATION, frame_id, stamp))
        markers.append(_label(f"location/{name}", name, (x, y, 0.2), LABEL_HEIGHT * 0.7,
                              frame_id, stamp))
    if robot_pose is not None:
        if hands is None:
            hands = {"left": None, "right": None}
            for obj in objects:
                if obj.held_by in hands:
                    hands[obj.held_by] = obj.name
        x, y, yaw = (float(v) for v in robot_pose)
        markers.append(_marker(Marker.CYLINDER, NS_ROBOT, "base",
                               (x, y, ROBOT_HEIGHT / 2, 0, 0, yaw),
                               (ROBOT_DIAMETER, ROBOT_DIAMETER, ROBOT_HEIGHT), _ROBOT,
                               frame_id, stamp))
        markers.append(
            _marker(
                Marker.ARROW,
                NS_ROBOT,
                "heading",
                (x, y, ROBOT_HEIGHT + 0.05, 0, 0, yaw),
                (0.5, 0.08, 0.08),
                _ROBOT,
                frame_id,
                stamp,
            )
        )
        held = "\n".join(f"{hand}: {hands.get(hand) or '-'}" for hand in ("left", "right"))
        markers.append(_label("robot", f"robot\n{held}", (x, y, ROBOT_HEIGHT + 0.45),
                              LABEL_HEIGHT, frame_id, stamp))
    if human_xy is not None:
        hx, hy = (float(v) for v in human_xy)
        markers.append(_marker(Marker.CYLINDER, NS_HUMAN, "human", (hx, hy, 0.85, 0, 0, 0),
                               (0.4, 0.4, 1.7), _HUMAN, frame_id, stamp))
        markers.append(_label("human", "human", (hx, hy, 1.9), LABEL_HEIGHT, frame_id, stamp))
    return MarkerArray(markers=markers)


def tabletop_markers(objects: Iterable[tuple[str, Sequence[float]]],
                     gripper_xyz: Sequence[float] | None = None, *, frame_id: str = FRAME,
                     stamp=None) -> MarkerArray:
    """The CaP tabletop: ``objects`` as (``'<colour> block'`` / ``'<colour> bowl'``, xyz: a
    block's centre, a bowl's base), coloured as in the simulator; the gripper's cup tip."""
    from ..sims.tabletop2d import BLOCK_SIZE, BOWL_RADIUS, COLORS, parse_name

    markers = [_delete_all(frame_id, stamp)]
    for name, xyz in objects:
        x, y, z = (float(v) for v in xyz)
        color, kind = parse_name(name)
        rgba = (*(c / 255.0 for c in COLORS[color]), 1.0)
        if kind == "block":
            markers.append(_marker(Marker.CUBE, NS_BLOCKS, name, (x, y, z, 0, 0, 0),
                                   (BLOCK_SIZE,) * 3, rgba, frame_id, stamp))
        else:
            markers.append(
                _marker(
                    Marker.CYLINDER,
                    NS_BOWLS,
                    name,
                    (x, y, z + 0.0075, 0, 0, 0),
                    (2 * BOWL_RADIUS, 2 * BOWL_RADIUS, 0.015),
                    rgba,
                    frame_id,
                    stamp,
                )
            )
        markers.append(_label(f"tabletop/{name}", name, (x, y, z + 0.06),
                              TABLETOP_LABEL_HEIGHT, frame_id, stamp))
    if gripper_xyz is not None:
        x, y, z = (float(v) for v in gripper_xyz)
        markers.append(_marker(Marker.CYLINDER, NS_GRIPPER, "cup", (x, y, z + 0.015, 0, 0, 0),
                               (0.024, 0.024, 0.03), _GRIPPER, frame_id, stamp))
    return MarkerArray(markers=markers)


def positions(array: MarkerArray, ns: str) -> dict[int, np.ndarray]:
    """Marker id -> xyz of the ADD markers of one namespace (tests, the bag summary)."""
    return {m.id: np.array([m.pose.position.x, m.pose.position.y, m.pose.position.z])
            for m in array.markers if m.ns == ns and m.action == Marker.ADD}


def yaw_of(marker: Marker) -> float:
    """The yaw of a marker's orientation (rotation about z)."""
    q = marker.pose.orientation
    return math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))


class SceneMarkerPublisher:
    """The interaction node's own view as markers: its scene memory (what perception last
    reported plus the configured furniture and named locations) and the robot where its last
    move ended (``robot_pose()``, None: not drawn). Checked every ``period_s`` on the node's
    executor, published when it changed, so a real robot's scene shows the same way."""

    def __init__(self, node, scene_memory, topic: str, frame_id: str = FRAME,
                 robot_pose=lambda: None, period_s: float = 0.2, callback_group=None):
        self.node, self.scene_memory, self.frame_id = node, scene_memory, frame_id
        self.robot_pose = robot_pose
        self.publisher = node.create_publisher(MarkerArray, topic, MARKERS_QOS)
        self._key: tuple | None = None
        self.published = 0
        self.timer = node.create_timer(period_s, self.update, callback_group=callback_group)

    def update(self) -> bool:
        """Publish the markers if the view changed; True if it did."""
        objects = self.scene_memory.objects()
        pose = self.robot_pose()
        key = (tuple((o.name, tuple(np.round(np.asarray(o.pose, dtype=float), 4)), o.location,
                      o.held_by) for o in objects),
               None if pose is None else tuple(np.round(pose, 4)))
        if key == self._key:
            return False
        self._key = key
        knowledge = self.scene_memory.knowledge
        array = household_markers(objects, self.scene_memory.locations(),
                                  furniture=[f.name for f in knowledge.furniture],
                                  robot_pose=pose, frame_id=self.frame_id,
                                  stamp=self.node.get_clock().now().to_msg())
        try:
            self.publisher.publish(array)
        except Exception:  # noqa: BLE001 - the context is going away (shutdown)
            return False
        self.published += 1
        return True

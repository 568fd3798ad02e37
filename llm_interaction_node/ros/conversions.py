"""Conversions between the core's numpy poses / SceneObject and ROS messages (transforms3d)."""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from geometry_msgs.msg import Pose, PoseStamped
from llm_interaction_interfaces.msg import Scene
from llm_interaction_interfaces.msg import SceneObject as SceneObjectMsg
from transforms3d.euler import euler2quat, quat2euler

from ..core.apis.humanoid import SceneObject

FRAME = "map"


def pose6_to_msg(pose6: Iterable[float]) -> Pose:
    """``[x, y, z, roll, pitch, yaw]`` (static axes 'sxyz') -> geometry_msgs/Pose."""
    x, y, z, roll, pitch, yaw = (float(v) for v in pose6)
    w, qx, qy, qz = euler2quat(roll, pitch, yaw, "sxyz")
    msg = Pose()
    msg.position.x, msg.position.y, msg.position.z = x, y, z
    msg.orientation.w, msg.orientation.x, msg.orientation.y, msg.orientation.z = w, qx, qy, qz
    return msg


def msg_to_pose6(msg: Pose) -> np.ndarray:
    """geometry_msgs/Pose -> ``[x, y, z, roll, pitch, yaw]``; a zero quaternion counts as \
identity."""
    q = np.array([msg.orientation.w, msg.orientation.x, msg.orientation.y, msg.orientation.z])
    norm = float(np.linalg.norm(q))
    if not math.isfinite(norm) or norm < 1e-9:
        q, norm = np.array([1.0, 0.0, 0.0, 0.0]), 1.0
    roll, pitch, yaw = quat2euler(q / norm, "sxyz")
    return np.array([msg.position.x, msg.position.y, msg.position.z, roll, pitch, yaw], dtype=float)


def base_pose_to_msg(pose3: Iterable[float], frame_id: str = FRAME) -> PoseStamped:
    """Base pose ``[x, y, yaw]`` -> geometry_msgs/PoseStamped (z = 0)."""
    x, y, yaw = (float(v) for v in pose3)
    msg = PoseStamped()
    msg.header.frame_id = frame_id
    msg.pose = pose6_to_msg([x, y, 0.0, 0.0, 0.0, yaw])
    return msg


def msg_to_base_pose(msg: PoseStamped | Pose) -> np.ndarray:
    """geometry_msgs/PoseStamped or Pose -> ``[x, y, yaw]``."""
    pose = msg.pose if isinstance(msg, PoseStamped) else msg
    p6 = msg_to_pose6(pose)
    return np.array([p6[0], p6[1], p6[5]])


def scene_object_to_msg(obj: SceneObject) -> SceneObjectMsg:
    return SceneObjectMsg(name=obj.name, object_class=obj.object_class, pose=pose6_to_msg(obj.pose),
                          location=obj.location or "", affordances=list(obj.affordances),
                          held_by=obj.held_by or "")


def msg_to_scene_object(msg: SceneObjectMsg) -> SceneObject:
    return SceneObject(name=msg.name, object_class=msg.object_class, pose=msg_to_pose6(msg.pose),
                       location=msg.location or None, affordances=tuple(msg.affordances),
                       held_by=msg.held_by or None)


def scene_to_msg(objects: Iterable[SceneObject], stamp=None, frame_id: str = FRAME) -> Scene:
    msg = Scene(objects=[scene_object_to_msg(o) for o in objects])
    msg.header.frame_id = frame_id
    if stamp is not None:
        msg.header.stamp = stamp
    return msg

"""The QoS profiles the nodes share: a latched topic keeps its last ``depth`` messages for a
subscriber that joins later (a console, a recorder, RViz: Durability "Transient Local");
both sides of a latched topic must ask for it, or the late joiner gets nothing."""
from __future__ import annotations

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy


def latched(depth: int = 1) -> QoSProfile:
    """Reliable, transient local, the last ``depth`` messages kept."""
    return QoSProfile(depth=depth, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                      reliability=ReliabilityPolicy.RELIABLE)


LATCHED = latched()            # the last message: a state, a scene, a marker array

__all__ = ["LATCHED", "latched"]

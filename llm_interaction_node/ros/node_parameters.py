"""A node's ROS parameters from a typed settings section: declared and read by one helper.

The section is a dataclass of :func:`~..core.config.setting` fields (default, description,
range); :func:`declare_section` declares each field as a parameter and reads the values back
through the one settings parser (``core/config.from_mapping``). Light on purpose (no agent
imports): the speech nodes start with it. The interaction node derives its own list the same
way and adds its interface names (:mod:`.parameters`).
"""
from __future__ import annotations

from typing import Any

from ..core.config import describe, from_mapping, nest


def declare_section(node, cls: type, prefix: str = "") -> Any:
    """Declare every field of the section class ``cls`` (sub-sections as dotted names) as a
    parameter of ``node`` with its default and description, and return the values as a typed
    ``cls``: a value of the wrong type or out of range is a ValueError naming the parameter.
    ROS parameters cannot be null: '' stands for a None default."""
    from rcl_interfaces.msg import ParameterDescriptor

    values = {}
    for info in describe(cls):
        if info.secret:
            continue
        default = "" if info.default is None else info.default
        descriptor = ParameterDescriptor(description=info.description, dynamic_typing=True)
        values[info.name] = node.declare_parameter(prefix + info.name, default, descriptor).value
    return from_mapping(cls, nest(values), node.get_name())

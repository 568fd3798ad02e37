"""A node's ROS parameters from a typed settings section: declared and read by one helper.

The section is a dataclass of :func:`~..core.settings.config.setting` fields (default, description,
range); :func:`declare_section` declares each field as a parameter and reads the values back
through the one settings parser (``core/settings/config.py: from_mapping``). Every node declares its
parameters here; the interaction node (:mod:`.interaction_parameters`) declares the fields of
its sections with :func:`declare_settings` and reads them in the settings' precedence (the
``LLM_INTERACTION_*`` variables over its parameters). Light on purpose (no agent imports):
the speech nodes start with it.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.settings.config import SettingInfo, describe, from_mapping, nest


def declare_settings(node, settings: Iterable[SettingInfo], prefix: str = "",
                     read_only: bool = False) -> dict[str, Any]:
    """Declare each (non-secret) setting as a parameter of ``node`` with its default and
    description; dotted name -> the value given (any type: the parser converts and checks).
    ROS parameters cannot be null: '' stands for a None default."""
    from rcl_interfaces.msg import ParameterDescriptor

    values = {}
    for info in settings:
        if info.secret:
            continue
        default = "" if info.default is None else info.default
        descriptor = ParameterDescriptor(description=info.description, dynamic_typing=True,
                                         read_only=read_only)
        values[info.name] = node.declare_parameter(prefix + info.name, default, descriptor).value
    return values


def declare_section(node, cls: type, prefix: str = "", read_only: bool = False) -> Any:
    """Declare every field of the section class ``cls`` (sub-sections as dotted names) as a
    parameter of ``node`` and return the values as a typed ``cls``: a value of the wrong type
    or out of range is a ValueError naming the parameter."""
    values = declare_settings(node, describe(cls), prefix, read_only)
    return from_mapping(cls, nest(values), node.get_name())

"""Typed settings sections: dataclass fields that carry their default and a description.

Every section of the settings (``llm``, ``agent``, ``memory``, ``learning``; the ROS node's
own ``timeouts``, ``robot``, ...) is a dataclass whose fields are declared with
:func:`setting`. The settings file, the ROS parameter list and its descriptions are derived
from these fields (:func:`describe`), so a default is written once. :func:`from_mapping`
reads a section from a mapping (YAML, ROS parameters): unknown keys and values of the wrong
type are refused, naming the key.
"""
from __future__ import annotations

import copy
import typing
from dataclasses import MISSING, Field, dataclass, field, fields, is_dataclass
from typing import Any, Literal, Mapping

DESCRIPTION = "description"
SECRET = "secret"          # metadata flag: never a ROS parameter, never printed


def setting(default: Any, description: str, *, secret: bool = False, **kwargs: Any) -> Any:
    """A dataclass field with its default and a one-line description (shown in the ROS
    parameter list). ``secret``: read from files and the environment only (API keys)."""
    metadata = {DESCRIPTION: description, SECRET: secret}
    if isinstance(default, (list, dict, set)):
        return field(default_factory=lambda: copy.deepcopy(default), metadata=metadata, **kwargs)
    return field(default=default, metadata=metadata, **kwargs)


@dataclass(frozen=True)
class SettingInfo:
    """One leaf setting: its dotted name, default, description and type."""

    name: str
    default: Any
    description: str
    type: Any
    secret: bool = False


def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _default(f: Field) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    raise TypeError(f"setting {f.name} has no default")


def describe(cls: type, prefix: str = "") -> list[SettingInfo]:
    """Every leaf setting of a section class (sub-sections flattened to dotted names)."""
    out: list[SettingInfo] = []
    hints = _hints(cls)
    for f in fields(cls):
        kind = hints[f.name]
        if isinstance(kind, type) and is_dataclass(kind):
            out += describe(kind, f"{prefix}{f.name}.")
            continue
        out.append(SettingInfo(f"{prefix}{f.name}", _default(f), f.metadata.get(DESCRIPTION, ""),
                               kind, bool(f.metadata.get(SECRET))))
    return out


def coerce(value: Any, kind: Any, where: str) -> Any:
    """``value`` as type ``kind`` (bool, int, float, str, Literal, X | None); strings from the
    environment or a command line are parsed. ValueError names ``where``."""
    args = typing.get_args(kind)
    if typing.get_origin(kind) in (typing.Union, _UnionType) and type(None) in args:
        if value is None:
            return None
        (kind,) = [a for a in args if a is not type(None)]
        args = typing.get_args(kind)
    if typing.get_origin(kind) is Literal:
        if value not in args:
            raise ValueError(f"{where}={value!r} is invalid: use one of {', '.join(map(repr, args))}")
        return value
    if kind is bool:
        if isinstance(value, str) and value.strip().lower() in _BOOL_WORDS:
            return _BOOL_WORDS[value.strip().lower()]
        if not isinstance(value, bool):
            raise ValueError(f"{where}={value!r} is not true or false")
        return value
    if kind is int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where}={value!r} is not a whole number")
        return value
    if kind is float:
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{where}={value!r} is not a number")
        return float(value)
    if kind is str:
        if not isinstance(value, str):
            raise ValueError(f"{where}={value!r} is not text")
        return value
    return value


_UnionType = type(int | None)
_BOOL_WORDS = {"true": True, "yes": True, "on": True, "1": True,
               "false": False, "no": False, "off": False, "0": False}


def from_mapping(cls: type, values: Mapping[str, Any] | None, name: str) -> Any:
    """An instance of the section class ``cls`` from ``values`` (missing keys: defaults).
    Unknown keys, sub-sections and values of the wrong type raise ValueError."""
    if values is None:
        values = {}
    if not isinstance(values, Mapping):
        raise ValueError(f"the '{name}' settings must be a mapping, not {values!r}")
    known = [f.name for f in fields(cls)]
    unknown = sorted(map(str, set(values) - set(known)))
    if unknown:
        raise ValueError(f"unknown {name} setting(s) {', '.join(unknown)}; "
                         f"known: {', '.join(known)}")
    hints = _hints(cls)
    kwargs = {}
    for key, value in values.items():
        kind = hints[key]
        if isinstance(kind, type) and is_dataclass(kind):
            kwargs[key] = from_mapping(kind, value, f"{name}.{key}")
        else:
            kwargs[key] = coerce(value, kind, f"{name}.{key}")
    return cls(**kwargs)


def nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    """``{'llm.model': 'x'}`` -> ``{'llm': {'model': 'x'}}`` (the inverse of :func:`flatten`)."""
    out: dict[str, Any] = {}
    for name, value in flat.items():
        *parents, leaf = name.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"setting {name!r} is inside {part!r}, which is a value")
        node[leaf] = value
    return out


def flatten(nested: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{'llm': {'model': 'x'}}`` -> ``{'llm.model': 'x'}``."""
    out: dict[str, Any] = {}
    for key, value in nested.items():
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out

"""Typed settings sections: dataclass fields that carry their default and a description.

Every section of the settings (``llm``, ``agent``, ``memory``, ``learning``; the ROS node's
own ``timeouts``, ``robot``, ...) is a dataclass whose fields are declared with
:func:`setting`. The settings file, the ROS parameter list and its descriptions are derived
from these fields (:func:`describe`), so a default is written once. :func:`from_mapping`
reads a section from a mapping (YAML, ROS parameters): unknown keys and values of the wrong
type are refused, naming the key. A field may name the environment variable that sets it
(``env=``, read only by :func:`from_environment`) and its range (``minimum``/``maximum``,
``above``: exclusive) or any other rule (``check``); :func:`check_section` applies the types
and rules to a constructed section, so a section built in code is checked like a file. A
choice is a ``Literal`` or an enum (a ``StrEnum`` such as ``memory.order``: the field then
holds the member; files, the environment and ROS parameters give its value).

One precedence, later ones win: the field defaults; ``fallback_env`` variables (OPENAI_*);
the file or the ROS parameters; ``env`` variables; command-line options (see
``settings.Settings.from_dict``).
"""
from __future__ import annotations

import copy
import enum
import os
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields, is_dataclass
from typing import Any, Literal

DESCRIPTION = "description"
SECRET = "secret"          # metadata flag: never a ROS parameter, never printed
ENV = "env"                # metadata: the environment variable that overrides the file
FALLBACK_ENV = "fallback_env"  # metadata: a variable used only when nothing else sets it
RULES = "rules"            # metadata: (minimum, maximum, above, check)


def setting(default: Any, description: str, *, secret: bool = False, env: str | None = None,
            fallback_env: str | None = None, minimum: float | None = None,
            maximum: float | None = None, above: float | None = None,
            check: Callable[[Any], str | None] | None = None, **kwargs: Any) -> Any:
    """A dataclass field with its default and a one-line description (shown in the ROS
    parameter list). ``secret``: read from files and the environment only (API keys).
    ``env``: the environment variable that sets it (beats the file, loses to options);
    ``fallback_env``: one that counts only when nothing else sets it. ``minimum``,
    ``maximum`` (inclusive), ``above`` (exclusive) bound a number; ``check(value)`` returns
    what is wrong with a value, or None."""
    metadata = {DESCRIPTION: description, SECRET: secret, ENV: env, FALLBACK_ENV: fallback_env,
                RULES: (minimum, maximum, above, check)}
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
    env: str | None = None


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
        default = _default(f)
        if isinstance(default, enum.Enum):     # a ROS parameter, a YAML value: the plain value
            default = default.value
        out.append(SettingInfo(f"{prefix}{f.name}", default, f.metadata.get(DESCRIPTION, ""),
                               kind, bool(f.metadata.get(SECRET)), f.metadata.get(ENV)))
    return out


def coerce(value: Any, kind: Any, where: str) -> Any:
    """``value`` as type ``kind`` (bool, int, float, str, Literal, an enum, list, X | None);
    strings from the environment or a command line are parsed. ValueError names ``where``."""
    args = typing.get_args(kind)
    if typing.get_origin(kind) in (typing.Union, _UnionType) and type(None) in args:
        if value is None:
            return None
        (kind,) = [a for a in args if a is not type(None)]
        args = typing.get_args(kind)
    if typing.get_origin(kind) is Literal:
        return _choice(value, args, where)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return value if isinstance(value, kind) else \
            kind(_choice(value, tuple(m.value for m in kind), where))
    if typing.get_origin(kind) is list:
        if isinstance(value, str):                 # 'stop, halt' from a command line
            value = value.split(",")
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{where}={value!r} is not a list")
        (item,) = typing.get_args(kind) or (Any,)
        items = [coerce(v, item, where) for v in value]
        return [v.strip() for v in items if v.strip()] if item is str else items
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
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str):
            raise ValueError(f"{where}={value!r} is not text")
        return value
    return value


def _choice(value: Any, choices: tuple, where: str) -> Any:
    """``value`` if it is one of ``choices`` ('CHAT' from the environment: 'chat')."""
    if isinstance(value, str) and value not in choices and value.strip().lower() in choices:
        value = value.strip().lower()
    if value not in choices:
        raise ValueError(f"{where}={value!r} is invalid: use one of "
                         f"{', '.join(map(repr, choices))}")
    return value


_UnionType = type(int | None)
_BOOL_WORDS = {"true": True, "yes": True, "on": True, "1": True,
               "false": False, "no": False, "off": False, "0": False}


def from_mapping(cls: type, values: Mapping[str, Any] | None, name: str,
                 sources: Mapping[str, str] | None = None) -> Any:
    """An instance of the section class ``cls`` from ``values`` (missing keys and None:
    defaults). Unknown keys, sub-sections, values of the wrong type or out of range raise
    ValueError naming the key, or ``sources[key]`` (e.g. the environment variable it came
    from)."""
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
    by_name = {f.name: f for f in fields(cls)}
    kwargs = {}
    for key, value in values.items():
        kind = hints[key]
        if isinstance(kind, type) and is_dataclass(kind):
            kwargs[key] = from_mapping(kind, value, f"{name}.{key}")
        elif value is not None and not (value == "" and _optional(kind)):
            where = (sources or {}).get(key, f"{name}.{key}")
            kwargs[key] = _checked(coerce(value, kind, where), by_name[key], where)
    return cls(**kwargs)


def _checked(value: Any, f: Field, where: str) -> Any:
    minimum, maximum, above, check = f.metadata.get(RULES, (None, None, None, None))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value != value:                                   # NaN
            raise ValueError(f"{where}={value!r} is not a number")
        if minimum is not None and value < minimum:
            raise ValueError(f"{where}={value!r} must be >= {minimum:g}")
        if maximum is not None and value > maximum:
            raise ValueError(f"{where}={value!r} is out of range: it must be <= {maximum:g}"
                             + (f" (within {minimum:g}..{maximum:g})" if minimum is not None
                                else ""))
        if above is not None and not value > above:
            raise ValueError(f"{where}={value!r} must be > {above:g}")
    problem = check(value) if check is not None and value is not None else None
    if problem:
        raise ValueError(f"{where}={value!r} {problem}")
    return value


def check_section(section: Any, name: str) -> None:
    """Type and rules of every leaf field of a constructed section (``__post_init__``), so
    ``Section(field=value)`` in code is refused as a file would be; values are normalised
    in place (``1`` -> ``1.0`` for a float, ``'true'`` -> ``True``)."""
    hints = _hints(type(section))
    for f in fields(section):
        kind = hints[f.name]
        if isinstance(kind, type) and is_dataclass(kind):
            continue
        where = f"{name}.{f.name}"
        value = getattr(section, f.name)
        if value is None and _optional(kind):
            continue
        object.__setattr__(section, f.name, _checked(coerce(value, kind, where), f, where))


def _optional(kind: Any) -> bool:
    return typing.get_origin(kind) in (typing.Union, _UnionType) and type(None) in typing.get_args(
        kind
    )


def from_environment(cls: type, env: Mapping[str, str], fallback: bool = False
                     ) -> tuple[dict[str, str], dict[str, str]]:
    """(values, sources) of the fields of ``cls`` whose ``env`` variable (``fallback``: their
    ``fallback_env``) is set and not empty in ``env``; sources name the variable."""
    values: dict[str, str] = {}
    sources: dict[str, str] = {}
    for f in fields(cls):
        variable = f.metadata.get(FALLBACK_ENV if fallback else ENV)
        if variable and str(env.get(variable, "")).strip():
            values[f.name] = env[variable].strip()
            sources[f.name] = f"environment variable {variable}"
    return values, sources


def load_section(cls: type, values: Mapping[str, Any] | None, name: str,
                 env: Mapping[str, str] = os.environ,
                 overrides: Mapping[str, Any] | None = None) -> Any:
    """A section from its sources, later ones win: the field defaults, the ``fallback_env``
    variables, ``values`` (a file, ROS parameters), the ``env`` variables, ``overrides``
    (command-line options; None values are skipped). Errors name where a value came from."""
    if values is not None and not isinstance(values, Mapping):
        raise ValueError(f"the '{name}' settings must be a mapping, not {values!r}")
    fallback, fallback_sources = from_environment(cls, env, fallback=True)
    given = {k: v for k, v in (values or {}).items() if v is not None and not
             (isinstance(v, str) and not v.strip() and k in fallback)}
    environment, sources = from_environment(cls, env)
    forced = {k: v for k, v in (overrides or {}).items() if v is not None}
    sources = {**{k: v for k, v in fallback_sources.items() if k not in given},
               **{k: v for k, v in sources.items() if k not in forced},
               **{k: f"option {name}.{k}" for k in forced}}
    return from_mapping(cls, {**fallback, **given, **environment, **forced}, name, sources)


def environment_variables(cls: type) -> dict[str, str]:
    """field name -> its environment variable, for the fields of ``cls`` that have one."""
    return {f.name: f.metadata[ENV] for f in fields(cls) if f.metadata.get(ENV)}


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

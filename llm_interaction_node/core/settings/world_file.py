"""The household world file format (``config/worlds/*.yaml``), read and checked in one place.

The simulator's worlds (:class:`~...sims.household.HouseholdWorld`) and the interaction node's
static knowledge (:class:`~..apis.knowledge.StaticKnowledge`) read the same files. A file that
is not YAML, or holds a key the format does not know (a misspelt ``loaction`` was taken
silently), or a value of the wrong kind, is a ``ValueError`` of one line that says where:
``worlds/mine.yaml: objects.cup_0: unknown key 'loaction' (did you mean 'location'?)``.
The format is a JSON Schema (:data:`SCHEMA`), checked with ``jsonschema``.
"""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import yaml

_NUMBER = {"type": "number"}
_NAME = {"type": "string", "minLength": 1}


def _numbers(n: int) -> dict:
    return {"type": "array", "items": _NUMBER, "minItems": n, "maxItems": n}


def _record(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict:
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}


def _named(value: dict) -> dict:
    """A mapping of names (objects, furniture, ...) to ``value``."""
    return {"type": "object", "propertyNames": _NAME, "additionalProperties": value}


_AFFORDANCES = {"type": "array", "items": _NAME}
SCHEMA = _record({
    "name": {"type": "string"},
    "description": {"type": "string"},
    "room": _record({"x": _numbers(2), "y": _numbers(2)}),
    "robot": _record({
        "start": {"anyOf": [_NAME, _numbers(3)]},
        "base_speed": _NUMBER, "turn_speed": _NUMBER, "reach_tolerance": _NUMBER,
        "max_reach_height": _NUMBER, "ladder_speed_factor": _NUMBER,
        "durations": _record({k: _NUMBER for k in ("grasp", "place", "handover", "receive",
                                                    "ladder_pickup", "ladder_setup")}),
    }),
    "furniture": _named({"anyOf": [{"type": "null"}, _record({
        "position": _numbers(2), "yaw": _NUMBER, "height": _NUMBER, "approach": _numbers(3),
        "affordances": _AFFORDANCES, "class": _NAME}, required=("position",))]}),
    "locations": _named(_numbers(3)),
    "human": _record({"position": _numbers(2)}),
    "objects": _named({"anyOf": [{"type": "null"}, _record({
        "class": _NAME, "affordances": _AFFORDANCES, "height": _NUMBER, "location": _NAME,
        "offset": _numbers(2), "pose": _numbers(6), "held_by": {"const": "human"},
        "bimanual": {"type": "boolean"}})]}),
    "failures": _named({"anyOf": [{"type": "null"},
                                  _named({"type": "integer", "minimum": 0})]}),
    "random_failures": _record({"probability": {"type": "number", "minimum": 0, "maximum": 1},
                                "seed": {"type": "integer"}, "skills": _AFFORDANCES}),
    "classes": _named({"anyOf": [{"type": "null"}, _AFFORDANCES]}),
})


def check_world(config: Any, source: str = "the world") -> dict[str, Any]:
    """``config`` if it is a world in the format; else ValueError of one line."""
    import jsonschema
    if config is None:
        return {}
    validator = jsonschema.Draft202012Validator(SCHEMA)
    error = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if error is None:
        return config
    where = ".".join(str(p) for p in error.absolute_path) or "the top level"
    raise ValueError(f"{source}: {where}: {_say(error)}")


def _say(error) -> str:
    """One error of jsonschema in words (an unknown key with the nearest known one)."""
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = sorted(error.schema.get("properties", {}))
        unknown = [k for k in error.instance if k not in known]
        if unknown:
            close = difflib.get_close_matches(str(unknown[0]), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return f"unknown key {unknown[0]!r}{hint}; known: {', '.join(known)}"
    if error.validator == "anyOf" and error.context:     # the record's own error, not null's
        return _say(max(error.context, key=lambda e: len(e.absolute_path)))
    return error.message


def read_world_file(path: str | Path) -> dict[str, Any]:
    """A world file read and checked; OSError if it cannot be read, ValueError (one line,
    with the file's name) if it is not YAML or not in the format."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ValueError(f"{path}: not valid YAML ({where}{problem})") from None
    return check_world(config, str(path))

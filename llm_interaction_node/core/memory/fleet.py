"""Lessons shared by a fleet (issue 61 item 4): robots on one Chroma server (``memory.host``).

Every lesson a robot stores records who taught it and where (:class:`Provenance`, stamped by
:meth:`.store.ExampleMemory.make_example`): the robot (``memory.robot_id``; by default the
host name, in the ROS node the host name and the node's namespace), the world it was taught
in (the world file's name) and the things and places of that world it names
(:func:`names_used`: the string literals of its statements that are names of that world's
scene or places; for a habit, those of its edit). Another robot retrieves it like its own;
where its world lacks one of those names (:func:`lacking`), the lesson is not shown as stored
(it would grasp a thing that is not there): it is shown only where the example source read it
in the request's names by meaning (:mod:`.adapt`, :mod:`.meaning`: the missing name replaced by
one of this world), else left out of the prompt and logged (:mod:`.source`); a habit whose
edit names what this world lacks is not applied (``session.taught_habits``).
"""
from __future__ import annotations

import json
import re
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..transcript.transcript import Transcript
from .adapt import lesson_names

_QUOTED = re.compile(r"'([^'\\\n]*)'|\"([^\"\\\n]*)\"")


def default_robot_id(namespace: str = "") -> str:
    """The robot's id where ``memory.robot_id`` is not set: the host name, with the ROS
    namespace of the node where it has one (two robots on one host: ``host/robot_a``)."""
    host = socket.gethostname() or "robot"
    space = namespace.strip("/")
    return f"{host}/{space}" if space else host


def _strings(value) -> Iterable[str]:
    """Every string in a JSON value, and the quoted literals inside them (a call's
    arguments: ``move_to(get_location_coordinates('inFrontOf_sideboard_0'))``)."""
    if isinstance(value, str):
        yield value
        for a, b in _QUOTED.findall(value):
            yield a or b
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def names_used(transcript: str, edit: str | None, world_names: Iterable[str]) -> tuple[str, ...]:
    """The names of the teaching world (``world_names``: its scene's things and places) that
    a lesson names: for a habit (``edit``: its edit JSON) those its edit names, else the string
    literals of its statements (what the robot says aside: :func:`.adapt.lesson_names`).
    Sorted; empty where the world's names are unknown."""
    known = set(world_names)
    if not known:
        return ()
    if edit:
        try:
            said = set(_strings(json.loads(edit)))
        except (TypeError, ValueError):
            said = set()
    else:
        try:
            said, _listed = lesson_names(Transcript.parse(transcript))
        except ValueError:
            said = set()
    return tuple(sorted(said & known))


def lacking(example, known: Iterable[str], shown: str | None = None) -> list[str]:
    """The things and places a lesson needs (``example.needs``) that the world at hand
    (``known``: its scene's names and places) lacks; with ``shown`` (the lesson as the prompt
    would show it: read in the request's names) only those it still names there. A lesson
    stored without ``needs`` (before issue 61, or with its world's names unknown) lacks
    nothing."""
    needs = getattr(example, "needs", ()) or ()
    if not needs:
        return []
    here = set(known)
    missing = [name for name in needs if name not in here]
    if not missing or shown is None:
        return missing
    try:
        literals, _listed = lesson_names(Transcript.parse(shown))
    except ValueError:
        return missing
    return [name for name in missing if name in literals]


@dataclass(frozen=True)
class Provenance:
    """Who stores lessons and where: the robot's id, its world's name and (``names``) the
    names of that world's things and places now (asked when a lesson is stored)."""

    robot: str
    world: str | None = None
    names: Callable[[], Iterable[str]] | None = None

    def needs(self, transcript: str, edit: str | None) -> tuple[str, ...]:
        """:func:`names_used` of a lesson in this robot's world (none where its names cannot
        be read now)."""
        if self.names is None:
            return ()
        try:
            world_names = list(self.names())
        except Exception:  # noqa: BLE001 - no scene now: the lesson needs nothing said
            return ()
        return names_used(transcript, edit, world_names)


def taught_by(example) -> str:
    """Where a lesson came from, in words (``robot 'a' in living_room``), for logs and
    ``memory show``; '' for one stored without it."""
    robot, world = getattr(example, "robot", None), getattr(example, "world", None)
    if not robot and not world:
        return ""
    return " ".join(part for part in (f"robot {robot!r}" if robot else "",
                                      f"in {world}" if world else "") if part)


__all__ = ["Provenance", "default_robot_id", "names_used", "lacking", "taught_by"]

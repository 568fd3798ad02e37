"""A lesson about the speed on one route, written into the move on that route.

Section E3 of the seed: after "I need the sponge at the workbench" the user says "that was quite
slow. remember that the route from the table to the bench is save, you can go faster". The
seed's improved example is the same turn with ``speed_factor=2.0`` on the move from the table to
the workbench. Measured (issue 30, section E, embedded 1.5B model): L_improve's rewrites had the
correction as a dialog turn (the wrong shape); mode ``final`` stored the slow turn with the lesson
as a comment, and the new process copied the turn and ignored the comment (E3, P2: learned, not
used). So where the user's closing reply asks to go faster (or slower) on a route between two
places it names, and the accepted attempt drove that route (a move to one of them right after a
move to the other), the lesson's move on it carries the speed (:data:`FASTER`, :data:`SLOWER`),
as the seed's example does; every other move stays as it was. The replay check then runs it.
"""
from __future__ import annotations

import ast
import re

from ..statements import bare_call
from ..transcript import Entry

FASTER = 2.0       # the seed's improved example (and the humanoid API's default maximum)
SLOWER = 0.5
_FAST = re.compile(r"\b(?:faster|quicker|more quickly|speed up|hurry)\b")
_SLOW = re.compile(r"\b(?:slower|more slowly|slow down|more carefully)\b")
_PLACE = r"(?:the )?(?P<{}>[a-z][a-z -]*?)"
_ROUTES = (
    re.compile(r"\bfrom " + _PLACE.format("a") + r" to " + _PLACE.format("b") +
               r"(?= is\b| are\b|,|\.|;| so\b| you\b|$)"),
    re.compile(r"\bbetween " + _PLACE.format("a") + r" and " + _PLACE.format("b") +
               r"(?= is\b| are\b|,|\.|;| so\b| you\b|$)"),
)
_MIN_PART = 4          # "bench" in "workbench"; shorter parts ("of", "0") never match alone


def route_speed(reply: str) -> tuple[str, str, float] | None:
    """(one place, the other, the speed factor) where ``reply`` asks to drive a route between
    two places faster or slower; else None."""
    text = " ".join(reply.lower().replace("\u2019", "'").split())
    fast, slow = _FAST.search(text), _SLOW.search(text)
    if bool(fast) == bool(slow):
        return None
    for pattern in _ROUTES:
        match = pattern.search(text)
        if match:
            return match.group("a").strip(), match.group("b").strip(), FASTER if fast else SLOWER
    return None


def with_route_speed(reply: str | None, attempt: list[Entry]) -> list[Entry]:
    """``attempt`` with the speed the closing ``reply`` asks for on the move(s) that drive its
    route (:func:`route_speed`); unchanged where it asks for none or the attempt never drove
    it."""
    asked = route_speed(reply or "")
    if asked is None:
        return attempt
    a, b, factor = asked
    changed, where = [], None
    for entry in attempt:
        to = _destination(entry.source)
        if to is None:
            changed.append(entry)
            continue
        on_route = where is not None and (
            (_names_place(a, where) and _names_place(b, to))
            or (_names_place(b, where) and _names_place(a, to)))
        changed.append(Entry(_with_speed(entry.source, factor), entry.output) if on_route
                       else entry)
        where = to
    return changed


def _destination(source: str) -> str | None:
    """The location of ``move_to(get_location_coordinates('<location>'), ...)``."""
    call = bare_call(source)
    if call is None or call.func.id != "move_to" or not call.args:
        return None
    inner = call.args[0]
    if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
            and inner.func.id == "get_location_coordinates" and len(inner.args) == 1
            and isinstance(inner.args[0], ast.Constant) and isinstance(inner.args[0].value, str)):
        return None
    return inner.args[0].value


def _with_speed(source: str, factor: float) -> str:
    call = bare_call(source)
    call.keywords = [k for k in call.keywords if k.arg != "speed_factor"]
    call.args = call.args[:1]
    call.keywords.append(ast.keyword("speed_factor", ast.Constant(factor)))
    return ast.unparse(call)


def _parts(location: str) -> list[str]:
    """``'inFrontOf_workshop-bench_0'`` -> ``['workshop', 'bench']``."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", location.replace("inFrontOf", " "))
    return [p for p in re.split(r"[^a-z]+", spaced.lower()) if p]


def _names_place(phrase: str, location: str) -> bool:
    """Whether the place the user named (its last word: "the long table", "the workbench")
    is the ``location``: a part of the location's name is that word or, at least
    :data:`_MIN_PART` letters long, inside it ("bench" in "workbench")."""
    words = phrase.split()
    if not words:
        return False
    head = words[-1]
    return any(head == p or (len(p) >= _MIN_PART and p in head) for p in _parts(location))


__all__ = ["route_speed", "with_route_speed", "FASTER", "SLOWER"]

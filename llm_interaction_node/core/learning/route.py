"""A lesson about the speed on one route, written into the move on that route.

Section E3 of the seed: after "I need the sponge at the workbench" the user says "that was quite
slow. remember that the route from the table to the bench is save, you can go faster". The
seed's improved example is the same turn with ``speed_factor=2.0`` on the move from the table to
the workbench. Measured (issue 30, section E, embedded 1.5B model): L_improve's rewrites had the
correction as a dialog turn (the wrong shape); mode ``final`` stored the slow turn with the lesson
as a comment, and the new process copied the turn and ignored the comment (E3, P2: learned, not
used). So where the model read the user's closing reply as a speed on a route (:mod:`..reading`:
``faster: <from> -> <to>``, an end ``anywhere`` where the user named none: "you can drive faster
to the kitchen", "speed it up there"), the accepted attempt's moves on that route carry the
speed (:data:`FASTER`, :data:`SLOWER`), as the seed's example does; every other move stays as
it was. The replay check then runs it.

A speed the user taught is about the route, not about the request it was taught in: "the
route from the long table to the bench is safe, you can go faster there from now on" holds for
every later drive there, whichever call drives it (measured, issue 44: the lesson was stored
with ``speed_factor=2.0`` on the steps' drive to the bench, and the next request in other words
was done with one ``bring_object_to`` at the normal speed). So the lessons' drives with a speed
are also the robot's taught routes (:class:`RememberedRoutes`): the humanoid API asks it before
each drive at the normal speed, the drives inside ``bring_object_to`` included.
"""
from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import replace

from ..apis.humanoid_scene import in_front_of
from ..reading.structure import Reading
from ..transcript.statements import bare_call
from ..transcript.transcript import Entry, Transcript

FASTER = 2.0       # the seed's improved example (and the humanoid API's default maximum)
SLOWER = 0.5


def on_route(route: tuple[str | None, str | None], origin: str | None, to: str) -> bool:
    """Whether a move from ``origin`` to ``to`` drives ``route`` (its two ends, None where
    any place will do): both ends named, either direction; one named, that end."""
    a, b = route
    if a is not None and b is not None:
        return {origin, to} == {a, b}
    return (a is None or origin == a) and (b is None or to == b)


def _on_the_route(route: tuple[str | None, str | None], attempt: list[Entry]) -> list[bool]:
    """For each entry of ``attempt``: whether it is a drive on ``route`` (from the end of the
    drive before it; the first drive from wherever the robot stood)."""
    found, where = [], None
    for entry in attempt:
        to = destination(entry.source)
        found.append(to is not None and on_route(route, where, to))
        if to is not None:
            where = to
    return found


def with_route_speed(reply: Reading | None, attempt: list[Entry]) -> list[Entry]:
    """``attempt`` with the speed the closing reply (its reading) asks for on the move(s) that
    drive its route; unchanged where it asks for none or the attempt never drove it."""
    asked = reply.speed if reply is not None else None
    if asked is None:
        return attempt
    factor = FASTER if asked.kind == "faster" else SLOWER
    on = _on_the_route(asked.route or (None, None), attempt)
    return [Entry(_at_speed(entry.source, factor), entry.output) if driven else entry
            for entry, driven in zip(attempt, on, strict=True)]


def lacks_the_speed(reply: Reading | None, lesson: str) -> bool:
    """Whether a lesson (a transcript) leaves out the speed ``reply`` asks for on its route: no
    drive of it goes that route, or one that does is not at that speed (a rewrite by the model
    measured so: "you can drive faster to the windowsill next time", L_improve's rewrite stored
    with every drive at the normal speed). False where the reply asks for no speed."""
    if reply is None or reply.speed is None:
        return False
    factor = FASTER if reply.speed.kind == "faster" else SLOWER
    entries = [e for e in Transcript.parse(lesson).entries if not e.is_comment]
    on = _on_the_route(reply.speed.route or (None, None), entries)
    return not any(on) or any(driven and speed_of(e.source) != factor
                              for e, driven in zip(entries, on, strict=True))


def _given_speed(call: ast.Call) -> ast.expr | None:
    """The speed a drive's call gives, by keyword or by position (None: none given)."""
    at = DRIVES[call.func.id]
    return next((k.value for k in call.keywords if k.arg == "speed_factor"),
                call.args[at] if len(call.args) > at else None)


def speed_of(source: str) -> float | None:
    """The speed factor of a drive (1 where it gives none); None for another statement or a
    speed that is no number."""
    call = bare_call(source)
    if call is None or call.func.id not in DRIVES:
        return None
    given = _given_speed(call)
    if given is None:
        return 1.0
    value = given.value if isinstance(given, ast.Constant) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def undriven_route(reply: Reading | None, attempt: list[Entry]) -> tuple[str | None,
                                                                          str | None] | None:
    """The route ``reply`` asks a speed for where no drive of ``attempt`` goes it (a lesson of
    that speed would hold nothing of it); None where it asks for none or a drive goes it."""
    asked = reply.speed if reply is not None else None
    if asked is None:
        return None
    route = asked.route or (None, None)
    return None if any(_on_the_route(route, attempt)) else route


# drives that take a speed_factor after their positional arguments: how many come first
DRIVES = {"move_to": 1, "bring_object_to": 2}


def destination(source: str) -> str | None:
    """Where a drive goes: the location of ``move_to(get_location_coordinates('<location>'),
    ...)``, or the navigation location in front of the surface ``bring_object_to('<object>',
    'on_<furniture>')`` puts it on (the handover place for ``'handover_to_human'``)."""
    call = bare_call(source)
    if call is None or call.func.id not in DRIVES or len(call.args) < DRIVES[call.func.id]:
        return None
    if call.func.id == "bring_object_to":
        to = call.args[1]
        if not (isinstance(to, ast.Constant) and isinstance(to.value, str)):
            return None
        return in_front_of(to.value) or to.value
    inner = call.args[0]
    if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
            and inner.func.id == "get_location_coordinates" and len(inner.args) == 1
            and isinstance(inner.args[0], ast.Constant) and isinstance(inner.args[0].value, str)):
        return None
    return inner.args[0].value


def _at_speed(source: str, factor: float | None) -> str:
    """The drive ``source`` (one call) at ``factor`` (None: no ``speed_factor``, the normal
    speed), a speed given by position dropped too."""
    call = bare_call(source)
    call.keywords = [k for k in call.keywords if k.arg != "speed_factor"]
    call.args = call.args[:DRIVES[call.func.id]]
    if factor is not None:
        call.keywords.append(ast.keyword("speed_factor", ast.Constant(factor)))
    return ast.unparse(call)


def at_asked_speed(reply: Reading | None, source: str) -> str:
    """``source`` (one statement) at the speed ``reply`` asks for, where it is a drive: the
    turn that answers "you are too slow" hurries on every drive, whatever route was read
    (measured on the household correction bench: "That takes forever. go faster to the
    dishwasher." was read as the route from the dishwasher to the dining table, and no drive
    of the next turn was on it). A lesson keeps the route (:func:`with_route_speed`)."""
    if reply is None or reply.speed is None:
        return source
    anywhere = Reading(reply.utterance, (replace(reply.speed, route=(None, None)),))
    return with_route_speed(anywhere, [Entry(source)])[0].source


def drive_speeds(transcript: str) -> dict[tuple[str | None, str], float]:
    """The taught speeds of a lesson's drives: (from, to) -> factor for each drive whose
    ``speed_factor`` (by keyword or by position) is not the normal 1 (from: the end of the
    lesson's drive before it; None for its first drive and for a ``bring_object_to``, which
    fetches first).

    A first ``move_to`` (from wherever the robot stood) counts only where no drive of the
    lesson with a known start has a speed: its route is not known, so taken as "every drive to
    there" it speeds drives the user never spoke of (measured, section E at 2d444f6: "the
    route from the table to the bench is save, you can go faster" read with no ends, both of
    the lesson's drives fast, and the later fetch of a screwdriver from the long table drove
    fast too)."""
    found: dict[tuple[str | None, str], float] = {}
    first_moves: set[tuple[None, str]] = set()
    where = None
    for entry in Transcript.parse(transcript).entries:
        to = destination(entry.source) if not entry.is_comment else None
        if to is None:
            continue
        call = bare_call(entry.source)
        factor = speed_of(entry.source)         # by keyword or by position
        if factor is not None and factor != 1:
            origin = where if call.func.id == "move_to" else None
            found[(origin, to)] = float(factor)
            if origin is None and call.func.id == "move_to":
                first_moves.add((None, to))
        where = to
    if any(origin is not None for origin, _ in found):
        for key in first_moves:
            found.pop(key, None)
    return found


def without_speeds(transcript: str) -> str:
    """``transcript`` with no speed on its drives (by keyword or by position): how a lesson is
    shown in a prompt. A taught speed is the robot's (:class:`RememberedRoutes`: the API drives
    the route at it whichever call drives it); written in the shown lesson, the model copied it
    onto drives elsewhere (measured, section E at 2d444f6: the lesson
    ``bring_object_to('screwdriver_0', 'on_workshop-bench_0', speed_factor=2.0)``, shown to "put
    the sponge on the kitchen counter", was followed with ``speed_factor=2.0``), and on a
    one-call bring it speeds the fetch too."""
    entries, changed = [], False
    for entry in Transcript.parse(transcript).entries:
        call = bare_call(entry.source) if not entry.is_comment else None
        if call is not None and destination(entry.source) is not None and \
                _given_speed(call) is not None:
            entry, changed = replace(entry, source=_at_speed(entry.source, None)), True
        entries.append(entry)
    return Transcript(entries).render() if changed else transcript


class RememberedRoutes:
    """The routes the user taught a speed on, read from the stored lessons (``lessons``: their
    transcripts, asked again on each call, so a lesson stored or forgotten counts at once);
    called as the humanoid API's ``route_speed(origin, to)``: the factor of the latest lesson
    whose route that drive is on (:func:`on_route`), else None."""

    def __init__(self, lessons: Callable[[], Iterable[str]]):
        self.lessons = lessons
        self._read: dict[str, dict[tuple[str | None, str], float]] = {}   # a stored lesson
        # never changes: each transcript is parsed once, not on every drive

    def routes(self) -> dict[tuple[str | None, str], float]:
        taught: dict[tuple[str | None, str], float] = {}
        for transcript in self.lessons():
            if transcript not in self._read:
                self._read[transcript] = drive_speeds(transcript)
            taught.update(self._read[transcript])       # oldest first: the latest wins
        return taught

    def __call__(self, origin: str | None, to: str) -> float | None:
        found = None
        for route, factor in self.routes().items():
            if on_route(route, origin, to):
                found = factor
        return found


__all__ = ["with_route_speed", "undriven_route", "lacks_the_speed", "speed_of", "at_asked_speed",
           "on_route", "drive_speeds", "without_speeds", "RememberedRoutes",
           "destination", "FASTER", "SLOWER", "DRIVES"]

"""A place the user taught for a thing: "from now on, put the banana on the sideboard".

The lesson's reading is its request's, as the agent read it; where the request to learn sends
the things the request named to a named place, that place is the lesson's (the learner writes
it into the request's clause: :meth:`.learner.Learner._request_reading`), whatever the request
was read as. Measured (teach-once bench, session 54): "could you tidy up the banana?" was read
``do: banana -> me`` (the robot handed the banana over), the user taught the sideboard, and the
lesson, stored with ``-> me``, had another shape than the later "put the banana away"
(``-> none``): never followed, the banana went back to the counter. With the taught place the
lesson reads ``do: banana -> sideboard``, and a request about the same things that names no
place follows it (:func:`..memory.meaning.aligned`).
"""
from __future__ import annotations

from dataclasses import replace

from ..reading.structure import Reading, Target, names_said


def places_said(reading: Reading | None) -> dict[str, str]:
    """thing -> place: each named thing a ``do`` clause of ``reading`` sends to a named place
    (the last said); for a request to learn, the places it teaches."""
    places: dict[str, str] = {}
    for clause in reading.moves if reading is not None else ():
        if clause.where is not None and clause.where.how == "named":
            places.update(dict.fromkeys(names_said(clause.objects), clause.where.name))
    return places


def with_taught_place(request: Reading | None, asked: Reading | None) -> Reading | None:
    """The lesson's reading: ``request`` with each move clause whose named things the request
    to learn (``asked``) sends to one named place sent there."""
    places = places_said(asked)
    if request is None or not places:
        return request
    clauses = []
    for clause in request.clauses:
        names = names_said(clause.objects) if clause in request.moves else ()
        where = {places.get(n) for n in names}
        if names and len(where) == 1 and None not in where:
            clause = replace(clause, where=Target("named", where.pop()))
        clauses.append(clause)
    return replace(request, clauses=tuple(clauses))


__all__ = ["places_said", "with_taught_place"]

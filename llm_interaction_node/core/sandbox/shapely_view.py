"""The shapely names of the tabletop console: ``shapely.geometry`` and ``shapely.affinity``.

The reference's generated code sees ``from shapely.geometry import *`` and ``from
shapely.affinity import *`` (Point, LineString, Polygon, ..., rotate, scale, translate, ...).
Here the same public names are bound one by one (no module object, so nothing reaches
shapely's internals or its imports). The geometry methods that can create any number of
vertices from a small call (``buffer``/``offset_curve``/``parallel_offset`` with a huge
``quad_segs``/``resolution``, ``segmentize`` with a tiny ``max_segment_length``) are routed
through the sandbox's method guard (:func:`geometry_method`) and refused beyond its limit,
as numpy's shape-taking functions are: GEOS runs them in C, out of the statement timeout's
reach.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import shapely
import shapely.affinity
import shapely.geometry

from .stand_in import stand_in

# the public names of ``from shapely.geometry import *`` / ``from shapely.affinity import *``
GEOMETRY_NAMES = tuple(shapely.geometry.__all__)
AFFINITY_NAMES = tuple(shapely.affinity.__all__)
# methods that take a vertex count (or a segment length) and build that many vertices
GUARDED_GEOMETRY_METHODS = frozenset({"buffer", "offset_curve", "parallel_offset",
                                      "segmentize"})
_COUNT_ARGUMENTS = ("quad_segs", "resolution")


def _stand_in(name: str, value: Any) -> Any:
    if isinstance(value, type):
        return stand_in(name, value)
    return functools.wraps(value)(lambda *args, **kwargs: value(*args, **kwargs))


def shapely_names() -> dict[str, Any]:
    """Name -> object for one console namespace (fresh stand-ins each time, so nothing set
    on them outlives the namespace and nothing reaches the real classes)."""
    names = {n: getattr(shapely.geometry, n) for n in GEOMETRY_NAMES}
    names.update({n: getattr(shapely.affinity, n) for n in AFFINITY_NAMES})
    return {n: _stand_in(n, v) for n, v in names.items()}


def _vertices(geom: Any) -> int:
    try:
        return max(1, int(shapely.get_num_coordinates(geom)))
    except Exception:  # noqa: BLE001 - not a geometry shapely can count: no estimate
        return 1


def geometry_method(obj: Any, name: str, limit: int,
                    error: Callable[[str, float, int], BaseException]) -> Callable | None:
    """``geom.name`` checked against ``limit`` vertices; None if ``obj`` is no geometry or
    ``name`` is not a guarded method. ``error(what, count, limit)`` makes the exception."""
    if name not in GUARDED_GEOMETRY_METHODS or not isinstance(obj, shapely.Geometry):
        return None
    bound = getattr(obj, name)
    try:
        signature = inspect.signature(bound)
    except (TypeError, ValueError):
        signature = None
    what = f"{type(obj).__name__}.{name}()"

    @functools.wraps(bound)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            arguments = signature.bind(*args, **kwargs).arguments if signature else {}
        except TypeError:
            arguments = {}                 # a wrong call: shapely reports it itself
        count = 0.0
        if name == "segmentize":
            length = arguments.get("max_segment_length")
            try:
                length = float(length)
                if length > 0:
                    count = float(obj.length) / length + _vertices(obj)
            except (TypeError, ValueError):
                pass
        else:
            for key in _COUNT_ARGUMENTS:
                value = arguments.get(key)
                if isinstance(value, (int, float)):
                    count = max(count, 4.0 * float(value) * _vertices(obj))
        if count > limit:
            raise error(what, count, limit)
        return bound(*args, **kwargs)
    return checked

"""The `np` of the robot console: numpy's public API without file I/O or escape hatches.

Generated code sees a read-only view of numpy. Private names, the file functions (``load``,
``save``, ``fromfile``, ...), pytest and config printers and every submodule except the ones
listed in ``_MODULES`` are refused. Functions that create arrays from a shape or a count refuse
results with more elements than the sandbox allows (``MemoryError``) before numpy allocates.
``np.random`` and the generators it returns are views too, so ``size=`` is checked everywhere.
"""
from __future__ import annotations

import functools
import inspect
import math
import operator
import types
from collections.abc import Callable
from typing import Any

import numpy

from .stand_in import stand_in

# The numpy modules generated code may reach, each with the public names it may not use.
_MODULES: dict[str, frozenset[str]] = {
    "numpy": frozenset({
        "load", "save", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt",
        "fromfile", "fromregex", "memmap", "DataSource",  # file I/O
        "show_config", "show_runtime", "info", "test", "get_include",  # print, run pytest, paths
        "recarray", "chararray",  # shape-taking constructors nobody needs in the console
    }),
    "numpy.linalg": frozenset(),
    "numpy.fft": frozenset(),
    "numpy.emath": frozenset(),
    "numpy.random": frozenset({
        "Generator", "BitGenerator", "MT19937", "PCG64", "PCG64DXSM", "Philox", "SFC64",
        "SeedSequence", "get_bit_generator", "set_bit_generator", "test",
    }),
}
# Attributes of Generator / RandomState objects that lead outside the size-checked view.
_GENERATOR_DENIED = frozenset({"bit_generator", "spawn"})
_GENERATOR_TYPES = (numpy.random.Generator, numpy.random.RandomState)


def size_error(what: str, count: float, limit: int, unit: str = "elements") -> MemoryError:
    """The error every size guard of the sandbox raises."""
    return MemoryError(f"refused: {what} would produce {int(count):,} {unit} "
                       f"(the robot console allows at most {limit:,})")


def operator_size(a: Any, b: Any, matmul: bool = False) -> int | None:
    """Elements of the array an arithmetic operator on a and b creates; None without arrays."""
    if not (isinstance(a, numpy.ndarray) or isinstance(b, numpy.ndarray)):
        return None
    try:
        sa, sb = numpy.shape(a), numpy.shape(b)
        if not matmul:
            return math.prod(numpy.broadcast_shapes(sa, sb))
        rows = sa[-2] if len(sa) >= 2 else 1
        cols = sb[-1] if len(sb) >= 2 else 1
        return math.prod(numpy.broadcast_shapes(sa[:-2], sb[:-2])) * rows * cols
    except (ValueError, TypeError):
        return None  # shapes do not fit: numpy reports that itself


def _count(shape: Any) -> int:
    """Elements of an array of this shape (an int or a sequence of ints)."""
    return math.prod(map(operator.index, numpy.ravel(shape)))


def _total(arrays: Any) -> int:
    return sum(numpy.size(x) for x in arrays)


def _arange(start: Any = 0, stop: Any = None, step: Any = 1, *_: Any, **__: Any) -> int:
    if stop is None:
        start, stop = 0, start
    return math.ceil((stop - start) / step)


def _repeat(a: Any, repeats: Any, axis: Any = None) -> int:
    repeats = numpy.asarray(repeats)
    if repeats.size == 1:
        return numpy.size(a) * int(repeats.reshape(-1)[0])
    return int(repeats.sum()) * (numpy.size(a) // repeats.size)


def _like(a: Any, dtype: Any = None, order: Any = None, subok: Any = None, shape: Any = None,
          **__: Any) -> int:
    return numpy.size(a) if shape is None else _count(shape)


def _full_like(a: Any, fill_value: Any, dtype: Any = None, order: Any = None, subok: Any = None,
               shape: Any = None, **__: Any) -> int:
    return _like(a, shape=shape)


def _shape_first(shape: Any, *_: Any, **__: Any) -> int:
    return _count(shape)


def _shape_second(first: Any, shape: Any, *_: Any, **__: Any) -> int:
    return _count(shape)


def _num(start: Any, stop: Any, num: Any = 50, *_: Any, **__: Any) -> int:
    return operator.index(num)


# Element count of the result, computed from the same arguments as the numpy function.
_ESTIMATES: dict[str, Callable[..., int]] = {
    "zeros": _shape_first, "ones": _shape_first, "empty": _shape_first, "full": _shape_first,
    "ndarray": _shape_first,
    "broadcast_to": _shape_second, "fromfunction": _shape_second,
    "resize": lambda a, new_shape: _count(new_shape),
    "zeros_like": _like, "ones_like": _like, "empty_like": _like, "full_like": _full_like,
    "arange": _arange,
    "linspace": _num, "logspace": _num, "geomspace": _num,
    "eye": lambda N, M=None, *_, **__: N * (N if M is None else M),
    "identity": lambda n, *_, **__: n * n,
    "tile": lambda A, reps: numpy.size(A) * _count(reps),
    "repeat": _repeat,
    "concatenate": lambda arrays, *_, **__: _total(arrays),
    "stack": lambda arrays, *_, **__: _total(arrays),
    "hstack": lambda tup, *_, **__: _total(tup),
    "vstack": lambda tup, *_, **__: _total(tup),
    "dstack": lambda tup, *_, **__: _total(tup),
    "column_stack": lambda tup, *_, **__: _total(tup),
    "append": lambda arr, values, axis=None: numpy.size(arr) + numpy.size(values),
}


def _size_checked(fn: Callable, what: str, estimate: Callable[..., int], limit: int) -> Callable:
    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            count = estimate(*args, **kwargs)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            count = 0  # not a call numpy accepts either: let numpy report it
        if count > limit:
            raise size_error(what, count, limit)
        return fn(*args, **kwargs)
    return checked


def array_method(obj: Any, name: str, limit: int) -> Callable | None:
    """``arr.repeat`` / ``arr.resize`` checked like np.repeat / np.resize; None for non-arrays."""
    if not isinstance(obj, numpy.ndarray) or name not in ("repeat", "resize"):
        return None

    def estimate(*args: Any, **kwargs: Any) -> int:
        if name == "repeat":
            return _repeat(obj, *args, **kwargs)
        return _count(args[0] if len(args) == 1 else args)  # resize((3, 4)) or resize(3, 4)
    return _size_checked(getattr(obj, name), f"ndarray.{name}", estimate, limit)


def _random_checked(fn: Callable, what: str, limit: int) -> Callable:
    """Check ``size=``, ``length=`` (or rand's dimensions); return generators as views."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = None

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        count = 0
        try:
            bound = signature.bind(*args, **kwargs).arguments if signature else {}
            for name, value in bound.items():
                if name in ("size", "length") and value is not None:
                    count = _count(value)
                elif name == "args":  # rand(d0, d1, ...), randn(...)
                    count = _count(value) if value else 0
                elif name == "x" and fn.__name__ == "permutation" and numpy.ndim(value) == 0:
                    count = operator.index(value)
        except (TypeError, ValueError):
            count = 0  # let numpy report the bad call
        if count > limit:
            raise size_error(what, count, limit)
        result = fn(*args, **kwargs)
        if isinstance(result, _GENERATOR_TYPES):
            label = f"numpy.random.{type(result).__name__}"
            return _View(result, label, _GENERATOR_DENIED, limit)
        return result
    return checked


class _View:
    """Read-only attribute view of a numpy module or random generator."""

    __slots__ = ("_target", "_label", "_denied", "_limit", "_cache")

    def __init__(self, target: Any, label: str, denied: frozenset[str], limit: int) -> None:
        for slot, value in zip(self.__slots__, (target, label, denied, limit, {}), strict=True):
            object.__setattr__(self, slot, value)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._cache[name]
        except KeyError:
            value = self._cache[name] = self._lookup(name)
            return value

    def _lookup(self, name: str) -> Any:
        qualified = f"{self._label}.{name}"
        if name.startswith("_") or name in self._denied:
            raise AttributeError(f"{qualified} is not available in the robot console")
        value = getattr(self._target, name)
        if isinstance(value, types.ModuleType):
            if value.__name__ not in _MODULES:
                raise AttributeError(f"{qualified} is not available in the robot console")
            return _View(value, value.__name__, _MODULES[value.__name__], self._limit)
        if self._label == "numpy.random" or isinstance(self._target, _GENERATOR_TYPES):
            return _random_checked(value, qualified, self._limit) if callable(value) else value
        if self._label == "numpy" and name in _ESTIMATES:
            checked = _size_checked(value, qualified, _ESTIMATES[name], self._limit)
            if isinstance(value, type):
                return stand_in(name, value, checked)
            return checked
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self._label} is read-only in the robot console")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{self._label} is read-only in the robot console")

    def __repr__(self) -> str:
        return f"<{self._label} (robot console view)>"


def numpy_view(max_elements: int) -> Any:
    """The `np` object generated code gets; arrays it creates hold at most max_elements."""
    return _View(numpy, "numpy", _MODULES["numpy"], max_elements)


# numpy's process-wide settings generated code may change (np.seterr, np.seterrcall,
# np.set_printoptions, np.setbufsize), as they are when the sandbox is imported
_SETTINGS = (numpy.geterr(), numpy.geterrcall(), numpy.get_printoptions(), numpy.getbufsize())


def restore_numpy_settings() -> None:
    """Put numpy's settings back as they were at start: what one interaction's code set
    (``np.seterr(all='raise')``, a print precision) must not reach the next one."""
    errors, call, printing, bufsize = _SETTINGS
    numpy.seterr(**errors)
    numpy.seterrcall(call)
    numpy.set_printoptions(**printing)
    numpy.setbufsize(bufsize)

"""The builtins of the robot console: harmless ones as they are, the dangerous ones present
only to explain themselves when called, and a few replaced (``print`` writes to the console,
``hasattr`` and ``iter`` refuse what the allowlist refuses, ``__import__`` serves only C code).
The size-guarded ``range``, ``pow``, ``sum`` and ``format`` come from ``guards``."""
from __future__ import annotations

import builtins
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

from .guards import Guards
from .policy import SandboxViolation, check_attribute

_PLAIN_BUILTINS = (
    "abs", "all", "any", "ascii", "bin", "bool", "callable", "chr", "complex", "dict", "divmod",
    "enumerate", "filter", "float", "frozenset", "hash", "hex", "int", "isinstance",
    "issubclass", "len", "list", "map", "max", "min", "next", "oct", "ord", "repr", "reversed",
    "round", "set", "slice", "sorted", "str", "tuple", "zip",
    "Exception", "ArithmeticError", "AssertionError", "AttributeError", "IndexError",
    "KeyError", "LookupError", "MemoryError", "NameError", "NotImplementedError",
    "OverflowError", "RecursionError", "RuntimeError", "StopIteration", "TypeError",
    "ValueError", "ZeroDivisionError",
)
# Present only to explain themselves when called.
_UNAVAILABLE = (
    "open", "exec", "eval", "compile", "globals", "locals", "vars", "dir", "getattr", "setattr",
    "delattr", "input", "breakpoint", "help", "exit", "quit", "memoryview", "object", "super",
    "type", "id", "classmethod", "staticmethod", "property", "bytes", "bytearray",
)


def _unavailable(name: str) -> Callable[..., Any]:
    def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise SandboxViolation(f"{name}() is not available in the robot console")
    unavailable.__name__ = unavailable.__qualname__ = name
    return unavailable


def _hasattr(obj: Any, name: str, /) -> bool:
    if not isinstance(name, str):
        raise TypeError("hasattr(): attribute name must be a string")
    check_attribute(name)
    return builtins.hasattr(obj, name)


def _iter(*args: Any) -> Iterator:
    if len(args) != 1:  # iter(callable, sentinel) can loop forever in C, out of the timeout's reach
        raise SandboxViolation("iter() takes exactly one argument in the robot console")
    return builtins.iter(args[0])


def _import_for_c_code(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                       level: int = 0) -> types.ModuleType:
    """The __import__ that C code called from the console (numpy's lazy imports) looks up in the
    console's builtins. Generated code cannot name it; it loads nothing new outside numpy."""
    if level == 0 and (name in sys.modules or name.partition(".")[0] == "numpy"):
        return builtins.__import__(name, globals, locals, fromlist, level)
    raise ImportError(f"importing {name} is not allowed in the robot console")


def _make_print(write: Callable[[str], None]) -> Callable[..., None]:
    def print(*values: Any, sep: str | None = " ", end: str | None = "\n", file: Any = None,
              flush: bool = False) -> None:
        if file is not None:
            raise SandboxViolation("print(file=...) is not available in the robot console")
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        if not isinstance(sep, str) or not isinstance(end, str):
            raise TypeError("print(): sep and end must be None or strings")
        write(sep.join(map(str, values)) + end)
    return print


def console_builtins(write: Callable[[str], None], guards: Guards) -> dict[str, Any]:
    """The ``__builtins__`` of a console namespace whose print() writes through ``write``."""
    safe = {name: getattr(builtins, name) for name in _PLAIN_BUILTINS}
    safe.update({name: _unavailable(name) for name in _UNAVAILABLE})
    safe.update(print=_make_print(write), range=guards.range, pow=guards.pow, sum=guards.sum,
                format=guards.format, hasattr=_hasattr, iter=_iter, __import__=_import_for_c_code)
    return safe

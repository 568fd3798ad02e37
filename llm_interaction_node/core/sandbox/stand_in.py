"""The read-only stand-in for a class the robot console may use (numpy's shape-taking
classes, shapely's geometry classes): one guard, written once for both.

The stand-in answers ``isinstance``/``issubclass`` and class attributes as the real class
does and constructs through a function the caller gives (the real class, or one with a size
check); setting or deleting its attributes is refused, so generated code cannot patch a
class shared by every console of the process, and the real class is never handed out."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


class ReadOnlyType(type):
    """Metaclass of a stand-in: ``_real`` is the class it stands for, ``_construct`` makes
    its instances."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._real)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, cls._real)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._construct(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        return getattr(cls._real, name)

    def __setattr__(cls, name: str, value: Any) -> None:
        raise AttributeError(f"{cls.__name__} is read-only in the robot console")

    def __delattr__(cls, name: str) -> None:
        raise AttributeError(f"{cls.__name__} is read-only in the robot console")

    def __repr__(cls) -> str:
        return repr(cls._real)


def stand_in(name: str, real: type, construct: Callable[..., Any] | None = None) -> type:
    """A fresh stand-in for ``real`` named ``name``; ``construct`` (default: ``real``)
    makes its instances."""
    return ReadOnlyType(name, (), {"_real": real, "_construct": staticmethod(construct or real),
                                   "__doc__": real.__doc__})

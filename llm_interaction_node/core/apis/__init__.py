"""Robot APIs the LLM calls. Each talks to a small robot protocol, never to sims or ROS.

:mod:`.registry` is how an API is shown to the LLM and bound into the console: plain typed
functions marked with ``@comment`` (the LLM-facing comment), ``@query`` (only looks) and
``@moves`` (the function that moves an object), listed from their live signatures
(:class:`~.registry.ApiRegistry`); the console and the sandbox bind an API through it.

The APIs' names are imported on first access (PEP 562 ``__getattr__``), so importing the
registry, or another module of the package, loads neither API (``test/test_apis_lazy.py``).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .humanoid import HumanoidApi, HumanoidRobot, SceneObject
    from .tabletop import TabletopApi, TabletopRobot

__all__ = ["HumanoidApi", "HumanoidRobot", "SceneObject", "TabletopApi", "TabletopRobot"]

_HOME = {"HumanoidApi": ".humanoid", "HumanoidRobot": ".humanoid", "SceneObject": ".humanoid",
         "TabletopApi": ".tabletop", "TabletopRobot": ".tabletop"}


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value                # the next access finds it without coming here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

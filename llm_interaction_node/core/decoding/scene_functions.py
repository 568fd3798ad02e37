"""The scene functions of an API: functions with parameters that take the name of something
in the scene (``*name*`` parameters that admit a ``str``), for the console constraint."""
from __future__ import annotations

import ast
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..apis.registry import MOVE_ATTR


@dataclass(frozen=True)
class SceneFunction:
    """An API function with parameters that take the name of something in the scene."""

    name: str
    params: tuple[str, ...]             # positional parameter names, in order
    name_params: frozenset[str]         # those that take a scene name
    places: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # param -> place names
    # the move function's object parameter and which scene names it can move (MoveSpec)
    moved_param: str | None = None
    movable: Callable[[str], bool] = lambda name: True

    def argument(self, call: ast.Call, param: str) -> ast.expr | None:
        """The argument expression ``call`` passes to ``param``, if any."""
        if param in self.params and self.params.index(param) < len(call.args):
            return call.args[self.params.index(param)]
        return next((k.value for k in call.keywords if k.arg == param), None)


def scene_function(name: str, fn: Callable) -> SceneFunction | None:
    """The scene-name parameters of ``fn`` (named ``*name*``, annotated to admit ``str``)."""
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn)
    except (TypeError, ValueError, NameError):
        return None
    params = tuple(p.name for p in signature.parameters.values()
                   if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    takes = frozenset(p for p in params if "name" in p and _admits_str(hints.get(p)))
    spec = getattr(fn, MOVE_ATTR, None)
    places = {spec.target_param: spec.places} if spec is not None and spec.places else {}
    moved = (spec.object_param, spec.movable) if spec is not None else (None, lambda n: True)
    return SceneFunction(name, params, takes, places, *moved) if takes else None


def _admits_str(annotation) -> bool:
    if annotation is str:
        return True
    return any(_admits_str(a) for a in typing.get_args(annotation))

"""The robot API as the LLM sees it: plain typed functions, listed and bound by name.

An API is a list of ordinary Python callables (functions or bound methods) with type
hints. An optional comment shown to the LLM is attached with :func:`comment`. The
listing is rendered from the live signatures, so it can never drift from the code.
"""
from __future__ import annotations

import ast
import inspect
import types
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

COMMENT_ATTR = "api_comment"
QUERY_ATTR = "api_query"
MOVE_ATTR = "api_move"


@dataclass(frozen=True)
class MoveSpec:
    """What a function that moves an object takes: the parameter naming the object, the one
    naming where it goes, the named places a target may be, and which scene names can be
    moved (see :mod:`..decoding.correction`). ``to_user``: the target that hands the object to the
    user (a reading's ``me``; the household's ``'handover_to_human'``), None where the robot
    cannot; ``fixed_prefixes``: scene names starting so are places, never moved (the
    household's surfaces ``on_...`` and navigation locations ``inFrontOf_...``)."""

    object_param: str
    target_param: str
    places: tuple[str, ...] = ()
    movable_suffix: str = ""            # scene names ending so can be moved ('' = all)
    to_user: str | None = None
    fixed_prefixes: tuple[str, ...] = ()

    def movable(self, name: str) -> bool:
        return name.endswith(self.movable_suffix) and name not in self.places \
            and not name.startswith(self.fixed_prefixes)


def comment(text: str) -> Callable[[Callable], Callable]:
    """Attach the comment the LLM sees next to a function's signature."""

    def decorate(fn: Callable) -> Callable:
        setattr(fn, COMMENT_ATTR, text)
        return fn

    return decorate


def recommented(method: Callable, text: str | None) -> Callable:
    """A copy of the bound ``method`` whose LLM-facing comment is ``text`` (None: none), for
    one API object whose listing says less than its class's (the class keeps its own); the
    other marks (:func:`query`, :func:`moves`) are kept."""
    fn = method.__func__
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__, copy.__annotations__ = fn.__kwdefaults__, dict(fn.__annotations__)
    copy.__doc__, copy.__qualname__, copy.__module__ = fn.__doc__, fn.__qualname__, fn.__module__
    copy.__dict__.update(fn.__dict__)
    setattr(copy, COMMENT_ATTR, text)
    return types.MethodType(copy, method.__self__)


def query(fn: Callable) -> Callable:
    """Mark a function that only looks (names, positions): calling it changes nothing, so a
    statement of queries alone is no attempt to act (the agent's repeat note)."""
    setattr(fn, QUERY_ATTR, True)
    return fn


def moves(spec: MoveSpec) -> Callable[[Callable], Callable]:
    """Mark the function that moves an object to a target (the decoding after a correction
    restricts its arguments)."""

    def decorate(fn: Callable) -> Callable:
        setattr(fn, MOVE_ATTR, spec)
        return fn

    return decorate


def _annotation_text(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return ""
    if isinstance(annotation, str):
        return annotation
    if annotation is type(None):
        return "None"
    if typing.get_origin(annotation) is None and hasattr(annotation, "__name__") \
            and getattr(annotation, "__module__", "") == "builtins":
        return annotation.__name__
    if typing.get_origin(annotation) is None and getattr(annotation, "__module__", "") == "numpy":
        return f"np.{annotation.__name__}"
    text = repr(annotation).replace("typing.", "").replace("numpy.", "np.")
    return text.replace("NoneType", "None")


def render_signature(name: str, fn: Callable) -> str:
    """``def name(a: int, b: str = 'x') -> str`` for a live function."""
    sig = inspect.signature(fn)
    params = []
    for p in sig.parameters.values():
        text = p.name
        if p.kind is p.VAR_POSITIONAL:
            text = "*" + text
        elif p.kind is p.VAR_KEYWORD:
            text = "**" + text
        ann = _annotation_text(p.annotation)
        if ann:
            text += f": {ann}"
        if p.default is not inspect.Parameter.empty:
            text += (" = " if ann else "=") + repr(p.default)
        params.append(text)
    line = f"def {name}({', '.join(params)})"
    ret = _annotation_text(sig.return_annotation)
    if ret:
        line += f" -> {ret}"
    return line


@dataclass(frozen=True)
class ApiFunction:
    name: str
    fn: Callable
    comment: str | None

    def listing(self) -> str:
        line = render_signature(self.name, self.fn)
        if not self.comment:
            return line
        lines = self.comment.strip().splitlines()
        if len(lines) == 1 and len(line) + len(lines[0]) < 110:
            return f"{line}  # {lines[0]}"
        return "\n".join([line] + [f"    # {c.strip()}" for c in lines])


class ApiRegistry:
    """An ordered set of API functions: renders their listing, binds them into a namespace."""

    def __init__(self, functions: Iterable[Callable] = ()):
        self._functions: dict[str, ApiFunction] = {}
        for fn in functions:
            self.add(fn)

    def add(self, fn: Callable, name: str | None = None) -> None:
        name = name or fn.__name__
        if name in self._functions:
            raise ValueError(f"API function {name!r} registered twice")
        self._functions[name] = ApiFunction(name, fn, getattr(fn, COMMENT_ATTR, None))

    def extend(self, functions: Iterable[Callable]) -> None:
        for fn in functions:
            self.add(fn)

    @property
    def names(self) -> list[str]:
        return list(self._functions)

    def __contains__(self, name: str) -> bool:
        return name in self._functions

    def __getitem__(self, name: str) -> ApiFunction:
        return self._functions[name]

    def listing(self, sort: bool = True) -> str:
        """The 'Available functions' block of the prompt."""
        items = (
            sorted(self._functions.values(), key=lambda f: f.name)
            if sort
            else self._functions.values()
        )
        return "\n".join(f.listing() for f in items)

    @property
    def queries(self) -> frozenset[str]:
        """Names of the functions marked with :func:`query`."""
        return frozenset(n for n, f in self._functions.items() if getattr(f.fn, QUERY_ATTR, False))

    def move_function(self) -> tuple[ApiFunction, MoveSpec] | None:
        """The function marked with :func:`moves` and its spec, if the API has one."""
        for f in self._functions.values():
            spec = getattr(f.fn, MOVE_ATTR, None)
            if spec is not None:
                return f, spec
        return None

    def moves(self) -> list[tuple[str, str | None]]:
        """The moves the API made so far: ``moves`` of the object behind the move function
        (object, where it went), empty without one."""
        move = self.move_function()
        owner = getattr(move[0].fn, "__self__", None) if move else None
        return list(getattr(owner, "moves", ()))

    def call_literal(self, source: str) -> str:
        """Run ``source``, one call of an API function with literal arguments only
        (``bring_object_to('mango-juice_0', 'handover_to_human')``: a move the code wrote, not
        the model), and return what it returned as text; ``error: ...`` where the text is no
        such call (nothing runs) or the call raised."""
        try:
            tree = ast.parse(source.strip(), mode="eval")
            call = tree.body
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                raise ValueError("not one call of a function by name")
            if call.func.id not in self._functions:
                raise ValueError(f"{call.func.id!r} is not an API function")
            args = [ast.literal_eval(a) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
        except (SyntaxError, ValueError) as exc:
            return f"error: {exc}"
        try:
            return str(self._functions[call.func.id].fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - the robot's error is the answer
            return f"error: {type(exc).__name__}: {exc}"

    def bind(self, wrap: Callable[[Callable], Callable] | None = None) -> dict[str, Callable]:
        """Name -> callable, optionally wrapped (the console wraps calls to pause its watchdog)."""
        return {name: (wrap(f.fn) if wrap else f.fn) for name, f in self._functions.items()}


def public_functions(obj: Any) -> list[Callable]:
    """The bound public methods of an API object that are meant for the LLM.

    A method is part of the API when it is decorated with :func:`comment` or listed in the
    object's ``API`` attribute (a sequence of method names, which also fixes their order).
    """
    names = getattr(obj, "API", None)
    if names is None:
        names = [n for n, _ in inspect.getmembers(type(obj), inspect.isfunction)
                 if not n.startswith("_") and hasattr(getattr(type(obj), n), COMMENT_ATTR)]
    return [getattr(obj, n) for n in names]


__all__ = [
    "comment",
    "recommented",
    "query",
    "moves",
    "MoveSpec",
    "ApiRegistry",
    "ApiFunction",
    "render_signature",
    "public_functions",
]

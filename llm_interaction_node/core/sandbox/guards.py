"""The size guards: operations that could exhaust memory in one step raise ``MemoryError``
before they compute an oversized result.

Two halves of one mechanism. ``GuardRewrite`` (at ``Sandbox.prepare``) routes ``+ * ** << @``,
``str.format``, the padding methods, format specs and ``ndarray.repeat``/``resize`` (and the
vertex-making methods of shapely geometries) through helper calls; ``Guards`` (at run time) is
those helpers, plus the guarded ``range``, ``pow``, ``sum`` and ``format`` builtins. Numpy
array creation is guarded in ``numpy_view``, shapely's methods in ``shapely_view``.
"""
from __future__ import annotations

import ast
import builtins
import copy
import math
import operator
import re
import string
from collections.abc import Callable
from typing import Any

from .numpy_view import array_method, operator_size, size_error
from .policy import SandboxViolation
from .shapely_view import GUARDED_GEOMETRY_METHODS, geometry_method

MAX_INT_BITS = 100_000

# The guard helpers in every namespace; user code cannot name them (they start with "__").
_BINOP, _INPLACE, _METHOD, _FSTRING = (
    "__sandbox_binop__", "__sandbox_inplace__", "__sandbox_method__", "__sandbox_fstring__")
_GUARDED_OPS = (ast.Add, ast.Mult, ast.Pow, ast.LShift, ast.MatMult)
_GUARDED_METHODS = frozenset({"format", "ljust", "rjust", "center", "zfill", "repeat", "resize",
                              *GUARDED_GEOMETRY_METHODS})


def _call(helper: str, args: list[ast.expr], where: ast.AST) -> ast.Call:
    return ast.copy_location(ast.Call(ast.Name(helper, ast.Load()), args, []), where)


class GuardRewrite(ast.NodeTransformer):
    """Route the operations that can allocate without bound through the guard helpers."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        if not isinstance(node.op, _GUARDED_OPS):
            return node
        return _call(_BINOP, [ast.Constant(type(node.op).__name__), node.left, node.right], node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AugAssign:
        # `t op= v` keeps its in-place semantics; only v passes a check: `t op= check(t, v)`.
        # The target is read once more, so side effects in its index would run twice.
        self.generic_visit(node)
        if isinstance(node.op, _GUARDED_OPS):
            target = copy.deepcopy(node.target)
            target.ctx = ast.Load()
            node.value = _call(_INPLACE, [ast.Constant(type(node.op).__name__), target,
                                          node.value], node.value)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and node.attr in _GUARDED_METHODS:
            return _call(_METHOD, [node.value, ast.Constant(node.attr)], node)
        return node

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.FormattedValue:
        self.generic_visit(node)
        if node.format_spec is None:
            return node
        value = _call(_FSTRING, [node.value, ast.Constant(node.conversion), node.format_spec],
                      node)
        return ast.copy_location(ast.FormattedValue(value, -1, None), node)


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "Add": operator.add, "Mult": operator.mul, "Pow": operator.pow,
    "LShift": operator.lshift, "MatMult": operator.matmul,
}
_SYMBOLS = {"Add": "+", "Mult": "*", "Pow": "**", "LShift": "<<", "MatMult": "@"}
_SEQUENCES = (str, bytes, bytearray, list, tuple)
_TEXT = (str, bytes, bytearray)
_CONVERSIONS: dict[int, Callable[[Any], Any]] = {
    -1: lambda value: value, ord("s"): str, ord("r"): repr, ord("a"): ascii}


def _index(value: Any) -> int | None:
    try:
        return operator.index(value)
    except TypeError:
        return None


class Guards:
    """The run-time half of the rewrites, and the guarded builtins."""

    def __init__(self, max_len: int) -> None:
        self.max_len = max_len
        self._formatter = _Formatter(self)

    def helpers(self) -> dict[str, Callable[..., Any]]:
        """The helpers that ``GuardRewrite``'s calls name, for a console namespace."""
        return {_BINOP: self.binop, _INPLACE: self.inplace, _METHOD: self.method,
                _FSTRING: self.fstring}

    def _limit(self, what: str, count: float, unit: str = "items") -> None:
        if count > self.max_len:
            raise size_error(what, count, self.max_len, unit)

    def _int_bits(self, what: str, bits: float) -> None:
        if bits > MAX_INT_BITS:
            raise size_error(what, bits, MAX_INT_BITS, "bits")

    def check(self, op: str, a: Any, b: Any) -> None:
        """Raise MemoryError if `a op b` would be too large, before computing it."""
        what = f"'{_SYMBOLS[op]}'"
        elements = operator_size(a, b, matmul=op == "MatMult")
        if elements is not None:
            self._limit(what, elements, "elements")
        elif op == "Add" and isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES):
            self._limit(what, len(a) + len(b))
        elif op == "Mult":
            for seq, times in ((a, b), (b, a)):
                if isinstance(seq, _SEQUENCES) and (count := _index(times)) is not None:
                    self._limit(what, len(seq) * count)
            if isinstance(a, int) and isinstance(b, int):
                self._int_bits(what, a.bit_length() + b.bit_length())
        elif op == "Pow" and isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1:
            self._int_bits(what, b * math.log2(abs(a)))
        elif op == "LShift" and isinstance(a, int) and isinstance(b, int) and a and b > 0:
            self._int_bits(what, a.bit_length() + b)

    def binop(self, op: str, a: Any, b: Any) -> Any:
        self.check(op, a, b)
        return _OPERATORS[op](a, b)

    def inplace(self, op: str, a: Any, b: Any) -> Any:
        self.check(op, a, b)
        return b

    def method(self, obj: Any, name: str) -> Any:
        """`obj.name` for the names in _GUARDED_METHODS: checked on text, numpy arrays and
        shapely geometries."""
        checked = array_method(obj, name, self.max_len)
        if checked is None:
            checked = geometry_method(obj, name, self.max_len, size_error)
        if checked is not None:
            return checked
        bound = getattr(obj, name)
        is_text = isinstance(obj, _TEXT)
        if not (is_text or (isinstance(obj, type) and issubclass(obj, _TEXT))):
            return bound
        if name == "format":
            if is_text:
                return lambda *args, **kwargs: self._formatter.format(obj, *args, **kwargs)
            return lambda text, *args, **kwargs: self._formatter.format(text, *args, **kwargs)
        width_at = 0 if is_text else 1

        def padded(*args: Any) -> Any:
            if len(args) > width_at and (width := _index(args[width_at])) is not None:
                self._limit(f"{name}()", width, "characters")
            return bound(*args)
        return padded

    def format(self, value: Any, spec: str = "") -> str:
        """The format() builtin with widths and precisions bounded."""
        if isinstance(spec, str):
            for digits in re.findall(r"\d+", spec):
                digits = digits.lstrip("0") or "0"
                self._limit("a format width", int(digits) if len(digits) < 16 else 10**16,
                            "characters")
        return builtins.format(value, spec)

    def fstring(self, value: Any, conversion: int, spec: str) -> str:
        return self.format(_CONVERSIONS[conversion](value), spec)

    def range(self, *args: Any) -> range:
        r = builtins.range(*args)
        step_toward_stop = 1 if r.step > 0 else -1
        self._limit("range()", (r.stop - r.start + r.step - step_toward_stop) // r.step)
        return r

    def pow(self, base: Any, exp: Any, mod: Any = None) -> Any:
        return self.binop("Pow", base, exp) if mod is None else builtins.pow(base, exp, mod)

    def sum(self, iterable: Any, /, start: Any = 0) -> Any:
        if not isinstance(start, _SEQUENCES):
            return builtins.sum(iterable, start)
        total = start  # concatenating sequences: one guarded (and interruptible) step each
        for item in iterable:
            total = self.binop("Add", total, item)
        return total


class _Formatter(string.Formatter):
    """str.format without attribute or index lookups in fields, with bounded widths."""

    def __init__(self, guards: Guards) -> None:
        self._guards = guards

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        if "." in field_name or "[" in field_name:
            raise SandboxViolation(f"format field '{{{field_name}}}' is not allowed in the robot "
                                   "console: pass the value itself, e.g. '{}'.format(x.y)")
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> str:
        return self._guards.format(value, format_spec)

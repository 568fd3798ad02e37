"""The sandbox that checks and runs the Python statements an LLM writes for the robot console.

Three layers, each needed:

1. ``Sandbox.prepare`` refuses code outside a small allowlist of syntax: no imports, classes,
   async code, ``global``, ``with``, generators, names starting with ``__``, attributes starting
   with ``_`` or reaching frames/code/pickling/ctypes. Together with builtins that hold only
   harmless functions, the code can reach nothing but the objects the console hands it.
2. The same pass rewrites the operations that can exhaust memory in one step (``+ * ** << @``,
   ``str.format``, the padding methods, format specs, ``ndarray.repeat``/``resize``) into guard
   calls that raise ``MemoryError`` before computing an oversized result. ``range``, ``pow``,
   ``sum``, numpy array creation (see ``sandbox_numpy``) and the vertex-making methods of
   shapely geometries (``sandbox_shapely``, tabletop console only) are guarded the same way.
3. ``Sandbox.run`` executes with a watchdog thread that raises ``StatementTimeout`` in the
   running thread when the statement's own time (robot API calls excluded) runs out.

Refusals before running raise ``SandboxViolation``; a refused builtin or format field at run
time raises it too (it is an ordinary ``Exception``); size guards raise ``MemoryError``.
"""
from __future__ import annotations

import ast
import builtins
import copy
import ctypes
import functools
import math
import operator
import re
import string
import sys
import threading
import time
import types
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from llm_interaction_node.core.errors import StatementTimeout
from llm_interaction_node.core.sandbox_numpy import (
    array_method,
    numpy_view,
    operator_size,
    size_error,
)
from llm_interaction_node.core.sandbox_shapely import (
    GUARDED_GEOMETRY_METHODS,
    geometry_method,
    shapely_names,
)

MAX_INT_BITS = 100_000


class SandboxViolation(Exception):
    """Code refused by the robot console's sandbox; str(e) is a short sentence for the LLM."""


class ImportRefused(SandboxViolation, ImportError):
    """An import statement: refused like any other construct, and an ImportError for the
    error budgets (the reference's import handler), so nothing depends on the message text."""


# --- 1. The allowlist ---------------------------------------------------------------------

_ALLOWED_NODES = frozenset({
    ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.If,
    ast.Pass, ast.Break, ast.Continue, ast.Return, ast.FunctionDef, ast.Delete, ast.Raise,
    ast.Try, ast.ExceptHandler, ast.Assert, ast.arguments, ast.arg, ast.keyword,
    ast.BoolOp, ast.NamedExpr, ast.BinOp, ast.UnaryOp, ast.Lambda, ast.IfExp, ast.Dict, ast.Set,
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension, ast.Compare,
    ast.Call, ast.FormattedValue, ast.JoinedStr, ast.Constant, ast.Attribute, ast.Subscript,
    ast.Starred, ast.Name, ast.List, ast.Tuple, ast.Slice, ast.Load, ast.Store, ast.Del,
    *ast.operator.__subclasses__(), *ast.boolop.__subclasses__(),
    *ast.unaryop.__subclasses__(), *ast.cmpop.__subclasses__(),
})
_NOT_HERE = "are not allowed in the robot console"
_REFUSED_NODES: dict[type, str] = {
    ast.Import: f"imports {_NOT_HERE} (numpy is already available as np)",
    ast.ImportFrom: f"imports {_NOT_HERE} (numpy is already available as np)",
    ast.ClassDef: f"class definitions {_NOT_HERE}; use functions and dicts",
    ast.Global: f"global and nonlocal statements {_NOT_HERE}",
    ast.Nonlocal: f"global and nonlocal statements {_NOT_HERE}",
    ast.AsyncFunctionDef: f"async functions {_NOT_HERE}",
    ast.Await: f"await expressions {_NOT_HERE}",
    ast.AsyncFor: f"async for loops {_NOT_HERE}",
    ast.AsyncWith: f"async with statements {_NOT_HERE}",
    ast.With: f"with statements {_NOT_HERE}",
    ast.Yield: f"generator functions (yield) {_NOT_HERE}; return a list",
    ast.YieldFrom: f"generator functions (yield) {_NOT_HERE}; return a list",
    ast.Match: f"match statements {_NOT_HERE}; use if/elif",
    ast.TryStar: f"except* clauses {_NOT_HERE}",
}
# Attributes refused in addition to every name starting with "_": frame, code and generator
# internals, pickling and raw-memory hatches of numpy objects, and attribute-walking formats.
DENIED_ATTRIBUTES = frozenset({
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "ag_frame",
    "ag_code", "f_globals", "f_locals", "f_builtins", "f_back", "f_code", "tb_frame", "tb_next",
    "co_code", "func_globals", "func_code", "mro", "format_map",
    "tofile", "dump", "dumps", "ctypes", "cffi", "capsule",
})
_UNCATCHABLE = frozenset({
    "BaseException", "SystemExit", "KeyboardInterrupt", "GeneratorExit", "StatementTimeout",
    "InteractionAborted", "EndOfInteraction",
})


def _check_name(name: str) -> None:
    if name.startswith("__"):
        raise SandboxViolation(f"the name '{name}' is not allowed in the robot console "
                               "(names starting with '__' are reserved)")


def check_attribute(name: str) -> None:
    """Refuse the attribute names generated code may not read or write."""
    if name.startswith("_") or name in DENIED_ATTRIBUTES:
        raise SandboxViolation(f"access to attribute '{name}' is not allowed")


class _Policy(ast.NodeVisitor):
    """Raise SandboxViolation at the first construct outside the allowlist."""

    def __init__(self) -> None:
        self._in_finally = False  # break/continue/return there would swallow a timeout
        self._loops_in_finally = 0

    def generic_visit(self, node: ast.AST) -> None:
        kind = type(node)
        if kind in (ast.Import, ast.ImportFrom):
            raise ImportRefused(_REFUSED_NODES[kind])
        if kind in _REFUSED_NODES:
            raise SandboxViolation(_REFUSED_NODES[kind])
        if kind not in _ALLOWED_NODES:
            raise SandboxViolation(f"{kind.__name__} syntax is not allowed in the robot console")
        super().generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        _check_name(node.id)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        check_attribute(node.attr)
        self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> None:
        _check_name(node.arg)
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg is not None:
            _check_name(node.arg)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        if node.is_async:
            raise SandboxViolation(_REFUSED_NODES[ast.AsyncFor])
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is None:
            raise SandboxViolation("a bare 'except:' is not allowed in the robot console; "
                                   "use 'except Exception:'")
        for sub in ast.walk(node.type):
            name = getattr(sub, "id", None) or getattr(sub, "attr", None)
            if name in _UNCATCHABLE:
                raise SandboxViolation(f"catching {name} is not allowed in the robot console; "
                                       "catch Exception instead")
        if node.name is not None:
            _check_name(node.name)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        _check_name(node.name)
        self._visit_scope(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._visit_scope(node)

    def _visit_scope(self, node: ast.AST) -> None:
        outer = self._in_finally, self._loops_in_finally
        self._in_finally, self._loops_in_finally = False, 0
        self.generic_visit(node)
        self._in_finally, self._loops_in_finally = outer

    def visit_Try(self, node: ast.Try) -> None:
        for child in [*node.body, *node.handlers, *node.orelse]:
            self.visit(child)
        outer = self._in_finally, self._loops_in_finally
        self._in_finally, self._loops_in_finally = True, 0
        for child in node.finalbody:
            self.visit(child)
        self._in_finally, self._loops_in_finally = outer

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.target)
        self.visit(node.iter)
        self._visit_loop(node)

    def visit_While(self, node: ast.While) -> None:
        self.visit(node.test)
        self._visit_loop(node)

    def _visit_loop(self, node: ast.For | ast.While) -> None:
        self._loops_in_finally += 1
        for child in node.body:
            self.visit(child)
        self._loops_in_finally -= 1
        for child in node.orelse:
            self.visit(child)

    def visit_Break(self, node: ast.Break) -> None:
        self._leave_finally("break", self._loops_in_finally == 0)

    def visit_Continue(self, node: ast.Continue) -> None:
        self._leave_finally("continue", self._loops_in_finally == 0)

    def visit_Return(self, node: ast.Return) -> None:
        self._leave_finally("return", True)
        self.generic_visit(node)

    def _leave_finally(self, keyword: str, leaves: bool) -> None:
        if self._in_finally and leaves:
            raise SandboxViolation(f"'{keyword}' inside 'finally' is not allowed "
                                   "in the robot console")


# --- 2. Rewrites into guard calls ---------------------------------------------------------

# The guard helpers in every namespace; user code cannot name them (they start with "__").
_BINOP, _INPLACE, _METHOD, _FSTRING = (
    "__sandbox_binop__", "__sandbox_inplace__", "__sandbox_method__", "__sandbox_fstring__")
_GUARDED_OPS = (ast.Add, ast.Mult, ast.Pow, ast.LShift, ast.MatMult)
_GUARDED_METHODS = frozenset({"format", "ljust", "rjust", "center", "zfill", "repeat", "resize",
                              *GUARDED_GEOMETRY_METHODS})


def _call(helper: str, args: list[ast.expr], where: ast.AST) -> ast.Call:
    return ast.copy_location(ast.Call(ast.Name(helper, ast.Load()), args, []), where)


class _Rewrite(ast.NodeTransformer):
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


class _Guards:
    """The run-time half of the rewrites, and the guarded builtins."""

    def __init__(self, max_len: int) -> None:
        self.max_len = max_len
        self._formatter = _Formatter(self)

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

    def __init__(self, guards: _Guards) -> None:
        self._guards = guards

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        if "." in field_name or "[" in field_name:
            raise SandboxViolation(f"format field '{{{field_name}}}' is not allowed in the robot "
                                   "console: pass the value itself, e.g. '{}'.format(x.y)")
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> str:
        return self._guards.format(value, format_spec)


# --- Builtins -----------------------------------------------------------------------------

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


# --- 3. The watchdog ----------------------------------------------------------------------

_set_async_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
_NO_EXCEPTION = ctypes.py_object()  # NULL: clears a pending asynchronous exception


def _timeout_type(timeout_s: float) -> type[StatementTimeout]:
    """A StatementTimeout whose no-argument form (the async-raise form) carries the message."""
    message = f"statement interrupted after {float(timeout_s)} s"

    def __init__(self: BaseException, *args: Any) -> None:
        BaseException.__init__(self, *(args or (message,)))
    return type("StatementTimeout", (StatementTimeout,),
                {"__init__": __init__, "__module__": StatementTimeout.__module__})


class _Watchdog:
    """One daemon thread that raises StatementTimeout in the thread running a statement.

    Disarming is race-free because CPython 3.11 raises asynchronous exceptions only at its
    periodic checks (function entry, backward jumps, after calls) and because the thread id is
    read inside the C call that raises (``target`` is a ctypes cell, not a Python int).
    ``Sandbox.run`` zeroes the cell, then clears a pending exception, with no check before either:
    from then on nothing can be raised in that thread. Clearing is skipped when nothing can be
    pending, because it leaves CPython's "async exception" flag set, which slows every thread
    a little until the next asynchronous exception is delivered.
    """

    REPEAT_S = 0.2  # raise again this often until the statement ends

    def __init__(self, timeout_s: float) -> None:
        self.target = ctypes.c_ulong(0)
        self.raised = 0  # StatementTimeouts raised into the current statement
        self.exc_type = _timeout_type(timeout_s)
        self._timeout_s = timeout_s
        self._cond = threading.Condition()
        self._armed = False
        self._pauses = 0
        self._deadline: float | None = None  # next raise; None while idle or paused
        self._remaining = 0.0  # running time left, kept while paused
        self._stopped = False
        threading.Thread(target=self._loop, name="sandbox-watchdog", daemon=True).start()

    def _loop(self) -> None:
        with self._cond:
            while not self._stopped:
                if self._deadline is None:
                    self._cond.wait()
                elif (delay := self._deadline - time.monotonic()) > 0:
                    self._cond.wait(delay)
                else:
                    self.raised += 1  # counted before raising: run() reads it to clear
                    _set_async_exc(self.target, self.exc_type)
                    self._deadline = time.monotonic() + self.REPEAT_S

    def arm(self, ident: int) -> None:
        with self._cond:
            self.raised = 0
            self._armed = True
            self._pauses = 0
            self._deadline = time.monotonic() + self._timeout_s
            self.target.value = ident
            self._cond.notify()

    def disarm(self) -> None:
        with self._cond:
            self._armed = False
            self._deadline = None

    def pause(self) -> None:
        with self._cond:
            self._pauses += 1
            # Once fired, pauses no longer hold back the repeats: the statement must end.
            if self._pauses == 1 and self._armed and not self.raised:
                self._remaining = self._deadline - time.monotonic()
                self._deadline = None

    def resume(self) -> None:
        with self._cond:
            self._pauses = max(0, self._pauses - 1)
            if self._pauses == 0 and self._armed and self._deadline is None:
                self._deadline = time.monotonic() + self._remaining
                self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()


# --- The sandbox --------------------------------------------------------------------------

class Sandbox:
    """Checks, rewrites and runs console statements; one statement at a time per instance."""

    def __init__(self, timeout_s: float = 10.0, max_sequence_len: int = 10_000_000,
                 geometry: bool = False) -> None:
        """``geometry``: the console also has shapely's geometry and affinity names (the
        tabletop console, as in the reference; see ``sandbox_shapely``)."""
        self.timeout_s = timeout_s
        self.geometry = geometry
        self.max_sequence_len = max_sequence_len
        self._guards = _Guards(max_sequence_len)
        self._np = numpy_view(max_sequence_len)
        self._watchdog = _Watchdog(timeout_s)
        weakref.finalize(self, self._watchdog.stop)

    def prepare(self, tree: ast.Module) -> ast.Module:
        """Refuse code outside the allowlist; return the tree with guard calls to compile."""
        if not isinstance(tree, ast.Module):
            raise TypeError("prepare() takes the ast.Module of ast.parse(source, mode='exec')")
        try:
            _Policy().visit(tree)
            return ast.fix_missing_locations(_Rewrite().visit(tree))
        except RecursionError:
            raise SandboxViolation("this statement is nested too deeply for the robot console") \
                from None

    def new_globals(self, write: Callable[[str], None]) -> dict:
        """A fresh namespace whose print() writes through `write`."""
        g = self._guards
        safe = {name: getattr(builtins, name) for name in _PLAIN_BUILTINS}
        safe.update({name: _unavailable(name) for name in _UNAVAILABLE})
        safe.update(print=_make_print(write), range=g.range, pow=g.pow, sum=g.sum,
                    format=g.format, hasattr=_hasattr, iter=_iter, __import__=_import_for_c_code)
        namespace = {
            "__builtins__": safe,
            "__name__": "__console__",
            "np": self._np,
            _BINOP: g.binop, _INPLACE: g.inplace, _METHOD: g.method, _FSTRING: g.fstring,
        }
        if self.geometry:
            namespace.update(shapely_names())
        return namespace

    def run(self, code: types.CodeType, namespace: dict) -> None:
        """exec(code, namespace) in this thread; StatementTimeout when its time runs out."""
        if "__builtins__" not in namespace:
            raise ValueError("run() needs a namespace made by new_globals()")
        wd = self._watchdog
        ident = threading.get_ident()
        delivered = 0
        try:
            wd.arm(ident)
            exec(code, namespace)
        except wd.exc_type:
            delivered = 1
            raise
        finally:
            # From the end of exec to the clearing call there is no interruption point
            # (no call, no loop): see _Watchdog.
            wd.target.value = 0
            if wd.raised > delivered:  # one may still be pending
                _set_async_exc(ident, _NO_EXCEPTION)
            wd.disarm()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Time inside does not count against the statement timeout (blocking robot API calls)."""
        self._watchdog.pause()
        try:
            yield
        finally:
            self._watchdog.resume()

    def wrap_api(self, fn: Callable) -> Callable:
        """fn, called inside paused(); same signature, name, docstring and attributes."""
        @functools.wraps(fn)
        def api_call(*args: Any, **kwargs: Any) -> Any:
            with self.paused():
                return fn(*args, **kwargs)
        return api_call

"""The sandbox that checks and runs the Python statements an LLM writes for the robot console.

Three layers, each needed, each a module of its own; ``Sandbox`` puts them together:

1. ``Sandbox.prepare`` refuses code outside a small allowlist of syntax (``policy``):
   no imports, classes, async code, ``global``, ``with``, generators, names starting with
   ``__``, attributes starting with ``_`` or reaching frames/code/pickling/ctypes. Together with
   builtins that hold only harmless functions (``safe_builtins``), the code can reach nothing
   but the objects the console hands it.
2. The same pass rewrites the operations that can exhaust memory in one step (``+ * ** << @``,
   ``str.format``, the padding methods, format specs, ``ndarray.repeat``/``resize``) into guard
   calls that raise ``MemoryError`` before computing an oversized result (``guards``).
   ``range``, ``pow``, ``sum``, numpy array creation (see ``numpy_view``) and the
   vertex-making methods of shapely geometries (``shapely_view``, tabletop console only) are
   guarded the same way.
3. ``Sandbox.run`` executes with a watchdog thread (``watchdog``) that raises
   ``StatementTimeout`` in the running thread when the statement's own time (robot API calls
   excluded) runs out.

Refusals before running raise ``SandboxViolation``; a refused builtin or format field at run
time raises it too (it is an ordinary ``Exception``); size guards raise ``MemoryError``.
Everything else imports ``Sandbox``, ``SandboxViolation`` and ``ImportRefused`` from here.
"""
from __future__ import annotations

import ast
import functools
import threading
import types
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .guards import GuardRewrite, Guards
from .numpy_view import numpy_view
from .policy import ImportRefused, Policy, SandboxViolation
from .safe_builtins import console_builtins
from .shapely_view import shapely_names
from .watchdog import NO_EXCEPTION, Watchdog, set_async_exc

__all__ = ["ImportRefused", "Sandbox", "SandboxViolation"]


class Sandbox:
    """Checks, rewrites and runs console statements; one statement at a time per instance."""

    def __init__(self, timeout_s: float = 10.0, max_sequence_len: int = 10_000_000,
                 geometry: bool = False) -> None:
        """``geometry``: the console also has shapely's geometry and affinity names (the
        tabletop console, as in the reference; see ``shapely_view``)."""
        self.timeout_s = timeout_s
        self.geometry = geometry
        self.max_sequence_len = max_sequence_len
        self._guards = Guards(max_sequence_len)
        self._np = numpy_view(max_sequence_len)
        self._watchdog = Watchdog(timeout_s)
        weakref.finalize(self, self._watchdog.stop)

    def prepare(self, tree: ast.Module) -> ast.Module:
        """Refuse code outside the allowlist; return the tree with guard calls to compile."""
        if not isinstance(tree, ast.Module):
            raise TypeError("prepare() takes the ast.Module of ast.parse(source, mode='exec')")
        try:
            Policy().visit(tree)
            return ast.fix_missing_locations(GuardRewrite().visit(tree))
        except RecursionError:
            raise SandboxViolation("this statement is nested too deeply for the robot console") \
                from None

    def new_globals(self, write: Callable[[str], None]) -> dict:
        """A fresh namespace whose print() writes through `write`."""
        namespace = {
            "__builtins__": console_builtins(write, self._guards),
            "__name__": "__console__",
            "np": self._np,
            **self._guards.helpers(),
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
            # (no call, no loop): see watchdog.Watchdog.
            wd.target.value = 0
            if wd.raised > delivered:  # one may still be pending
                set_async_exc(ident, NO_EXCEPTION)
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

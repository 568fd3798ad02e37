"""The robot console's syntax allowlist: what generated code may say at all.

``Policy`` walks a parsed statement and raises ``SandboxViolation`` at the first construct
outside the allowlist: imports, classes, async code, ``global``, ``with``, generators, names
starting with ``__``, attributes starting with ``_`` or reaching frames/code/pickling/ctypes,
catching the exceptions that end a statement, and ``break``/``continue``/``return`` that would
leave a ``finally`` (and so swallow a timeout). Together with builtins that hold only harmless
functions (``safe_builtins``), the code can reach nothing but the objects the console hands
it. ``SandboxViolation`` is also what the run-time refusals raise (a refused builtin or format
field); ``core/sandbox.py`` re-exports both exception types.
"""
from __future__ import annotations

import ast


class SandboxViolation(Exception):
    """Code refused by the robot console's sandbox; str(e) is a short sentence for the LLM."""


class ImportRefused(SandboxViolation, ImportError):
    """An import statement: refused like any other construct, and an ImportError for the
    error budgets (the reference's import handler), so nothing depends on the message text."""


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


class Policy(ast.NodeVisitor):
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

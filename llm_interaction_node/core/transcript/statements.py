"""Turn raw LLM output into console input: the statement(s) to execute, nothing else.

LLMs do not always answer with one clean statement. Handled here:
- console echo: ``>>> stmt`` / ``... body`` lines, followed by made-up output and more
  prompts -> only the first statement (later ones would build on invented results);
- markdown fences -> the fenced code;
- several statements of plain code -> all of them, in order, up to the first line that looks
  like console output (a bare literal, a traceback) rather than code;
- prose or broken code -> returned as-is, so that executing it gives the LLM a SyntaxError.
Statement boundaries are decided by :func:`codeop.compile_command`, the stdlib's own
"is this input complete?" logic.
"""
from __future__ import annotations

import ast
import codeop
import re

from .transcript import PS1, PS2

_FENCE = re.compile(r"```[ \t]*(?:python|py|pycon)?[ \t]*\n(.*?)(?:```|\Z)", re.S | re.I)


def input_complete(text: str) -> bool:
    """Whether generated console text already holds one whole input: a line after the first
    that is no ``...`` continuation (that is console output the model made up, or a next
    prompt). Lets a model that generates token by token stop there (core/llm/local.py)."""
    lines = text.lstrip("\n").split("\n")
    if len(lines) < 2:
        return False
    for line in lines[1:-1]:
        if not line.startswith(PS2.rstrip()):
            return True
    last = lines[-1]
    return len(last) >= 3 and not last.startswith(PS2.rstrip())


def code_lines(source: str) -> list[str]:
    """The lines of a console input that are code: not blank, not a comment (as written)."""
    return [line for line in source.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def extract_statements(text: str) -> list[str]:
    """The statements to execute for one LLM response ([] if it contained none)."""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    lines = [ln.rstrip() for ln in text.strip("\n").splitlines()]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return []
    if lines[0].lstrip().startswith(PS1.strip()):
        first, _ = _take_statement(_console_input(lines))
        return [first] if first.strip() else []
    statements = []
    rest = [ln[len(PS2):] if ln.startswith(PS2) else ln for ln in lines]
    rest[0] = rest[0].strip()
    while rest:
        statement, rest = _take_statement(rest)
        if statements and (not _is_code(statement) or _looks_like_output(statement)):
            break
        statements.append(statement)
        while rest and not rest[0].strip():
            rest.pop(0)
        if not statements[-1] or not _is_code(statements[-1]):
            break
    return [s for s in statements if s.strip()]


def _console_input(lines: list[str]) -> list[str]:
    """The lines of the first ``>>>`` input with prompts removed (stop at its output)."""
    first = lines[0].lstrip()[len(PS1.strip()):]
    out = [first[1:] if first.startswith(" ") else first]
    for ln in lines[1:]:
        if ln.startswith(PS2.strip()):
            body = ln[len(PS2.strip()):]
            out.append(body[1:] if body.startswith(" ") else body)
        else:
            break
    return out


def _take_statement(lines: list[str]) -> tuple[str, list[str]]:
    """Split off the first complete statement; return it and the remaining lines."""
    for end in range(1, len(lines) + 1):
        source = "\n".join(lines[:end])
        following = lines[end] if end < len(lines) else None
        if following is not None and following[:1] in (" ", "\t"):
            continue                      # an indented line continues a block
        try:
            if codeop.compile_command(source + "\n\n", "<console>", "exec") is None:
                continue                  # incomplete (open bracket, block header)
        except (SyntaxError, ValueError, OverflowError):
            if following is not None and _still_open(source):
                continue
            return source, lines[end:]
        return source, lines[end:]
    return "\n".join(lines), []


def _still_open(source: str) -> bool:
    """Unbalanced brackets: the statement may go on on the next line."""
    depth = 0
    for ch in source:
        depth += ch in "([{"
        depth -= ch in ")]}"
    return depth > 0


def _is_code(statement: str) -> bool:
    try:
        ast.parse(statement)
    except SyntaxError:
        return False
    return True


def bare_expression(source: str) -> ast.expr | None:
    """The expression if ``source`` is one expression statement (``get_obj_names()``,
    ``'success'``), else None (several statements, an assignment, not Python)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    return tree.body[0].value


def bare_call(source: str) -> ast.Call | None:
    """The call if ``source`` is one expression statement calling a plain name
    (``put_first_on_second('red block', 'red bowl')``; not ``obj.method()``), else None."""
    value = bare_expression(source)
    return value if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) else None


def _looks_like_output(statement: str) -> bool:
    """A bare literal (``'success'``, ``[1, 2]``, ``None``) is what a console prints, not code."""
    value = bare_expression(statement)
    if value is None:
        return False
    try:
        ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def module_bindings(tree: ast.AST) -> set[str]:
    """Names the code binds in the console's namespace: assignment, loop and ``with``
    targets, deletions, defs and classes outside any function (a function's parameters and
    locals are its own)."""
    names: set[str] = set()
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            todo.extend(node.decorator_list)
            continue                                   # its body binds its own names
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        todo.extend(ast.iter_child_nodes(node))
    return names


def bound_names(*trees: ast.AST) -> set[str]:
    """Names the code binds itself: assignment and loop targets, deletions, defs, classes,
    arguments and ``except ... as`` names (used to find calls of undefined functions)."""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.add(node.name)
    return names

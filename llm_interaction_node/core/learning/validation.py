"""Whether L_improve's rewrite may be stored: the checks that need no world.

A rewrite becomes a lesson the robot copies, so it must be a console transcript that starts
with ``wait_for_trigger()``, is valid Python the console's sandbox accepts, calls only the
robot's functions, names it defines itself and harmless builtins, never changes the memory
(no learn or forget call) and stays within a size cap. :func:`validate_transcript` raises
:class:`InvalidTranscript` saying which rule it breaks (the reason L_improve is re-asked with).
"""
from __future__ import annotations

import ast
import re
import threading
from collections.abc import Iterable

from ..transcript.statements import bound_names
from ..transcript.transcript import Transcript
from .transcripts import LEARN_CALL

# Calls a stored example must never contain: it would teach the robot to change its memory.
FORBIDDEN_CALLS = frozenset({LEARN_CALL, "forget_learned"})
# Builtins a transcript may call besides the API (those the console sandbox offers).
SAFE_BUILTINS = frozenset({
    "abs", "all", "any", "bool", "callable", "chr", "dict", "divmod", "enumerate", "filter",
    "float", "format", "frozenset", "hasattr", "hash", "int", "isinstance", "iter", "len",
    "list", "map", "max", "min", "next", "ord", "pow", "print", "range", "repr", "reversed",
    "round", "set", "slice", "sorted", "str", "sum", "tuple", "zip",
    "Exception", "ValueError", "TypeError", "KeyError", "IndexError", "RuntimeError",
})
SAFE_MODULES = frozenset({"np"})
MAX_ENTRIES = 200           # absolute caps of an improved transcript
MAX_CHARS = 40_000


class InvalidTranscript(ValueError):
    """An improved transcript that must not be stored; str() says why."""


def api_names_from_listing(listing: str) -> set[str]:
    return set(re.findall(r"^def\s+([A-Za-z_]\w*)\s*\(", listing, re.M))


_sandbox = None
_sandbox_lock = threading.Lock()


def _sandbox_check(tree: ast.Module) -> None:
    """The console's own syntax policy (imports, dunders, ... are refused)."""
    global _sandbox
    from ..sandbox import Sandbox
    with _sandbox_lock:
        if _sandbox is None:
            _sandbox = Sandbox(timeout_s=1.0)
        sandbox = _sandbox
    sandbox.prepare(tree)


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def validate_transcript(text: str, api_names: Iterable[str], *, max_entries: int = MAX_ENTRIES,
                        max_chars: int = MAX_CHARS) -> Transcript:
    """Parse and check an improved transcript; raise InvalidTranscript saying why.

    Rules: it parses into console inputs; it has statements; the first statement is
    ``wait_for_trigger()``; every statement is valid Python that the console's sandbox
    accepts; every called name is an API function, a name the transcript defines itself
    (def, assignment, loop variable, parameter) or a harmless builtin, and every method
    call starts from such a name or ``np``; learn_from_interaction() and forget_learned()
    are not called; it is at most ``max_entries`` inputs and ``max_chars`` characters.
    """
    from ..sandbox import SandboxViolation
    if not text.strip():
        raise InvalidTranscript("the answer contains no console transcript")
    if len(text) > max_chars:
        raise InvalidTranscript(f"the transcript is too long ({len(text)} characters, at most "
                                f"{max_chars})")
    transcript = Transcript.parse(text)
    if len(transcript) > max_entries:
        raise InvalidTranscript(f"the transcript is too long ({len(transcript)} inputs, at most "
                                f"{max_entries})")
    statements = [e for e in transcript if not e.is_comment]
    if not statements:
        raise InvalidTranscript("the transcript contains no statements")
    trees = []
    for entry in statements:
        try:
            trees.append(ast.parse(entry.source))
        except SyntaxError as exc:
            raise InvalidTranscript(f"invalid Python in {entry.source.splitlines()[0]!r}: "
                                    f"{exc.msg}") from None
    first = trees[0].body
    if not (len(first) == 1 and isinstance(first[0], ast.Expr)
            and ast.unparse(first[0]) == "wait_for_trigger()"):
        raise InvalidTranscript("the transcript does not start with wait_for_trigger()")
    known = set(api_names) | bound_names(*trees) | SAFE_BUILTINS | SAFE_MODULES
    for entry, tree in zip(statements, trees, strict=False):
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) \
                else None
            if called in FORBIDDEN_CALLS:
                raise InvalidTranscript(f"the transcript calls {called}()")
            root = _root_name(f)
            if root is not None and root not in known:
                raise InvalidTranscript(f"the transcript calls the unknown function {root}() "
                                        f"in {entry.source.splitlines()[0]!r}")
        try:
            _sandbox_check(ast.parse(entry.source))
        except SandboxViolation as exc:
            raise InvalidTranscript(f"the console would refuse {entry.source.splitlines()[0]!r}: "
                                    f"{exc}") from None
    return transcript



__all__ = ["InvalidTranscript", "validate_transcript", "api_names_from_listing",
           "FORBIDDEN_CALLS", "SAFE_BUILTINS", "SAFE_MODULES", "MAX_ENTRIES", "MAX_CHARS"]

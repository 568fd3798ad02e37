"""Function generation: a function a statement calls that nobody defined is written first.

As in the reference method (its ``fgen`` prompt): before a console statement runs, the plain
names it calls that neither the statement, the console namespace nor the builtins define are
found; for each, a second LLM prompt (``config/fgen.yaml``: a header, the console's API listing
and a few ``# define function: <call>.`` examples) writes the definition. Helpers that the
generated function calls are written the same way first, up to ``max_depth`` levels and
``max_functions`` per statement. A definition must parse and contain a top-level ``def`` of the
wanted name, and only that ``def`` is kept; the caller runs it through the console
(the same sandbox as every statement), so the transcript shows them as typed inputs before the
statement, as a person at the console would see them.
"""
from __future__ import annotations

import ast
import builtins as _builtins
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..llm import LLMClient, LLMError, TokenLedger, Usage
from ..settings.config_files import config_path
from ..transcript.statements import _FENCE, bound_names

log = logging.getLogger(__name__)

PURPOSE = "fgen"                      # the token ledger's name for these calls
QUERY = "# define function: {call}."
STOP = ("\n# define", "\n# example", "\n>>>")
SYSTEM = ("You write Python helper functions for a robot console. Reply with exactly the "
          "definition that follows the last '# define function:' line, no prose, no markdown.")


@dataclass(frozen=True)
class FgenExample:
    """One few-shot example: the call it defines, the definition, the names it needs."""

    call: str
    code: str
    uses: tuple[str, ...] = ()       # shown only when the console has all of these names

    def render(self) -> str:
        return QUERY.format(call=self.call) + "\n" + self.code.strip("\n") + "\n"


@dataclass
class FgenPrompt:
    header: str
    examples: list[FgenExample] = field(default_factory=list)

    def render(self, call: str, api_listing: str, names: Sequence[str] | set[str]) -> str:
        """The prompt for ``call``: header, API listing, the examples whose names exist."""
        shown = [ex.render() for ex in self.examples if all(n in names for n in ex.uses)]
        parts = [self.header.strip("\n"), "", api_listing.strip("\n"), "", *shown,
                 QUERY.format(call=call)]
        return "\n".join(parts) + "\n"


def load_fgen_prompt(path: str | Path | None = None) -> FgenPrompt:
    """The prompt of ``config/fgen.yaml`` (or ``path``); a clear error for a malformed file."""
    if path is None:
        path = config_path("fgen.yaml")
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("header"), str):
        raise ValueError(f"{path}: expected a mapping with 'header' (text) and 'examples'")
    examples = []
    for n, item in enumerate(data.get("examples") or [], 1):
        if not isinstance(item, dict) or not isinstance(item.get("call"), str) \
                or not isinstance(item.get("code"), str):
            raise ValueError(f"{path}: example {n} needs 'call' and 'code' (text)")
        uses = item.get("uses") or []
        if not isinstance(uses, list) or not all(isinstance(u, str) for u in uses):
            raise ValueError(f"{path}: example {n}: 'uses' must be a list of names")
        examples.append(FgenExample(item["call"].strip(), item["code"], tuple(uses)))
    return FgenPrompt(data["header"], examples)


def undefined_calls(tree: ast.AST, namespace: dict) -> list[tuple[str, str]]:
    """(name, call text) of the functions ``tree`` calls by a plain name that neither the code
    nor ``namespace`` (or its builtins) defines; first call site per name, in source order.
    The call text is the whole assignment when the call is assigned (``pt = f(x)``), as the
    reference's prompt shows it: the target names say what the function returns."""
    known = bound_names(tree) | set(namespace)
    b = namespace.get("__builtins__", {})
    known |= set(b if isinstance(b, dict) else dir(_builtins))
    assigned: dict[int, ast.Assign] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            assigned[id(node.value)] = node
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    calls.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    found: dict[str, str] = {}
    for node in calls:
        if not isinstance(node.func, ast.Name):
            continue
        name = node.func.id
        if name in known or name in found or name.startswith("_"):
            continue
        try:
            found[name] = ast.unparse(assigned.get(id(node), node))
        except Exception:  # noqa: BLE001 - unparse of odd trees; the name is what matters
            found[name] = f"{name}(...)"
    return list(found.items())


@dataclass
class Definition:
    """A function written by the fgen prompt: its name, the call it was asked for, the source
    to run (top-level ``def`` statements only) and how deep in the recursion it was."""

    name: str
    call: str
    source: str
    depth: int = 0


@dataclass
class FunctionGenerator:
    """Writes the undefined functions of a statement (see the module docstring).

    ``check``: raises for code the console would refuse (the sandbox's ``prepare``), so a
    refused definition is dropped instead of shown; ``call``: how the LLM is called (the
    agent passes its StopSignal's ``call`` so a stop request ends generation too).
    """

    llm: LLMClient
    api_listing: str
    prompt: FgenPrompt = field(default_factory=load_fgen_prompt)
    ledger: TokenLedger = field(default_factory=TokenLedger)
    check: Callable[[ast.Module], Any] = lambda tree: tree
    call: Callable[..., Any] = lambda fn, *args, **kwargs: fn(*args, **kwargs)
    max_depth: int = 2               # the statement's calls are depth 0, their helpers 1
    max_functions: int = 4           # per statement
    temperature: float = 0.0
    max_tokens: int = 512
    last_usage: Usage = field(default_factory=Usage)  # of the last definitions_for()

    def definitions_for(self, source: str, namespace: dict) -> list[Definition]:
        """Definitions for the undefined functions ``source`` calls, helpers before the
        functions that call them ([] when nothing is missing or the source does not parse)."""
        self.last_usage = Usage()
        try:
            tree = ast.parse(source, mode="exec")
        except SyntaxError:
            return []
        out: list[Definition] = []
        self._define(tree, dict(namespace), 0, out)
        return out

    def _define(self, tree: ast.AST, known: dict, depth: int, out: list[Definition]) -> None:
        if depth >= self.max_depth:
            return
        for name, call in undefined_calls(tree, known):
            if len(out) >= self.max_functions:
                return
            if name in known:                     # written meanwhile as another's helper
                continue
            definition = self._generate(name, call, known, depth)
            if definition is None:
                continue
            known[name] = definition              # a placeholder: the name is taken now
            self._define(ast.parse(definition.source), known, depth + 1, out)
            out.append(definition)

    def _generate(self, name: str, call: str, known: dict, depth: int) -> Definition | None:
        prompt = self.prompt.render(call, self.api_listing, set(known))
        system = SYSTEM if getattr(self.llm.config, "mode", "completion") == "chat" else None
        try:
            completion = self.call(self.llm.complete, prompt, stop=STOP,
                                   temperature=self.temperature, max_tokens=self.max_tokens,
                                   system=system)
        except LLMError as exc:
            log.warning("function generation for %s failed: %s", name, exc)
            return None
        self.ledger.record(completion.usage, PURPOSE)
        self.last_usage = self.last_usage + completion.usage
        source = definition_source(completion.text, name)
        if source is None:
            log.info("function generation for %s gave no definition of it", name)
            return None
        try:
            self.check(ast.parse(source))
        except Exception as exc:  # noqa: BLE001 - refused code is dropped, never run
            log.info("the definition of %s was refused: %s", name, exc)
            return None
        return Definition(name, call, source, depth)


def definition_source(text: str, name: str) -> str | None:
    """The top-level ``def name(...)`` of ``text`` (a fenced block or plain code); None for
    prose, broken code or no such definition. Anything else in the answer (example calls,
    other functions) is dropped: helpers it needs are generated on their own."""
    fenced = _FENCE.search(text or "")
    code = (fenced.group(1) if fenced else text or "").strip("\n")
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return ast.get_source_segment(code, node)
    return None


__all__ = ["Definition", "FgenExample", "FgenPrompt", "FunctionGenerator", "PURPOSE",
           "definition_source", "load_fgen_prompt", "undefined_calls"]

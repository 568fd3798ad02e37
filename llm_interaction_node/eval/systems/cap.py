"""The Code-as-Policies baselines as benchmark Systems: CaP and Dynamic CaP.

CaP (protocol, "Baselines"): a static few-shot prompt (header + 16 examples) followed by the
scene line ``objects = [...]`` and ``# <instruction>``; the LLM writes the WHOLE program at once
(one completion, stopped at the next instruction marker). The program may call

* ``parse_obj_name(description, context)`` and ``parse_position(description)``: LLM
  sub-programs with their own few-shot prompts (8 / 9 examples) that set ``ret_val``;
* functions nobody defined: before the program runs, the LLM is asked for their definitions,
  recursively for the functions those call (depth ``max_define_depth``, at most
  ``max_defines`` per program).

The program runs through the core :class:`~llm_interaction_node.core.sandbox.Sandbox` with the
TabletopApi functions and ``np`` bound: the API of the API preset (``api_preset``, the setting
``robot_api.preset``), the same as the console's, and its listing in the prompt headers
(``{api_listing}``). The end of the program hands back to the user
(``next_utterance(Round)``); feedback is a new instruction appended to the run's context (the
earlier instructions and programs of this run), and the namespace of the run persists.

Dynamic CaP: the same, but the examples of every prompt (main, parse_obj_name, parse_position)
are the top-k retrieved from an :class:`ExampleMemory` (seeded with the static examples, most
similar last), and ``episode_succeeded()`` stores the run's instructions and programs (and the
sub-programs that ran) in it.

Examples are stored in the memory as console transcripts so that they are indexed by the
instructions: per round, ``>>> wait_for_trigger()`` printing ``{'type': 'dialog', 'text':
<instruction>}`` followed by ``>>> <program>``; an optional first entry holds the scene line.
"""
from __future__ import annotations

import ast
import io
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ...core.agent.fgen import undefined_calls
from ...core.apis.registry import ApiRegistry, public_functions
from ...core.apis.sets import TABLETOP
from ...core.apis.tabletop import TabletopApi, TabletopRobot
from ...core.decoding.constraint import program_constraint
from ...core.llm import LLMClient, LLMError, TokenLedger
from ...core.memory.config import MemoryConfig
from ...core.sandbox import Sandbox, SandboxViolation
from ...core.settings.config_files import config_path
from ...core.transcript.errors import SemanticHintError, StatementTimeout
from ...core.transcript.transcript import Entry, Transcript
from .base import Round, UserTurn

DEFAULT_K = MemoryConfig.k      # the settings' memory.k (the protocol's k = 16)

CAP_PROMPTS = ("eval", "cap_tabletop.yaml")
FILENAME = "<program>"
STOP = ("\n# ", "\nobjects = ", "\n```\n")
MAX_ERROR_CHARS = 500
SUB_KINDS = ("parse_obj_name", "parse_position")
API_LISTING = "{api_listing}"     # where a prompt header shows the API listing


# ---------------------------------------------------------------------------- prompt data
@dataclass
class PromptExample:
    """One few-shot example: optional scene line, the instruction (shown as ``# ...``), code."""

    instruction: str
    code: str
    context: str = ""
    error: str = ""      # correction examples only: the failed code's error
    fixed: str = ""      # ... and the corrected program

    def render(self) -> str:
        head = f"{self.context}\n" if self.context else ""
        return f"{head}# {self.instruction}\n{self.code.rstrip()}\n"


@dataclass
class PromptSet:
    header: str
    examples: list[PromptExample] = field(default_factory=list)


def _prompt_set(data: Any, where: str) -> PromptSet:
    if not isinstance(data, dict) or not isinstance(data.get("header", ""), str):
        raise ValueError(f"{where}: expected a mapping with 'header' and 'examples'")
    examples = []
    for n, item in enumerate(data.get("examples") or [], 1):
        if not isinstance(item, dict) or not isinstance(item.get("instruction"), str) \
                or not isinstance(item.get("code"), str):
            raise ValueError(f"{where}: example {n} needs 'instruction' and 'code' (text)")
        examples.append(PromptExample(
            instruction=item["instruction"].strip(), code=item["code"].rstrip() + "\n",
            context=str(item.get("context") or "").strip(), error=str(item.get("error") or ""),
            fixed=str(item.get("fixed") or "")))
    return PromptSet(header=str(data.get("header", "")).rstrip() + "\n", examples=examples)


def load_prompt_file(path: str | Path | None = None, *, default: tuple[str, ...] = CAP_PROMPTS
                     ) -> dict[str, PromptSet]:
    """The prompt sets of a YAML file (``config/eval/cap_tabletop.yaml`` by default)."""
    path = Path(path) if path is not None else config_path(*default)
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of prompt sets")
    return {name: _prompt_set(value, f"{path}: {name}") for name, value in data.items()}


# ---------------------------------------------------------------------------- code helpers
_FENCE = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)(?:```|\Z)", re.S | re.I)


def program_grammar(api: TabletopApi) -> str:
    """The GBNF grammar programs in this scene are decoded with (the same constraint of
    scene names as the console's, docs/evaluation.md "Decoding")."""
    return program_constraint(public_functions(api), api.get_obj_names()).gbnf(program=True)


def program_listing(api: TabletopApi) -> str:
    """The API listing the console shows (the same functions, signatures and comments), as
    comment lines of a program prompt."""
    listing = ApiRegistry(public_functions(api)).listing()
    return "\n".join("# " + line for line in listing.splitlines())


def clean_code(text: str) -> str:
    """The program in an LLM answer: the first fenced block if there is one, dedented,
    without trailing blank space."""
    text = text or ""
    m = _FENCE.search(text)
    if m:
        text = m.group(1)
    text = text.replace("```", "")
    return textwrap.dedent(text.expandtabs(4)).strip("\n").rstrip() + ("\n" if text.strip() else "")


def format_error(exc: BaseException) -> str:
    """A short reason for Round.error and for correction prompts."""
    if isinstance(exc, SyntaxError):
        where = f" (line {exc.lineno})" if exc.lineno else ""
        text = f"syntax error: {exc.msg}{where}"
    elif isinstance(exc, SandboxViolation):
        text = f"refused: {exc}"
    elif isinstance(exc, SemanticHintError):
        text = str(exc)
    elif isinstance(exc, StatementTimeout):
        text = f"timeout: {exc}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + " ..."


def count_statements(code: str) -> int:
    """Program lines that are neither blank nor comments."""
    return sum(1 for ln in code.splitlines() if ln.strip() and not ln.lstrip().startswith("#"))


# ---------------------------------------------------------------------------- memory encoding
def episode_transcript(rounds: Sequence[tuple[str, str]], context: str = "") -> str:
    """Console text of (instruction, program) rounds, indexed by the instructions."""
    t = Transcript()
    if context:
        t.append(Entry(context))
    for utterance, code in rounds:
        t.append(Entry("wait_for_trigger()", repr({"type": "dialog", "text": utterance})))
        if code.strip():
            t.append(Entry(code.rstrip()))
    return t.render()


def examples_from_transcript(text: str) -> tuple[str, list[tuple[str, str]]]:
    """(scene line, [(instruction, program), ...]) of a transcript made by episode_transcript."""
    context = ""
    rounds: list[list[str]] = []
    for entry in Transcript.parse(text):
        if entry.source.strip() == "wait_for_trigger()":
            said = Transcript([entry]).user_utterances()
            rounds.append([said[0] if said else "", ""])
        elif not rounds:
            context = entry.source.strip()
        else:
            rounds[-1][1] += entry.source.rstrip() + "\n"
    return context, [(u, c) for u, c in rounds]


def render_transcript_example(text: str) -> str:
    """A stored example as prompt text (scene line, then ``# instruction`` + program per round)."""
    context, rounds = examples_from_transcript(text)
    head = f"{context}\n" if context else ""
    return head + "".join(f"# {u}\n{c.rstrip()}\n" for u, c in rounds)


# ---------------------------------------------------------------------------- the common base
class ProgramSystem:
    """What CaP, Dynamic CaP and HELPER share: LLM calls with accounting, sandboxed programs
    with the TabletopApi bound, and the parse_obj_name / parse_position sub-programs."""

    name = "program_system"
    grammar: str | None = None     # the scene's program grammar (core/decoding/constraint.py)

    def __init__(self, llm: LLMClient, memory_dir: str | Path | None = None, k: int = DEFAULT_K,
                 ledger: TokenLedger | None = None, *, prompts: str | Path | None = None,
                 k_obj: int = 8, k_pos: int = 9, timeout_s: float = 30.0,
                 api_preset: str = "ours"):
        self.api_preset = api_preset
        self.api_options = TABLETOP.options(api_preset)      # ValueError for an unknown one
        self.listing = program_listing(self.make_api(None))  # the same for every robot
        self.llm = llm
        self.ledger = ledger if ledger is not None else TokenLedger()
        self.memory_dir = memory_dir
        self.k, self.k_obj, self.k_pos = int(k), int(k_obj), int(k_pos)
        self.prompts = load_prompt_file(prompts)
        for part in ("main", *SUB_KINDS):
            if part not in self.prompts:
                raise ValueError(f"the CaP prompt file lacks the part {part!r}")
        # numpy and shapely's geometry names, as the reference's namespace
        self.sandbox = Sandbox(timeout_s=timeout_s, geometry=True)       # the main program
        self.sub_sandbox = Sandbox(timeout_s=timeout_s, geometry=True)   # sub-programs in it
        self._out = io.StringIO()
        self._sub_calls: list[tuple[str, str, str, str]] = []   # (kind, query, context, code)
        self._scene = ""

    # -- LLM ------------------------------------------------------------------------
    def _complete(self, prompt: str, purpose: str, stop: Sequence[str] = STOP) -> str:
        # temperature and token limit: the client's own (the llm settings section)
        c = self.llm.complete(prompt, stop=list(stop), grammar=self.grammar)
        self.ledger.record(c.usage, purpose)
        return c.text or ""

    # -- the API --------------------------------------------------------------------
    def make_api(self, robot: TabletopRobot | None) -> TabletopApi:
        """The tabletop API of the preset over ``robot``, as every system gets it."""
        return TABLETOP.make_api(robot, self.api_options)

    def header(self, prompt_set: PromptSet) -> str:
        """A prompt header with the API listing where it says ``{api_listing}``."""
        return prompt_set.header.replace(API_LISTING, self.listing)

    # -- namespaces -----------------------------------------------------------------
    def _write(self, text: str) -> None:
        self._out.write(text)

    def _api_functions(self, api: TabletopApi, sandbox: Sandbox) -> dict[str, Callable]:
        # named places ('middle', 'the top left corner') in place of an object name, as the
        # reference's get_obj_pos takes them: the API's own (TabletopApi.PLACE_NAMES)
        return {n: sandbox.wrap_api(getattr(api, n)) for n in TabletopApi.API}

    def _namespace(self, api: TabletopApi) -> dict:
        ns = self.sandbox.new_globals(self._write)
        ns.update(self._api_functions(api, self.sandbox))
        ns["objects"] = api.get_obj_names()

        def parse_obj_name(query, context=None):
            return self._sub_program("parse_obj_name", api, str(query),
                                     None if context is None else str(context))

        def parse_position(query):
            return self._sub_program("parse_position", api, str(query), None)

        ns["parse_obj_name"] = self.sandbox.wrap_api(parse_obj_name)
        ns["parse_position"] = self.sandbox.wrap_api(parse_position)
        return ns

    def _compile(self, code: str, sandbox: Sandbox | None = None):
        tree = ast.parse(code, filename=FILENAME, mode="exec")
        return compile((sandbox or self.sandbox).prepare(tree), FILENAME, "exec")

    def _execute(self, code: str, ns: dict) -> BaseException | None:
        """Compile and run one program in ``ns``; the error (None on success). Errors of
        generated code never escape."""
        try:
            self.sandbox.run(self._compile(code), ns)
        except (Exception, StatementTimeout) as exc:  # noqa: BLE001 - every error of
            return exc                                 # generated code is reported
        return None

    # -- sub-programs ---------------------------------------------------------------
    def _sub_examples(self, kind: str, query: str) -> list[str]:
        """Rendered few-shot examples of a sub-program prompt (static here)."""
        return [ex.render() for ex in self.prompts[kind].examples]

    def _sub_program(self, kind: str, api: TabletopApi, query: str, context: str | None) -> Any:
        if kind == "parse_obj_name" and not context:
            context = f"objects = {api.get_obj_names()!r}"
        prompt = self.header(self.prompts[kind]) + "\n" + "".join(self._sub_examples(kind, query))
        if context:
            prompt += f"{context}\n"
        prompt += f"# {query}\n"
        code = clean_code(self._complete(prompt, kind))
        ns = self.sub_sandbox.new_globals(self._write)
        ns.update(self._api_functions(api, self.sub_sandbox))
        try:
            compiled = self._compile(code, self.sub_sandbox)
        except SyntaxError as exc:
            raise ValueError(f"{kind}({query!r}) gave invalid code: {format_error(exc)}") from None
        if context:
            # as the reference's LMP: the context line (``objects = [...]``) runs before the
            # code, which was written to use its names
            try:
                self.sub_sandbox.run(self._compile(context, self.sub_sandbox), ns)
            except SyntaxError as exc:
                raise ValueError(f"{kind}: the context {context!r} is no code: "
                                 f"{format_error(exc)}") from None
        self.sub_sandbox.run(compiled, ns)
        if "ret_val" not in ns:
            raise ValueError(f"{kind}({query!r}) did not set ret_val")
        self._sub_calls.append((kind, query, context or "", code))
        return ns["ret_val"]

    def _round(self, error: BaseException | str | None, utterance: str, code: str,
               **extra: Any) -> Round:
        printed = self._out.getvalue().rstrip("\n")
        transcript = f"# {utterance}\n{code.rstrip()}\n" + (f"{printed}\n" if printed else "")
        if isinstance(error, BaseException):
            error = format_error(error)
        return Round(error=error, transcript=transcript, statements=count_statements(code),
                     extra={"code": code, **extra})

    def episode_succeeded(self) -> None:  # pragma: no cover - overridden where it matters
        return None


# ---------------------------------------------------------------------------- CaP
class CaP(ProgramSystem):
    """Code as Policies with a static prompt (see the module docstring)."""

    name = "cap"

    def __init__(self, llm: LLMClient, memory_dir: str | Path | None = None, k: int = DEFAULT_K,
                 ledger: TokenLedger | None = None, *, max_define_depth: int = 2,
                 max_defines: int = 6, **kwargs: Any):
        super().__init__(llm, memory_dir, k, ledger, **kwargs)
        if "define" not in self.prompts:
            raise ValueError("the CaP prompt file lacks the part 'define'")
        self.max_define_depth = max_define_depth
        self.max_defines = max_defines
        self.last_rounds: list[tuple[str, str]] = []     # (instruction, program) of the last run
        self.last_scene = ""
        self.last_sub_calls: list[tuple[str, str, str, str]] = []
        self.last_definitions: list[tuple[str, str]] = []

    # -- prompts --------------------------------------------------------------------
    def _main_examples(self, utterances: Sequence[str]) -> list[str]:
        return [ex.render() for ex in self.prompts["main"].examples]

    def main_prompt(self, utterances: Sequence[str]) -> str:
        """Header, examples, the run's scene line and earlier rounds, then the new instruction."""
        parts = [self.header(self.prompts["main"]), "\n", *self._main_examples(utterances),
                 f"{self._scene}\n"]
        parts += [f"# {u}\n{c.rstrip()}\n" for u, c in self.last_rounds]
        parts.append(f"# {utterances[-1]}\n")
        return "".join(parts)

    # -- recursive definitions ------------------------------------------------------
    def _define_missing(self, tree: ast.AST, ns: dict, depth: int, defined: list) -> None:
        """Ask the LLM for the functions ``tree`` calls that nobody defined and run the
        definitions in ``ns`` (recursively, bounded in depth and count). Failures leave the
        name undefined: the program then stops with a NameError."""
        if depth >= self.max_define_depth:
            return
        for name, call in undefined_calls(tree, ns):
            if len(defined) >= self.max_defines or name in ns:
                return
            prompt = (self.header(self.prompts["define"]) + "\n"
                      + "".join(ex.render() for ex in self.prompts["define"].examples)
                      + f"# define function: {call}.\n")
            code = clean_code(self._complete(prompt, "define"))
            try:
                def_tree = ast.parse(code, filename=FILENAME, mode="exec")
            except SyntaxError:
                continue
            if not any(isinstance(n, ast.FunctionDef) and n.name == name for n in def_tree.body):
                continue
            defined.append((call, code))
            self._define_missing(def_tree, ns, depth + 1, defined)
            self._execute(code, ns)

    # -- the run --------------------------------------------------------------------
    def _program_round(self, api: TabletopApi, ns: dict, utterances: list[str]) -> Round:
        self._out = io.StringIO()
        utterance = utterances[-1]
        try:
            text = self._complete(self.main_prompt(utterances), "plan")
        except LLMError as exc:
            return self._round(f"llm error: {exc}", utterance, "")
        code = clean_code(text)
        self.last_rounds.append((utterance, code))
        if not code.strip():
            return self._round("empty program", utterance, code)
        try:
            tree = ast.parse(code, filename=FILENAME, mode="exec")
        except SyntaxError as exc:
            return self._round(exc, utterance, code)
        defined: list[tuple[str, str]] = []
        try:
            self._define_missing(tree, ns, 0, defined)
        except LLMError as exc:
            return self._round(f"llm error: {exc}", utterance, code)
        self.last_definitions += defined
        error = self._execute(code, ns)
        return self._round(error, utterance, code, defined=[c for c, _ in defined])

    def run(self, robot: TabletopRobot, instruction: str, next_utterance: UserTurn) -> None:
        api = self.make_api(robot)
        self.grammar = program_grammar(api)
        self._scene = f"objects = {api.get_obj_names()!r}"
        self.last_scene = self._scene
        self.last_rounds, self.last_definitions = [], []
        self._sub_calls = self.last_sub_calls = []
        ns = self._namespace(api)
        utterances = [instruction]
        while True:
            rnd = self._program_round(api, ns, utterances)
            reply = next_utterance(rnd)
            if reply is None:
                return
            utterances.append(str(reply))

    def episode_succeeded(self) -> None:
        return None


# ---------------------------------------------------------------------------- Dynamic CaP
class DynamicCaP(CaP):
    """CaP whose examples are retrieved from a memory that grows with successful episodes."""

    name = "dynamic_cap"

    def __init__(self, llm: LLMClient, memory_dir: str | Path, k: int = DEFAULT_K,
                 ledger: TokenLedger | None = None, *, api_name: str = "cap_dynamic",
                 embedder=None, **kwargs: Any):
        super().__init__(llm, memory_dir, k, ledger, **kwargs)
        from ...core.memory.store import ExampleMemory

        if memory_dir is None:
            raise ValueError("DynamicCaP needs a memory_dir")
        self.api_name = api_name
        config = lambda kk: MemoryConfig(path=str(memory_dir), k=kk)  # noqa: E731
        self.memory = ExampleMemory(api_name, config(self.k), embedder=embedder)
        self.sub_memories = {
            "parse_obj_name": ExampleMemory(f"{api_name}_parse_obj_name", config(self.k_obj),
                                            embedder=embedder),
            "parse_position": ExampleMemory(f"{api_name}_parse_position", config(self.k_pos),
                                            embedder=embedder),
        }
        seed_memory(self.memory, self.prompts["main"].examples, "cap_tabletop.yaml:main")
        for kind, mem in self.sub_memories.items():
            seed_memory(mem, self.prompts[kind].examples, f"cap_tabletop.yaml:{kind}")
        self.last_retrieved: dict[str, list] = {}

    def _main_examples(self, utterances: Sequence[str]) -> list[str]:
        found = self.memory.retrieve(list(utterances), self.k)
        self.last_retrieved["plan"] = found
        return [render_transcript_example(ex.transcript) for ex, _ in found]

    def _sub_examples(self, kind: str, query: str) -> list[str]:
        k = self.k_obj if kind == "parse_obj_name" else self.k_pos
        found = self.sub_memories[kind].retrieve([query], k)
        self.last_retrieved[kind] = found
        return [render_transcript_example(ex.transcript) for ex, _ in found]

    def episode_succeeded(self) -> None:
        """Store the last run's instructions and programs, and its sub-programs."""
        rounds = [(u, c) for u, c in self.last_rounds if c.strip()]
        if not rounds:
            return
        self.memory.add(episode_transcript(rounds, self.last_scene), "episode",
                        origin=self.name)
        for kind, query, context, code in self.last_sub_calls:
            self.sub_memories[kind].add(episode_transcript([(query, code)], context), "episode",
                                        origin=self.name)


def make(name: str, llm: LLMClient, memory_dir: str | Path | None = None, k: int = DEFAULT_K,
         ledger: TokenLedger | None = None, **kwargs: Any) -> CaP:
    """``'cap'`` or ``'dynamic_cap'`` by name (the factory ``eval.systems.make_system`` uses)."""
    if name == "cap":
        return CaP(llm, memory_dir, k, ledger, **kwargs)
    if name == "dynamic_cap":
        return DynamicCaP(llm, memory_dir, k, ledger, **kwargs)
    raise ValueError(f"unknown CaP variant {name!r}; use 'cap' or 'dynamic_cap'")


def seed_memory(memory, examples: Sequence[PromptExample], origin: str) -> int:
    """Add the static examples as seed examples unless the memory already holds seeds."""
    if memory.count("seed") > 0:
        return 0
    prepared = [memory.make_example(episode_transcript([(ex.instruction, ex.code)], ex.context),
                                    "seed", origin=f"{origin}:{i}",
                                    example_id=f"seed-{i:03d}")
                for i, ex in enumerate(examples)]
    memory.write(prepared)
    return len(prepared)


__all__ = [
    "CaP",
    "DynamicCaP",
    "ProgramSystem",
    "PromptExample",
    "PromptSet",
    "clean_code",
    "program_listing",
    "episode_transcript",
    "examples_from_transcript",
    "format_error",
    "load_prompt_file",
    "make",
    "render_transcript_example",
    "seed_memory",
    "undefined_calls",
]

"""L_improve: rewrite a corrected interaction into an improved example for the memory.

A separate chat with the LLM (not the console prompt). The conversation is:

* a system message saying what L_improve is for;
* two fixed few-shot examples (``config/learning/improve_examples.yaml``), each as the
  three question/answer rounds below;
* the API listing and the interaction, followed by three questions, asked one at a time
  (three chat calls, the conversation growing): the problem in one sentence, how to do
  better next time in one sentence without code, the improved transcript.

Nothing is stored when the model finds no problem, when the rewrite does not change a
statement, or when the rewrite is not a valid example (see :func:`validate_transcript`).
:func:`improve` returns an :class:`ImproveResult` that says which of these happened;
:func:`improve_interaction` returns just the :class:`Improvement` or ``None``.
"""
from __future__ import annotations

import ast
import logging
import re
import textwrap
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import yaml

from ...paths import config_path
from ..llm import LLMError, TokenLedger, Usage
from ..statements import bound_names
from ..transcript import PS1, PS2, Entry, Transcript

log = logging.getLogger(__name__)

PURPOSE = "improve"
LEARN_CALL = "learn_from_interaction"
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

SYSTEM = (
    "You help a household robot learn from its mistakes. The robot is controlled by a "
    "language model that writes Python statements into a console: every input follows "
    "'>>> ' (continuation lines follow '... '), and what the console printed stands below "
    "it. wait_for_trigger() returns what the user said, ask() returns the user's answer. "
    "You get an interaction in which the user corrected the robot. Answer three questions "
    "about it, one at a time: what went wrong, how the robot can do better, and an "
    "improved copy of the transcript. The improved transcript is stored in the robot's "
    "memory and shown to it as an example in later interactions, so it must be a valid "
    "console transcript that calls only the robot's functions and shows the better "
    "behaviour right from the start."
)
QUESTIONS = (
    "What is the problem in this interaction? Answer in one sentence. If the robot did "
    "everything right, answer 'no problem'.",
    "How can the robot do better next time? Answer in one sentence, without code.",
    "Write the improved version of the interaction: a copy of the transcript with only the "
    "slight modifications needed so that the robot does it right the first time. Keep the "
    "console format ('>>> ' inputs, '... ' continuation lines, printed output below). Do "
    "not call learn_from_interaction(). Reply with the transcript only.",
)
EXAMPLE_INTRO = "Interaction:\n{interaction}\n\n{question}"
TASK_INTRO = "Functions of the robot:\n{listing}\n\nInteraction:\n{interaction}\n\n{question}"
MAX_TOKENS_SENTENCE = 200


@dataclass(frozen=True)
class FewShotExample:
    name: str
    interaction: str
    problem: str
    improvement: str
    improved: str


@dataclass
class Improvement:
    problem: str
    improvement: str
    transcript: str


# status values of ImproveResult
IMPROVED = "improved"
NO_PROBLEM = "no_problem"
UNCHANGED = "unchanged"
INVALID = "invalid"
LLM_FAILED = "llm_error"
EMPTY = "empty"


@dataclass
class ImproveResult:
    """What L_improve did. ``reason`` is a sentence a user can be told."""

    status: str
    reason: str = ""
    improvement: Improvement | None = None
    problem: str | None = None
    suggestion: str | None = None          # the answer to question 2
    answers: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    error: BaseException | None = None     # the LLMError, for status 'llm_error'

    @property
    def ok(self) -> bool:
        return self.improvement is not None


class InvalidTranscript(ValueError):
    """An improved transcript that must not be stored; str() says why."""


# -- few-shot examples ---------------------------------------------------------------------

_examples_lock = threading.Lock()
_examples_cache: dict[Path, tuple[FewShotExample, ...]] = {}


def load_examples(path: str | Path | None = None) -> tuple[FewShotExample, ...]:
    """The few-shot examples (cached per file)."""
    path = Path(path) if path else config_path("learning", "improve_examples.yaml")
    with _examples_lock:
        if path not in _examples_cache:
            with open(path, encoding="utf-8") as f:
                data = yaml.safe_load(f) or {}
            _examples_cache[path] = tuple(
                FewShotExample(e["name"], e["interaction"].strip("\n"), " ".join(e["problem"].split()),
                               " ".join(e["improvement"].split()), e["improved"].strip("\n"))
                for e in data.get("examples", []))
        return _examples_cache[path]


def few_shot_messages(examples: Sequence[FewShotExample]) -> list[dict[str, str]]:
    messages: list[dict[str, str]] = []
    for ex in examples:
        messages += [
            {"role": "user", "content": EXAMPLE_INTRO.format(interaction=ex.interaction,
                                                             question=QUESTIONS[0])},
            {"role": "assistant", "content": ex.problem},
            {"role": "user", "content": QUESTIONS[1]},
            {"role": "assistant", "content": ex.improvement},
            {"role": "user", "content": QUESTIONS[2]},
            {"role": "assistant", "content": ex.improved},
        ]
    return messages


# -- answers -------------------------------------------------------------------------------

_NO_PROBLEM = re.compile(
    r"^(?:none|nothing|no|n/?a|-+|ok|okay|fine|all good|no problems?|no issues?)$|"
    r"^(?:(?:there|i|we)\s+(?:is|are|was|were|see|saw|can see|found|find|could find|"
    r"do not see|did not find)\s+)?(?:no|not any|nothing)\s+(?:real |obvious |apparent |"
    r"significant |major |actual )?(?:problems?|issues?|mistakes?|errors?|wrong|to improve)\b|"
    r"^(?:the robot|it|everything)\s+(?:did|handled|performed|went|worked|was)\s+"
    r"(?:everything |the task |it |all )?(?:right|correctly|well|fine|perfectly|as expected|ok)\b|"
    r"^nothing\b.*\b(?:wrong|improve|problem)\b|"
    r"^(?:the )?interaction\s+(?:was|is|went)\s+(?:fine|correct|successful|perfect|ok|good)\b")
_CONTRAST = re.compile(r"\b(?:but|however|except|although|though|yet|only that|apart from)\b")


def says_no_problem(answer: str) -> bool:
    """Whether an answer to question 1 means that there is nothing to improve."""
    text = answer.strip().strip("`*_\"' ").lower()
    text = re.sub(r"^(?:answer|problem)\s*:\s*", "", text)
    text = re.sub(r"\s+", " ", text).rstrip(" .!")
    if not text:
        return True
    if _CONTRAST.search(text):
        return False
    return bool(_NO_PROBLEM.search(text))


def sentence(answer: str) -> str:
    """A one-sentence answer without markdown decoration or a leading label."""
    text = " ".join(answer.strip().strip("`").split())
    text = re.sub(r"^\**(?:answer|problem|improvement|suggestion)\**\s*:\s*\**", "", text,
                  flags=re.I)
    return text.strip("*_ ").strip()


_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.S)


def extract_transcript(answer: str) -> str:
    """The console transcript in an answer (markdown fences, prose before/after removed).

    Returns '' when the answer holds no ``>>>`` input at all.
    """
    blocks = [b for b in _FENCE.findall(answer) if PS1.strip() in b]
    text = max(blocks, key=len) if blocks else answer
    lines = textwrap.dedent(text.replace("\r\n", "\n")).split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith(PS1.strip())), None)
    if start is None:
        return ""
    indent = len(lines[start]) - len(lines[start].lstrip())
    lines = [ln[indent:] if ln[:indent].strip() == "" else ln for ln in lines[start:]]
    lines = [re.sub(r"^>>>(?=\S)", PS1, ln) for ln in lines]
    last = max(i for i, ln in enumerate(lines) if ln.startswith(PS1.strip()))
    body, i = lines[:last + 1], last + 1
    while i < len(lines) and lines[i].startswith(PS2.strip()):     # continuation lines
        body.append(lines[i])
        i += 1
    output = []                  # output of the last input: up to a blank line or a fence
    while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith("```"):
        output.append(lines[i])
        i += 1
    if output and Entry(_last_source(body)).calls("wait_for_trigger") \
            and _literal("\n".join(output)) is None:
        output = []              # prose after the final wait_for_trigger(), not its result
    return "\n".join(ln.rstrip() for ln in body + output).strip("\n")


def _last_source(lines: list[str]) -> str:
    start = max(i for i, ln in enumerate(lines) if ln.startswith(PS1.strip()))
    return "\n".join(ln[len(PS1):] if ln.startswith(PS1) else ln[len(PS2):]
                     for ln in lines[start:])


def _literal(text: str):
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


# -- transcripts ---------------------------------------------------------------------------

def interaction_text(transcript: Transcript | str) -> Transcript:
    """The interaction to learn from: learn_from_interaction() calls and console comments
    that only mark a new task are removed (as well as leading blank entries)."""
    from ..console import NEW_TASK_MARKER  # late: keeps this module light to import
    t = Transcript.parse(transcript) if isinstance(transcript, str) else transcript
    entries = [e for e in t.entries
               if not _calls_any(e.source, {LEARN_CALL}) and e.source.strip() != NEW_TASK_MARKER]
    return Transcript([Entry(e.source, e.output) for e in entries])


def without_closing_reply(transcript: Transcript) -> Transcript:
    """The example as it is stored: ending with the robot's last action and a bare
    ``wait_for_trigger()``. A last user reply the robot did not act on ("thanks", the request to
    learn) is left out: an example that ends in an unanswered reply teaches a small model to
    answer feedback with ``wait_for_trigger()`` instead of acting on it."""
    entries = list(transcript.entries)
    while entries and Entry(entries[-1].source).calls("wait_for_trigger") and not entries[-1].output:
        entries.pop()
    while entries and entries[-1].source.strip() == "wait_for_trigger()" and entries[-1].output \
            and len(entries) > 1:
        entries.pop()
    return Transcript([Entry(e.source, e.output) for e in entries] + [Entry("wait_for_trigger()")])


def normalised_statements(transcript: Transcript) -> list[str]:
    """Statements without comments and formatting differences (ast round trip)."""
    out = []
    for source in transcript.statements():
        try:
            out.append(ast.unparse(ast.parse(source)))
        except SyntaxError:
            out.append(" ".join(source.split()))
    return [s for s in out if s]


def _calls_any(source: str, names: Iterable[str]) -> bool:
    names = set(names)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return any(re.search(rf"\b{re.escape(n)}\s*\(", source) for n in names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id in names) or \
                    (isinstance(f, ast.Attribute) and f.attr in names):
                return True
    return False


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
    for entry, tree in zip(statements, trees):
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


# -- L_improve -----------------------------------------------------------------------------

def build_messages(api_listing: str, interaction: str,
                   examples: Sequence[FewShotExample] | None = None) -> list[dict[str, str]]:
    """The conversation up to (and including) the first question."""
    examples = load_examples() if examples is None else examples
    return ([{"role": "system", "content": SYSTEM}] + few_shot_messages(examples)
            + [{"role": "user", "content": TASK_INTRO.format(listing=api_listing.strip("\n"),
                                                             interaction=interaction.strip("\n"),
                                                             question=QUESTIONS[0])}])


def improve(llm, api_listing: str, interaction: Transcript | str, ledger: TokenLedger | None = None,
            *, api_names: Iterable[str] | None = None,
            examples: Sequence[FewShotExample] | None = None, temperature: float = 0.0,
            max_transcript_tokens: int = 4096) -> ImproveResult:
    """Run L_improve on an interaction; never raises for LLM failures (status 'llm_error')."""
    original = interaction_text(interaction)
    if not original.statements():
        return ImproveResult(EMPTY, "there is no interaction to learn from")
    text = original.render()
    names = set(api_names) if api_names is not None else api_names_from_listing(api_listing)
    messages = build_messages(api_listing, text, examples)
    result = ImproveResult(INVALID)
    # Room for the rewrite: the interaction's own length (in rough tokens) plus slack.
    transcript_tokens = min(max_transcript_tokens, max(1024, len(text) // 2 + 256))

    def ask(question_index: int, max_tokens: int) -> str:
        if question_index:
            messages.append({"role": "user", "content": QUESTIONS[question_index]})
        completion = llm.chat(list(messages), temperature=temperature, max_tokens=max_tokens)
        if ledger is not None:
            ledger.record(completion.usage, PURPOSE)
        result.usage = result.usage + completion.usage
        answer = completion.text or ""
        messages.append({"role": "assistant", "content": answer})
        result.answers.append(answer)
        return answer

    try:
        problem = ask(0, MAX_TOKENS_SENTENCE)
        if says_no_problem(problem):
            result.status, result.reason = NO_PROBLEM, "the interaction has no problem to fix"
            return _logged(result)
        result.problem = sentence(problem)
        result.suggestion = sentence(ask(1, MAX_TOKENS_SENTENCE))
        rewrite = ask(2, transcript_tokens)
    except LLMError as exc:
        result.status, result.reason = LLM_FAILED, f"the language model failed: {exc}"
        result.error = exc
        return _logged(result)

    try:
        improved = validate_transcript(
            extract_transcript(rewrite), names,
            max_entries=min(MAX_ENTRIES, 2 * len(original) + 10),
            max_chars=min(MAX_CHARS, 2 * len(text) + 2000))
    except InvalidTranscript as exc:
        result.status, result.reason = INVALID, f"the improved transcript is invalid: {exc}"
        return _logged(result)
    if normalised_statements(improved) == normalised_statements(original):
        result.status, result.reason = UNCHANGED, "the improved transcript changes no statement"
        return _logged(result)
    result.status, result.reason = IMPROVED, result.suggestion or ""
    result.improvement = Improvement(result.problem, result.suggestion or "", improved.render())
    return _logged(result)


def _logged(result: ImproveResult) -> ImproveResult:
    log.info("L_improve: %s%s", result.status, f" ({result.reason})" if result.reason else "")
    return result


def improve_interaction(llm, api_listing: str, interaction: Transcript | str,
                        ledger: TokenLedger | None = None, *,
                        api_names: Iterable[str] | None = None,
                        examples: Sequence[FewShotExample] | None = None) -> Improvement | None:
    """The improved example, or None if there is none to store (the reason is logged).

    LLM failures raise LLMError (use :func:`improve` to get them as a result).
    """
    result = improve(llm, api_listing, interaction, ledger, api_names=api_names, examples=examples)
    if result.error is not None:
        raise result.error
    return result.improvement


__all__ = [
    "Improvement", "ImproveResult", "InvalidTranscript", "FewShotExample", "improve",
    "improve_interaction", "validate_transcript", "extract_transcript", "says_no_problem",
    "interaction_text", "normalised_statements", "without_closing_reply", "build_messages",
    "load_examples",
    "api_names_from_listing", "SYSTEM", "QUESTIONS", "PURPOSE",
    "IMPROVED", "NO_PROBLEM", "UNCHANGED", "INVALID", "LLM_FAILED", "EMPTY",
]

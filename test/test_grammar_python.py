"""Issue 60: every statement the console grammar allows must be Python. ``make run``, "thanks,
that's all": the model wrote ``say('You're welcome`` (the grammar let a word follow the string
``'You'``) and the console answered ``SyntaxError``; the robot said nothing.

Two real engines decide: a random generator that walks the GBNF text the console renders
(test/gbnf_sampler.py: quotes, backslashes, newlines and braces drawn far more often than their
share) writes the grammar's string literals, and llguidance (the engine the embedded model
decodes with, over a byte vocabulary: test/grammar_support.py) decides whether the whole grammar
lets a model write a statement. Python decides the rest: ``compile`` with warnings as errors
(an invalid escape such as ``'\\d'`` is only a warning in 3.11, an error in later versions)."""
import random
import warnings

import pytest

from gbnf_sampler import Grammar
from llm_interaction_node.core.decoding.constraint import ConsoleVocabulary
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import build_console, make_world

llguidance = pytest.importorskip("llguidance")
from grammar_support import _Bytes  # noqa: E402 - after the skip

N = 2000


def python_error(source: str) -> str | None:
    """Why Python refuses ``source`` (None: it compiles, without a warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            compile(source, "<statement>", "exec")
        except (SyntaxError, ValueError, Warning) as exc:
            return f"{type(exc).__name__}: {exc}"
    return None


@pytest.fixture(scope="module")
def humanoid():
    console = build_console("humanoid", make_world("humanoid", "drinks_and_cup"), EventQueue([]))
    try:
        yield ConsoleVocabulary.of(console).current()
    finally:
        console.close()


@pytest.fixture(scope="module")
def engine(humanoid):
    """Whether the console grammar lets a model write a text (one compiled grammar): the whole
    text, or with ``whole=False`` its start (the model could go on from there)."""
    tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Bytes()))
    matcher = llguidance.LLMatcher(tokenizer, llguidance.grammar_from("gbnf", humanoid.gbnf()),
                                   log_level=0)
    assert not matcher.is_error(), matcher.get_error()

    def allows(text: str, whole: bool = True) -> bool:
        m = matcher.deep_copy()             # (reset() does not clear an error)
        ok = m.consume_tokens(list(text.encode())) and not m.is_error()
        return ok and (m.is_accepting() or not whole)
    return allows


def test_every_string_literal_the_grammar_allows_is_python(humanoid):
    grammar = Grammar(humanoid.gbnf())
    rng = random.Random(60)
    literals = [grammar.sample("string", rng) for _ in range(N)]
    refused = [(s, e) for s in literals for e in [python_error(f"x = {s}\n")] if e]
    assert not refused, refused[:5]
    # the walk drew what breaks literals: quotes inside, escapes, f-string fields
    inside = [s[s.index(s[-1]) + 1:-1] for s in literals]     # the body between the quotes
    assert sum("\\" in b for b in inside) > N // 5
    assert sum(q in b for b in inside for q in "'\"") > N // 20
    assert sum(s[0] in "fF" and "{" in s for s in literals) > N // 20
    assert sum(s[0] in "rR" for s in literals) > N // 20
    assert len(set(literals)) > N // 2


def test_a_scene_name_with_quotes_or_a_newline_is_written_as_python(humanoid):
    """Perception names the objects: a name with a quote, a backslash or a newline is still
    one Python literal in either quote (the double-quoted form escaped only quotes and
    backslashes)."""
    from dataclasses import replace
    names = ("it's_0", 'say "hi"_0', "back\\slash_0", "two\nlines_0", "tab\there_0")
    grammar = Grammar(replace(humanoid, scene_names=names).gbnf())
    rng = random.Random(3)
    written = {grammar.sample("scene-name", rng) for _ in range(200)}
    for literal in written:
        assert python_error(f"grasp({literal})\n") is None, literal
    assert {eval(literal) for literal in written} == set(names)          # noqa: S307
    assert {literal[0] for literal in written} == {"'", '"'}


def _candidate(rng: random.Random) -> str:
    """A statement a model might write: say() of a quoted text with quotes, backslashes,
    newlines and braces in it, and sometimes what a closed quote leaves behind."""
    quote = rng.choice("'\"")
    prefix = rng.choice(["", "", "", "r", "f", "b", "u", "rb"])
    body = "".join(rng.choice(["a", "b", " ", "'", '"', "\\", "\n", "{", "}", "x", "n", "N",
                               "u", "0", "é", "!", "re", "{n}", "\\'", '\\"', "\\n", "{{"])
                   for _ in range(rng.randrange(0, 10)))
    after = rng.choice(["", "", "", "re welcome" + quote, "s", " + 'x'", "'x'", "[0]",
                        ".upper()", " if x else 'y'", "b'c'"])
    return f"say({prefix}{quote}{body}{quote}{after})"


def test_every_statement_the_grammar_allows_is_python(engine):
    """2,000 say() statements, many not Python: each one the grammar allows compiles."""
    rng = random.Random(7)
    candidates = {_candidate(rng) for _ in range(N)}
    allowed = [c for c in candidates if engine(c)]
    wrong = [(c, e) for c in allowed for e in [python_error(c)] if e]
    assert not wrong, wrong[:5]
    broken = [c for c in candidates if python_error(c)]
    assert len(allowed) > len(candidates) // 10 and len(broken) > len(candidates) // 5


def test_an_apostrophe_is_written_in_a_form_python_reads(engine):
    assert not engine("say('You're", whole=False)       # issue 60's statement: not even begun
    assert engine("say('You", whole=False) and engine("say('You\\'re", whole=False)
    for statement in ("say(\"You're welcome\")", "say('You\\'re welcome')",
                      "say(\"She said \\\"hi\\\"\")", "say('It is done.')",
                      "say(f'I found {len(names)} things')", "say(f\"{n!r:>4} cups\")",
                      "say('a' 'b')", "say('a' + name)", "x = 'a' if y else 'b'",
                      "say(r'C:\\path')", "say('tab\\tand\\nline')", "say('\\x41\\u00e9')"):
        assert engine(statement), statement
        assert python_error(statement) is None, statement


@pytest.mark.parametrize("statement", [
    "say('a\\qb')",              # not an escape
    "say('\\x4')", "say('\\N')", "say('\\u12')",
    "say(b'\u00e9')", "say('a' b'c')", "say('''x')", "say(''''')",
    "say('a'{n})", "x = y{1}", "say(f''{n})",
    "say(f'{')", "say(f'}')", "say(f'{}')", "say(f'{if}')", "say(f'{1.real}')",
    "say('line\nbreak')",
    "say(x'a')", "say('a'x)",
    "lambda = 3", "x, 1 = f()", "x, if = f()",
    "grasp('mango-juice_0', for='left')", "grasp('mango-juice_0', 1x='left')",
    "x = 12abc", "x = 1__0", "x = 1_",
])
def test_what_python_refuses_the_grammar_refuses(engine, statement):
    assert python_error(statement) is not None, statement
    assert not engine(statement), statement


@pytest.mark.parametrize("statement", [
    "x = 0.05", "x = 1e-5", "x = 1.5e-3", "x = 2j", "x = 0x1F", "x = 10_000", "x = -1",
    "x, y = f()", "x = [1, 2.5, 'a', \"b\"]", "x = {'a': 1}",
    "grasp('mango-juice_0', hand='left')", "move_to([1.0, -2.0, 0.5], speed_factor=0.5)",
    "names = [n for n in list_objects() if 'cup' in n]",
])
def test_numbers_lists_and_keyword_arguments_stay_allowed(engine, statement):
    assert python_error(statement) is None, statement
    assert engine(statement), statement

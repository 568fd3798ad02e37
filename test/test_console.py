"""The console behaves like Python's interactive console, inside the sandbox."""
import time

import pytest

from llm_interaction_node.core.apis.registry import ApiRegistry
from llm_interaction_node.core.apis.sets import HUMANOID
from llm_interaction_node.core.console.builtins import LEARN_UNAVAILABLE, InteractionBuiltins
from llm_interaction_node.core.console.session import NEW_TASK_MARKER, ConsoleSession
from llm_interaction_node.core.learning.outcome import LearnOutcome, LearnStatus
from llm_interaction_node.core.sandbox import Sandbox
from llm_interaction_node.core.transcript.errors import EndOfInteraction, SemanticHintError
from llm_interaction_node.core.user.channel import EventQueue


def count_items(items: list) -> int:
    return len(items)


def find(name: str) -> str:
    if name != "mug_0":
        raise SemanticHintError(f"unknown object {name!r}; use one of ['mug_0']")
    return "success"


def slow_skill(seconds: float) -> str:
    time.sleep(seconds)
    return "success"


def broken() -> None:
    raise ValueError("the gripper is not calibrated")


@pytest.fixture
def make_console():
    def make(utterances=(), timeout_s=10.0, learner=None, listeners=()):
        spoken = []
        builtins = InteractionBuiltins(EventQueue(utterances, close=True), speak=spoken.append,
                                       learner=learner)
        api = ApiRegistry([count_items, find, slow_skill, broken])
        api.extend(getattr(builtins, n) for n in HUMANOID.builtins)
        console = ConsoleSession(api, builtins, Sandbox(timeout_s=timeout_s),
                                 listeners=listeners)
        console.spoken = spoken
        return console
    return make


def test_expression_values_print_like_the_console(make_console):
    c = make_console()
    assert c.execute("1 + 1").entry.output == "2"
    assert c.execute("'success'").entry.output == "'success'"
    assert c.execute("x = [1, 2]").entry.output == ""
    assert c.execute("None").entry.output == ""
    assert c.execute("x").entry.output == "[1, 2]"
    assert c.execute("count_items(x)").entry.output == "2"


def test_multiline_statements_and_loops(make_console):
    c = make_console()
    r = c.execute("for i in range(3):\n    i * 10")
    assert r.ok and r.entry.output == "0\n10\n20"
    assert r.entry.render() == ">>> for i in range(3):\n...     i * 10\n0\n10\n20"
    # expressions inside a function body do not print; the call's value does
    c.execute("def f(a):\n    a + 1\n    return a * 2")
    assert c.execute("f(4)").entry.output == "8"
    assert c.execute("print('a', 'b', sep='-')").entry.output == "a-b"
    assert c.execute("[n for n in range(4) if n % 2]").entry.output == "[1, 3]"
    assert c.execute("np.linalg.norm(np.array([3.0, 4.0]))").entry.output == "np.float64(5.0)"


def test_errors_are_reported_like_the_console(make_console):
    c = make_console()
    out = c.execute("undefined_thing + 1").entry.output
    assert out.startswith("Traceback (most recent call last):\n  File \"<console>\", line 1")
    assert out.endswith("NameError: name 'undefined_thing' is not defined")
    # frames inside the API implementation are not shown, only the console's
    out = c.execute("broken()").entry.output
    assert "test_console.py" not in out and out.endswith(
        "ValueError: the gripper is not calibrated"
    )
    assert c.execute("find('cup')").entry.output == "unknown object 'cup'; use one of ['mug_0']"
    out = c.execute("[1, 2][5]").entry.output
    assert "IndexError: list index out of range" in out and "Hint:" in out
    out = c.execute("foo(").entry.output
    assert "SyntaxError" in out and "File \"<console>\"" in out
    out = c.execute("import os").entry.output
    assert out.startswith("SandboxViolation: ")
    assert isinstance(c.execute("import os").error, Exception)


def test_locals_persist_per_task_and_reset_with_a_marker(make_console):
    c = make_console()
    c.execute("target = 'mug_0'")
    assert c.execute("find(target)").entry.output == "'success'"
    c.new_task()
    assert c.transcript.render() == ">>> " + NEW_TASK_MARKER
    assert "NameError" in c.execute("target").entry.output
    assert c.execute("find('mug_0')").entry.output == "'success'"   # the API is still bound


def test_builtins_speak_and_take_user_input_from_the_channel(make_console):
    c = make_console(["bring me the mug", "the blue one"])
    assert c.execute("wait_for_trigger()").entry.output == \
        "{'type': 'dialog', 'text': 'bring me the mug'}"
    assert c.execute("say('on my way')").entry.output == ""
    assert c.execute("answer = ask('which mug?')").entry.output == ""
    assert c.execute("answer").entry.output == "'the blue one'"
    assert c.spoken == ["on my way", "which mug?"]
    assert c.builtins.turn == 1 and c.builtins.utterances == ["bring me the mug", "the blue one"]
    with pytest.raises(EndOfInteraction):
        c.execute("wait_for_trigger()")
    assert c.transcript.entries[-1].source == "wait_for_trigger()"


def test_learn_from_interaction_uses_the_hook(make_console):
    unavailable = make_console().execute("learn_from_interaction()")
    assert unavailable.entry.output == LEARN_UNAVAILABLE
    # what it did is an outcome too: nothing stored (issue 44: the robot may not promise it)
    assert [(o.status, o.stored) for o in unavailable.lessons] == [(LearnStatus.DISABLED, False)]
    outcome = LearnOutcome(LearnStatus.STORED_RAW, "learned: use both hands")
    c = make_console(learner=lambda: outcome)
    assert c.execute("x = 1").lessons == ()
    result = c.execute("print('a'); learn_from_interaction(); print('b')")
    assert result.entry.output == "a\nlearned: use both hands\nb"      # printed in place
    assert result.lessons == (outcome,)             # the input says what its learn call did
    assert c.execute("learn_from_interaction(); learn_from_interaction()").lessons == \
        (outcome, outcome)
    assert c.execute("1 + 1").lessons == ()


def test_a_silent_learner_prints_nothing_and_learns_nothing(make_console):
    c = make_console(learner=lambda: None)          # the replay's: learning never runs there
    result = c.execute("learn_from_interaction()")
    assert result.entry.output == "" and result.lessons == ()


def test_runaway_statement_is_interrupted_but_api_time_does_not_count(make_console):
    c = make_console(timeout_s=0.5)
    start = time.monotonic()
    r = c.execute("while True:\n    pass")
    assert time.monotonic() - start < 3
    assert r.entry.output.startswith("StatementTimeout:")
    # a skill that blocks longer than the limit is not the code's own time
    assert c.execute("slow_skill(0.8)").entry.output == "'success'"
    assert c.execute("1 + 2").entry.output == "3"


def test_listeners_see_each_entry(make_console):
    seen = []
    c = make_console(listeners=[seen.append])
    c.execute("x = 1")
    c.annotate("a note")
    assert [e.source for e in seen] == ["x = 1", "# a note"]


def test_long_output_is_truncated_with_a_note(make_console):
    c = make_console()
    c.max_output_chars = 100
    out = c.execute("list(range(1000))").entry.output
    assert out.startswith("[0, 1, 2") and len(out) < 160
    assert out.endswith("[output truncated: 4890 characters in all]")

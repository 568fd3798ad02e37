"""Issue 60: say()/ask() bounded per statement and per turn, in characters and in messages.

On main ``for i in range(10**6): say('d' * 9_999)`` published 21,111 messages (211 MB) on
speech/tts_text before the statement's timeout (only one call's length was bounded). Here
the console runs its code in the sandbox worker as every session does, the speech sink is
what the robot would send to its TTS, and the error line is what the model sees.
"""
from __future__ import annotations

import pytest

from llm_interaction_node.core.agent import SORRY, AgentConfig
from llm_interaction_node.core.console.builtins import SpeechBounds
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import build_agent, build_console, make_world

BOUNDS = SpeechBounds()


@pytest.fixture
def spoken():
    return []


@pytest.fixture
def console(spoken):
    c = build_console("humanoid", make_world("humanoid", "drinks_and_cup"),
                      EventQueue(["next request", "yes"], close=True), speak=spoken.append)
    yield c
    c.close()


def last_line(result) -> str:
    return result.entry.output.splitlines()[-1]


def test_the_flood_of_the_issue_is_one_line_and_sends_nothing(console, spoken):
    result = console.execute("for i in range(10**6): say('d' * 9_999)")
    assert isinstance(result.error, ValueError)
    assert last_line(result) == (
        "ValueError: say() was refused: speech is bounded to 2,000 characters per statement; "
        "this text has 9,999: say less")
    assert spoken == []


def test_many_short_messages_stop_at_the_statement_bound(console, spoken):
    result = console.execute("for i in range(10**6): say('item %d' % i)")
    assert last_line(result) == (
        "ValueError: say() was refused: speech is bounded to 10 say()/ask() messages per "
        "statement; this statement sent 10: say it in fewer, shorter messages")
    assert spoken == [f"item {i}" for i in range(BOUNDS.statement_messages)]
    # the next statement has its own bound
    assert console.execute("say('and one more')").ok
    assert spoken[-1] == "and one more"


def test_characters_add_up_within_a_statement(console, spoken):
    result = console.execute("for i in range(100): say('x' * 300)")
    assert last_line(result) == (
        "ValueError: say() was refused: speech is bounded to 2,000 characters per statement; "
        "this statement said 1,800 and this text has 300: say less")
    assert len(spoken) == 6 and sum(map(len, spoken)) == 1_800


def test_the_turn_bound_holds_until_wait_for_trigger_returns(console, spoken):
    for letter in "abc":                               # 3 x 2,000 characters: the turn's 6,000
        assert console.execute(f"say({letter!r} * 2000)").ok
    result = console.execute("ask('which one?')")
    assert last_line(result) == (
        "ValueError: ask() was refused: speech is bounded to 6,000 characters per turn (until "
        "wait_for_trigger() returns); this turn said 6,000 and this text has 10: say less")
    assert len(spoken) == 3                            # the question was not asked
    assert console.execute("wait_for_trigger()").entry.output == (
        "{'type': 'dialog', 'text': 'next request'}")
    assert console.execute("ask('which one?')").entry.output == "'yes'"
    assert spoken[-1] == "which one?"


def test_messages_count_per_turn_too(console, spoken):
    for i in range(BOUNDS.turn_messages // 2):
        assert console.execute(f"say('one {i}'); say('two {i}')").ok
    result = console.execute("say('too many')")
    assert last_line(result) == (
        "ValueError: say() was refused: speech is bounded to 30 say()/ask() messages per turn "
        "(until wait_for_trigger() returns); this turn sent 30: say it in fewer, shorter "
        "messages")
    assert len(spoken) == 30 and "too many" not in spoken


def test_a_new_task_starts_with_the_whole_turn_bound(console, spoken):
    for letter in "abc":
        console.execute(f"say({letter!r} * 2000)")
    assert not console.execute("say('d')").ok
    console.new_task()                                 # a reset
    assert console.execute("say('hello')").ok and spoken[-1] == "hello"


def test_the_robots_own_code_speaking_between_statements_is_not_bounded(console, spoken):
    """The agent's own notes (a habit's refusal, said between statements) are no model
    speech: never refused, so never an exception in the agent's thread."""
    for letter in "abc":
        console.execute(f"say({letter!r} * 2000)")
    assert not console.execute("say('d')").ok
    console.builtins.say("I will not do that: you taught me otherwise.")
    assert spoken[-1] == "I will not do that: you taught me otherwise."
    assert not console.execute("say('e')").ok          # the model's turn is still spent


def test_the_bounds_are_agent_settings(spoken):
    config = AgentConfig(speech_messages_per_statement=2, speech_chars_per_turn=50)
    c = build_console("humanoid", make_world("humanoid", "drinks_and_cup"),
                      EventQueue([], close=True), speak=spoken.append, agent=config)
    try:
        assert last_line(c.execute("say('a'); say('b'); say('c')")).startswith(
            "ValueError: say() was refused: speech is bounded to 2 say()/ask() messages per "
            "statement")
        assert last_line(c.execute("say('x' * 49)")).startswith(
            "ValueError: say() was refused: speech is bounded to 50 characters per turn")
        assert spoken == ["a", "b"]
    finally:
        c.close()


def test_the_robot_still_says_sorry_after_the_model_spent_the_turns_speech():
    """The model's speech is bounded, the robot's own closing sentence is not: refused say()
    calls in a row spend the error budget (3), the turn ends with the apology."""
    spoken: list[str] = []
    world = make_world("humanoid", "drinks_and_cup")
    console = build_console("humanoid", world, EventQueue(["talk to me"], close=True),
                            speak=spoken.append)
    llm = ScriptedLLM(["say('a' * 2000)", "say('b' * 2000)", "say('c' * 2000)",
                       "say('d')", "say('e')", "say('f')", "say('g')"])
    agent = build_agent("humanoid", llm, console)
    try:
        agent.run()
    finally:
        console.close()
    transcript = console.transcript.render()
    assert transcript.count("ValueError: say() was refused: speech is bounded to 6,000 "
                            "characters per turn") == 4, transcript
    assert spoken == ["a" * 2000, "b" * 2000, "c" * 2000, SORRY]

"""Whether a reply speaks about every time (core/reading/lasting.py): a reply read as approval,
a hand or a route's speed, with no ``learn``, is asked once; "every time" adds ``learn``.
Complaints are never asked, so a complaint never becomes a request to learn; where habits can
be kept (the household), a move is asked too: it may come with a rule ("never hand me the
bottle, leave it on the sideboard"). The model is the
reading stand-in; the question, its prompt and grammar, and what is kept are real."""
from __future__ import annotations

import pytest

from llm_interaction_node.core.reading import Reader, ReadingVocabulary, lasting, parse
from llm_interaction_node.core.reading.lasting import ALWAYS, NOW, LastingCheck, asks
from reading_support import ReadingScript

HOME = ReadingVocabulary.of(["kettle_0", "tea-cup_0"], ["on_kitchen-counter_0"],
                            ["inFrontOf_kitchen-counter_0", "inFrontOf_sofa_0"], me=True)


def read(text: str):
    return parse("(said)", " " + text.replace("\n", "\n- ") + "\n\n", HOME)


@pytest.mark.parametrize("reading", ["done", "hand: left", "faster: anywhere -> sofa",
                                     "slower: kitchen counter -> sofa", "done\nhand: both"])
def test_approval_and_ways_of_doing_are_asked(reading):
    assert asks(read(reading), reply=True)
    assert not asks(read(reading), reply=False)        # a request is never asked


@pytest.mark.parametrize("reading", [
    "learn", "done\nlearn", "wrong object", "retry: kettle", "do: kettle -> kitchen counter",
    "do: none -> none\nhand: right", "stop", "question", "forget: kettle",
    "also: tea cup with kettle", "ask first"])
def test_complaints_lessons_and_questions_are_not_asked(reading):
    assert not asks(read(reading), reply=True)


@pytest.mark.parametrize("reading", ["do: kettle -> kitchen counter", "do: tea cup -> none",
                                     "do: none -> none\nhand: right"])
def test_a_move_is_asked_only_where_habits_can_be_kept(reading):
    assert asks(read(reading), reply=True, habits=True)
    assert not asks(read(reading), reply=True, habits=False)
    assert not asks(read(reading + "\nretry: kettle"), reply=True, habits=True)


def test_every_time_adds_learn_and_this_time_leaves_the_reading():
    said = "carry the kettle in your left hand from now on"
    script = ReadingScript({said: "hand: left"}, lasting={said: ALWAYS})
    reading = Reader(script).read(said, HOME, reply=True, moved=["kettle_0"])
    assert reading.render() == "hand: left\nlearn" and reading.asks_to_learn
    assert script.lasted == [said]
    other = "carry the kettle in your left hand"
    script = ReadingScript({other: "hand: left"})                   # answers "this time"
    reading = Reader(script).read(other, HOME, reply=True, moved=["kettle_0"])
    assert reading.render() == "hand: left" and not reading.asks_to_learn
    assert script.lasted == [other]


def test_a_complaint_is_not_asked_even_by_a_model_that_would_say_every_time():
    said = "you forgot the tea cup, bring it"
    script = ReadingScript({said: "wrong object"}, lasting={said: ALWAYS})
    reading = Reader(script).read(said, HOME, reply=True, moved=["kettle_0"])
    assert reading.render(HOME.spoken) == "wrong object" and script.lasted == []
    table = ReadingVocabulary.of(["kettle_0", "tea-cup_0"], ["on_kitchen-counter_0"],
                                 ["inFrontOf_kitchen-counter_0"], me=False)
    script = ReadingScript({said: "do: tea cup -> kitchen counter"}, lasting={said: ALWAYS})
    reading = Reader(script).read(said, table, reply=True, moved=["kettle_0"])
    assert not reading.asks_to_learn and script.lasted == []    # no habits: a move is not asked


def test_a_move_said_with_a_rule_is_asked_in_the_household():
    said, now = "never give me the tea cup, leave it on the kitchen counter", \
        "leave the tea cup on the kitchen counter"
    script = ReadingScript({said: "do: tea cup -> kitchen counter",
                            now: "do: tea cup -> kitchen counter"}, lasting={said: ALWAYS})
    reading = Reader(script).read(said, HOME, reply=True, moved=["tea-cup_0"])
    assert reading.asks_to_learn and script.lasted == [said]
    reading = Reader(script).read(now, HOME, reply=True, moved=["tea-cup_0"])
    assert not reading.asks_to_learn and script.lasted == [said, now]    # "this time"


def test_the_question_is_asked_under_a_two_answer_grammar_after_examples_of_both():
    asked = []

    def ask(prompt, grammar):
        asked.append((prompt, grammar))
        return " nonsense"                        # neither answer: the reading stands
    assert LastingCheck(ask)(read("done"), "cheers", reply=True).render() == "done"
    prompt, grammar = asked[0]
    assert prompt == lasting.build("cheers") and prompt.endswith("said: cheers\nanswer:")
    assert grammar == lasting.GRAMMAR and f'"{NOW}"' in grammar and f'"{ALWAYS}"' in grammar
    header, examples = lasting.load()
    assert header and {a for _, a in examples} == {NOW, ALWAYS}
    assert len(examples) >= 10


def test_a_reply_no_kind_names_is_asked_only_where_habits_can_be_kept():
    """``other`` may teach a habit (learning/habit.py) where the robot hands things to the
    user and has skills an edit anchors at; on the tabletop it is never asked."""
    assert asks(read("other"), reply=True, habits=True)
    assert not asks(read("other"), reply=True) and not asks(read("other"), reply=False,
                                                             habits=True)
    said = "from now on, hum a song while you work"
    script = ReadingScript({said: "other"}, lasting={said: ALWAYS})
    assert Reader(script).read(said, HOME, reply=True).render() == "other\nlearn"
    tabletop = ReadingVocabulary.of(["red block", "blue bowl"])
    assert Reader(script).read(said, tabletop, reply=True).render() == "other"

"""Whether a request says which hand to use (core/reading/asked_hand.py): a request read with a
hand is asked, in a prompt of its own; a denied hand is left out. A reply's hand is never
asked. The model is the reading stand-in; the question, its prompt and grammar, and what is
kept are real."""
from __future__ import annotations

import pytest

from llm_interaction_node.core.reading import (
    Reader,
    ReadingVocabulary,
    asked_hand,
    asked_place,
    check,
    parse,
)
from llm_interaction_node.core.reading.asked_hand import AskedHandCheck, claim
from reading_support import ReadingScript

HOME = ReadingVocabulary.of(["kitchen-sponge_0", "mango-juice_0"],
                            ["on_kitchen-counter_0", "handover_to_human"],
                            ["inFrontOf_kitchen-counter_0", "handover_to_human"], me=True)
LEFT = "the user says to use the left hand"


def read(text: str):
    return parse("(said)", " " + text.replace("\n", "\n- ") + "\n\n", HOME)


@pytest.mark.parametrize("text, asked", [
    ("hand: left", LEFT),
    ("hand: right", "the user says to use the right hand"),
    ("hand: both", "the user says to use both hands"),
    ("hand: other", "the user says to use the other hand"),
    ("do: kitchen sponge -> none", None),
    ("done", None),
])
def test_only_a_hand_is_asked(text, asked):
    assert claim(read(text).clauses[0]) == asked


def test_a_denied_hand_is_left_out_and_a_confirmed_one_stays():
    said = "clear away the sponge, please"
    script = ReadingScript({said: "do: kitchen sponge -> none\nhand: left"},
                           answers={LEFT: "no"})
    reading = Reader(script).read(said, HOME)
    assert reading.render(HOME.spoken) == "do: kitchen sponge -> none" and LEFT in script.checked
    held = "hold the juice in your left hand for me"
    script = ReadingScript({held: "do: mango juice -> none\nhand: left"})       # answers yes
    reading = Reader(script).read(held, HOME)
    assert reading.render(HOME.spoken) == "do: mango juice -> none\nhand: left"
    assert LEFT in script.checked


def test_a_reply_is_not_asked():
    said = "use your left hand for the juice"
    script = ReadingScript({said: "hand: left"}, answers={LEFT: "no"})
    reading = Reader(script).read(said, HOME, reply=True, moved=["mango-juice_0"])
    assert reading.render(HOME.spoken) == "hand: left" and LEFT not in script.checked


def test_the_question_has_its_own_prompt_and_a_yes_no_grammar():
    asked = []

    def ask(prompt, grammar):
        asked.append((prompt, grammar))
        return " no"
    got = AskedHandCheck(ask)(read("do: kitchen sponge -> none\nhand: left"), "tidy up", False)
    assert got.render(HOME.spoken) == "do: kitchen sponge -> none"
    path = asked_hand.prompt_file()
    assert asked == [(check.build("tidy up", LEFT, path), check.GRAMMAR)]
    header, examples = check.load_checks(path)
    assert header and {e.answer for e in examples} == {"yes", "no"} and len(examples) >= 8
    assert check.prefix(path) not in (check.prefix(), check.prefix(asked_place.prompt_file()))


BOTH = "the user says to use both hands"
ALONG = "from now on, bring the sponge along with the juice"


def test_a_replys_both_hands_denied_is_read_again_as_what_comes_along():
    """Measured (teach-once bench at 7c59f73): "from now on, bring the sponge along with the
    cleaning spray" read ``hand: both; learn``. A reply's ``both`` is asked; denied, the
    reading goes on after ``- also:`` and its line takes the hand's place."""
    script = ReadingScript({ALONG: "hand: both\nlearn"}, answers={BOTH: "no"},
                           along={ALONG: "kitchen sponge with mango juice"})
    reading = Reader(script).read(ALONG, HOME, reply=True, moved=["mango-juice_0"])
    assert reading.render(HOME.spoken) == "also: kitchen sponge with mango juice\nlearn"
    assert BOTH in script.checked and script.continued == [ALONG]
    # the also line begins the reading again, the thing the robot brought after "with"
    assert script.along_prompts == [script.prompts[-1] + " also:"]
    script = ReadingScript({ALONG: "hand: both\nlearn"}, answers={BOTH: "no"},
                           along={ALONG: "mango juice with kitchen sponge"})
    reading = Reader(script).read(ALONG, HOME, reply=True, moved=["mango-juice_0"])
    assert reading.render(HOME.spoken) == "also: kitchen sponge with mango juice\nlearn"


@pytest.mark.parametrize("answers, along, kept", [
    ({}, "kitchen sponge with mango juice", "hand: both\nlearn"),          # confirmed
    ({BOTH: "no"}, "none with none", "hand: both\nlearn"),                  # no line of two things
    ({BOTH: "no"}, "mango juice with mango juice", "hand: both\nlearn"),    # one thing
])
def test_a_replys_both_hands_stands_unless_an_also_line_of_two_things_replaces_it(
        answers, along, kept):
    script = ReadingScript({ALONG: "hand: both\nlearn"}, answers=answers, along={ALONG: along})
    reading = Reader(script).read(ALONG, HOME, reply=True, moved=["mango-juice_0"])
    assert reading.render(HOME.spoken) == kept and BOTH in script.checked
    assert script.continued == ([] if not answers else [ALONG])


def test_a_replys_other_hand_and_a_reply_with_an_also_line_are_not_asked():
    for said, written in [("use the other hand", "hand: other"),
                          ("bring the sponge with the juice, both hands",
                           "also: kitchen sponge with mango juice\nhand: both")]:
        script = ReadingScript({said: written}, answers={BOTH: "no"})
        reading = Reader(script).read(said, HOME, reply=True, moved=["mango-juice_0"])
        assert reading.render(HOME.spoken) == written and BOTH not in script.checked


def test_the_grammar_of_what_comes_along_is_one_also_line():
    from llm_interaction_node.core.reading.grammar import also_rest_gbnf
    grammar = also_rest_gbnf(HOME)
    assert grammar.splitlines()[0] == 'root ::= " " mover " with " mover "\\n\\n"'
    assert '"kitchen sponge"' in grammar and "mover ::=" in grammar

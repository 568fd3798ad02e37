"""Whether a request names a thing its reading gave by a name the user did not say
(core/reading/asked_name.py): asked only where no word of the thing's spoken name was said,
in a prompt of its own; a denied thing is left out. The model is the reading stand-in; the
question, its prompt and grammar, and what is kept are real."""
from __future__ import annotations

from llm_interaction_node.core.reading import (
    Reader,
    ReadingVocabulary,
    asked_hand,
    asked_name,
    asked_place,
    check,
    parse,
)
from llm_interaction_node.core.reading.asked_name import AskedNameCheck, unsaid
from reading_support import ReadingScript

HOME = ReadingVocabulary.of(["coffee-cup_0", "tumbler_0", "mango-juice_0"],
                            ["on_kitchen-counter_0", "handover_to_human"],
                            ["inFrontOf_kitchen-counter_0", "handover_to_human"], me=True)
CUP = "the user names the coffee cup"


def test_only_a_name_with_no_word_said_is_asked():
    assert unsaid("coffee-cup_0", "I'd like the glass", HOME.spoken)
    assert not unsaid("coffee-cup_0", "a cup, please", HOME.spoken)
    assert not unsaid("mango-juice_0", "could I get some juice?", HOME.spoken)
    assert unsaid("mango-juice_0", "something to drink", HOME.spoken)


def test_a_denied_thing_is_left_out_a_confirmed_one_stays():
    said = "I'd like the glass"
    script = ReadingScript({said: "do: coffee cup -> me"}, answers={CUP: "no"})
    assert Reader(script).read(said, HOME).render(HOME.spoken) == "do: none -> me"
    assert CUP in script.checked
    script = ReadingScript({said: "do: coffee cup -> me"})                # answers yes
    assert Reader(script).read(said, HOME).render(HOME.spoken) == "do: coffee cup -> me"


def test_of_two_things_only_the_unsaid_one_is_asked_and_left_out():
    said = "the juice and the glass, please"
    script = ReadingScript({said: "do: mango juice and coffee cup -> me"}, answers={CUP: "no"})
    assert Reader(script).read(said, HOME).render(HOME.spoken) == "do: mango juice -> me"
    asked = [c for c in script.checked if c.startswith("the user names")]
    assert asked == [CUP]


def test_a_said_name_and_a_reply_are_not_asked():
    said = "bring me the coffee cup"
    script = ReadingScript({said: "do: coffee cup -> me"}, answers={CUP: "no"})
    assert Reader(script).read(said, HOME).render(HOME.spoken) == "do: coffee cup -> me"
    reply = "no, the glass"
    script = ReadingScript({reply: "wrong object\ndo: coffee cup -> none"}, answers={CUP: "no"})
    Reader(script).read(reply, HOME, reply=True, moved=["tumbler_0"])
    assert CUP not in script.checked


def test_the_question_has_its_own_prompt_and_a_yes_no_grammar():
    asked = []

    def ask(prompt, grammar):
        asked.append((prompt, grammar))
        return " no"
    reading = parse("(said)", " do: coffee cup -> me\n\n", HOME)
    got = AskedNameCheck(ask)(reading, "the glass", HOME, False)
    assert got.render(HOME.spoken) == "do: none -> me"
    path = asked_name.prompt_file()
    assert asked == [(check.build("the glass", CUP, path), check.GRAMMAR)]
    header, examples = check.load_checks(path)
    assert header and {e.answer for e in examples} == {"yes", "no"} and len(examples) >= 8
    others = (check.prefix(), check.prefix(asked_place.prompt_file()),
              check.prefix(asked_hand.prompt_file()))
    assert check.prefix(path) not in others
    # the prompt's examples are of the asked kind: no word of the thing's name said
    for e in examples:
        name = e.claim.removeprefix("the user names the ")
        assert not set(name.split()) & set(e.said.lower().replace(",", "").split()), e

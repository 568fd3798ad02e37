"""The model checks the slots it filled (core/reading/check.py): a route end, the one meant
after "wrong object" or a reply's place is kept only where the model, asked, says the user
said it. The model is
the reading stand-in; the claims, the prompt, the grammar and what a "no" leaves are real."""
from __future__ import annotations

from llm_interaction_node.core.reading import Reader, ReadingVocabulary, parse
from llm_interaction_node.core.reading.check import GRAMMAR, build, claims, load_checks, without
from reading_support import ReadingScript

HOUSE = ReadingVocabulary.of(["mango-juice_0", "coffee-cup_0"], ["on_dining-table_0"],
                             ["inFrontOf_dining-table_0", "inFrontOf_kitchen-counter_0"],
                             me=True)
TABLE = ReadingVocabulary.of(["red block", "blue block", "green bowl"], [], show_places=False,
                             movable=lambda name: name.endswith(" block"))


def read(text: str, vocabulary):
    return parse("(said)", " " + text.replace("\n", "\n- ") + "\n\n", vocabulary)


def test_the_claims_are_the_slots_the_words_may_leave_empty():
    route = read("faster: dining table -> kitchen counter", HOUSE)
    assert [c.text for c in claims(route, HOUSE.spoken, reply=True)] == [
        "the way starts at the dining table", "the way goes to the kitchen counter"]
    assert claims(read("faster: anywhere -> anywhere", HOUSE), HOUSE.spoken, True) == []
    meant = read("wrong object\ndo: the block number 1 from the left -> none", TABLE)
    assert [c.text for c in claims(meant, TABLE.spoken, reply=True)] == [
        "the one wanted is the block number 1 from the left"]
    named = read("wrong object\ndo: red block -> none", TABLE)
    assert claims(named, TABLE.spoken, True) == []            # named by the user: not asked
    # a request's objects, and a reply's without "wrong object", are what the user asks for;
    # a reply's place is asked about (measured: "You left the blue block on the table near the
    # middle." read with the request's bowl), a request's is not
    place = read("do: red block -> green bowl", TABLE)
    assert [c.text for c in claims(place, TABLE.spoken, reply=True)] == [
        "the user wants it to go to the green bowl"]
    assert claims(place, TABLE.spoken, reply=False) == []
    assert claims(named, TABLE.spoken, reply=False) == []
    assert claims(read("do: coffee cup -> me", HOUSE), HOUSE.spoken, reply=True) == []


def test_a_learn_is_never_asked_about():
    """Tried (b936f7e): asked, the model denied "from now on, put the banana on the sideboard"
    a lesson, and the teach-once lesson was lost."""
    both = read("do: red block -> green bowl\nlearn", TABLE)
    assert [c.slot for c in claims(both, TABLE.spoken, reply=True)] == ["where"]


def test_a_denied_claim_leaves_its_slot():
    route = read("faster: dining table -> kitchen counter", HOUSE)
    start, end = claims(route, HOUSE.spoken, True)
    assert without(route, [start]).render(HOUSE.spoken) == "faster: anywhere -> kitchen counter"
    assert without(route, [start, end]).render() == "faster: anywhere -> anywhere"
    meant = read("wrong object\ndo: the block number 1 from the left -> none", TABLE)
    assert without(meant, claims(meant, TABLE.spoken, True)).render() == "wrong object"
    assert without(meant, []) is meant
    place = read("do: red block -> green bowl", TABLE)
    assert without(place, claims(place, TABLE.spoken, True)).render() == "do: red block -> none"
    both = read("wrong object\ndo: the block number 1 from the left -> green bowl", TABLE)
    assert without(both, claims(both, TABLE.spoken, True)).render() == "wrong object"


def test_the_check_prompt_asks_one_claim_under_a_yes_or_no_grammar():
    header, examples = load_checks()
    assert header and len(examples) >= 8 and {e.answer for e in examples} == {"yes", "no"}
    prompt = build("you are slow", "the way starts at the fridge")
    assert prompt.endswith("\n\nsaid: you are slow\nclaim: the way starts at the fridge\nanswer:")
    assert GRAMMAR == 'root ::= " " ("yes" | "no")'


def test_the_reader_asks_about_each_filled_slot_and_keeps_what_the_model_confirms():
    said = "you are too slow, drive faster to the kitchen counter"
    script = ReadingScript({said: "faster: dining table -> kitchen counter"},
                           answers={"the way starts at the dining table": "no"})
    reader = Reader(script)
    reading = reader.read(said, HOUSE, reply=True, moved=())
    assert reading.render(HOUSE.spoken) == "faster: anywhere -> kitchen counter"
    assert script.checked == ["the way starts at the dining table",
                              "the way goes to the kitchen counter"]
    # the reading, two checks, and whether it speaks about every time (core/reading/lasting.py)
    assert reader.costs[-1].evaluated_tokens == 4 and script.lasted == [said]
    # the one place said read as the start, confirmed as where the way goes: it is the end
    hurry = "hurry up, the cup has to get to the dining table"
    script = ReadingScript({hurry: "faster: dining table -> kitchen counter"},
                           answers={"the way goes to the kitchen counter": "no"})
    assert Reader(script).read(hurry, HOUSE, reply=True, moved=()).render(HOUSE.spoken) == \
        "faster: anywhere -> dining table"
    assert script.checked[-1] == "the way goes to the dining table"
    leaving = "you can rush when you leave the dining table"
    script = ReadingScript({leaving: "faster: dining table -> anywhere"},
                           answers={"the way goes to the dining table": "no"})
    assert Reader(script).read(leaving, HOUSE, reply=True, moved=()).render(HOUSE.spoken) == \
        "faster: dining table -> anywhere"
    # with the check off, the reading is as the model wrote it
    unchecked = Reader(ReadingScript({said: "faster: dining table -> kitchen counter"},
                                     answers={"the way starts at the dining table": "no"}),
                       check_slots=False)
    assert unchecked.read(said, HOUSE, reply=True, moved=()).render(HOUSE.spoken) == \
        "faster: dining table -> kitchen counter"

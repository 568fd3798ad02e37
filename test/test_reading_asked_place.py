"""Whether a household request says where its things go (core/reading/asked_place.py): a
request read as handing its things to the user or taking them to a room is asked, in a prompt
of its own; a denied place becomes none (the lesson's to give). Surfaces, replies and
tabletop places are never asked. The model is the reading stand-in; the question, its prompt
and grammar, and what is kept are real."""
from __future__ import annotations

from llm_interaction_node.core.reading import Reader, ReadingVocabulary, asked_place, check, parse
from llm_interaction_node.core.reading.asked_place import GIVEN, AskedPlaceCheck, claim
from reading_support import ReadingScript

# as the agent's scene has it (core/reading/select.py): the move function's places beside the
# surfaces, the navigation locations as rooms
HOME = ReadingVocabulary.of(["book_0", "apple_0"],
                            ["on_sideboard_0", "handover_to_human", "room_center"],
                            ["inFrontOf_sideboard_0", "handover_to_human", "room_center"],
                            me=True)
ROOM = "it goes to the handover place"


def read(text: str):
    return parse("(said)", " " + text.replace("\n", "\n- ") + "\n\n", HOME)


def test_me_and_rooms_are_asked_surfaces_and_none_are_not():
    assert claim(read("do: book -> me").clauses[0], HOME) == GIVEN
    assert claim(read("do: book -> handover place").clauses[0], HOME) == ROOM
    assert claim(read("do: book -> room center").clauses[0], HOME) == \
        "it goes to the room center"
    for text in ("do: book -> sideboard", "do: book -> none", "hand: left", "done"):
        assert claim(read(text).clauses[0], HOME) is None, text


def test_a_denied_place_becomes_none_and_a_confirmed_one_stays():
    said = "put the book away"
    script = ReadingScript({said: "do: book -> handover place"}, answers={ROOM: "no"})
    reading = Reader(script).read(said, HOME)
    assert reading.render(HOME.spoken) == "do: book -> none" and script.checked == [ROOM]
    wanted = "could I have the apple"
    script = ReadingScript({wanted: "do: apple -> me"})                     # answers yes
    assert Reader(script).read(wanted, HOME).render(HOME.spoken) == "do: apple -> me"
    assert script.checked == [GIVEN]


def test_a_reply_is_not_asked():
    said = "no, hand it to me"
    script = ReadingScript({said: "do: none -> me"}, answers={GIVEN: "no"})
    reading = Reader(script).read(said, HOME, reply=True, moved=["book_0"])
    assert reading.render(HOME.spoken) == "do: book -> me"
    assert GIVEN not in script.checked


def test_the_question_has_its_own_prompt_and_a_yes_no_grammar():
    asked = []

    def ask(prompt, grammar):
        asked.append((prompt, grammar))
        return " no"
    got = AskedPlaceCheck(ask)(read("do: book and apple -> me"), "tidy up", HOME, reply=False)
    assert got.render(HOME.spoken) == "do: book and apple -> none"
    path = asked_place.prompt_file()
    assert asked == [(check.build("tidy up", GIVEN, path), check.GRAMMAR)]
    header, examples = check.load_checks(path)
    assert header and {e.answer for e in examples} == {"yes", "no"} and len(examples) >= 8
    assert check.prefix(path) != check.prefix()

"""The reading (core/reading): its line language, grammar, vocabulary and parser, what the code
computes from a reading, the reader's calls, and the wording pools the benchmarks speak from.
Only the LLM is replaced (test/reading_support.py); everything else is the real code."""
from __future__ import annotations

import numpy as np
import pytest

from llm_interaction_node.core.llm import LLMError, ScriptedLLM, TokenLedger
from llm_interaction_node.core.reading import Reader, ReadingError, ReadingVocabulary, parse
from llm_interaction_node.core.reading.grammar import reading_gbnf
from llm_interaction_node.core.reading.prompt import MAX_UTTERANCE_CHARS, build
from llm_interaction_node.core.reading.select import Scene, reading_scene
from llm_interaction_node.core.reading.structure import Clause, Selection, Target
from llm_interaction_node.core.reading.vocabulary import spoken_form
from reading_support import ReadingScript

PLACES = ["top left corner", "left side", "middle"]
TABLE = ReadingVocabulary.of(["red block", "blue block", "green block", "green bowl",
                              "red bowl"], PLACES, show_places=False,
                             movable=lambda name: name.endswith(" block"))
HOUSE = ReadingVocabulary.of(["mango-juice_0", "coffee-cup_0", "coffee-cup_1", "tumbler_0"],
                             ["on_dining-table_0", "on_kitchen-counter_0"],
                             ["inFrontOf_dining-table_0", "inFrontOf_long-table_0",
                              "handover_to_human"], me=True)


def read(text: str, vocabulary=TABLE):
    return parse("(said)", " " + text.replace("\n", "\n- ") + "\n\n", vocabulary)


@pytest.mark.parametrize("text", [
    "do: red block -> top left corner",
    "do: every block -> the same color bowl",
    "do: every block -> a different color bowl",
    "do: the block left of green bowl -> middle",
    "do: the block below red bowl -> left side",
    "do: the block farthest from green bowl -> middle",
    "do: the block number 2 from the right -> green bowl",
    "do: red block and blue block -> green bowl",
    "wrong object\ndo: the block nearest to red bowl -> none",
    "do: none -> elsewhere",
    "retry: blue block",
    "done\nlearn",
    "stop",
])
def test_every_clause_the_grammar_allows_parses_and_renders_back(text):
    pytest.importorskip("llguidance")
    from grammar_support import accepted
    assert accepted(reading_gbnf(TABLE), " " + text.replace("\n", "\n- ") + "\n\n")
    assert read(text).render() == text


@pytest.mark.parametrize("text", [
    "do: purple block -> middle",                    # not in the scene
    "do: red block -> the kitchen",
    "do: the cup left of red bowl -> middle",        # a kind the scene has not
    "do: the block number 0 from the left -> middle",
    "learn: red block",
    "do: red block -> me",                           # the tabletop hands nothing over
    "do: red block -> green bowl\n- done\n- learn\n- stop",   # at most three clauses
    "do: green bowl -> middle",                      # the tabletop's bowls do not move
    "do: every bowl -> middle",
])
def test_the_grammar_refuses_what_the_scene_does_not_have(text):
    pytest.importorskip("llguidance")
    from grammar_support import accepted
    assert not accepted(reading_gbnf(TABLE), " " + text.replace("\n", "\n- ") + "\n\n")


def test_an_article_before_a_name_is_the_name_and_the_relations_read_as_types():
    r = read("wrong object\ndo: the blue block -> the middle\ndo: the block above the green "
             "bowl -> left side")
    assert r.clauses[1] == Clause("do", Selection("named", names=("blue block",)),
                                  Target("named", "middle"))
    assert r.clauses[2].objects == Selection("side", kind="block", side="top",
                                             reference="green bowl")
    assert r.rejects_choice and not r.closes and [c.kind for c in r.moves] == ["do", "do"]


def test_text_an_endpoint_wrote_outside_the_language_is_refused_with_the_reason():
    with pytest.raises(ReadingError, match="no thing or place"):
        read("do: red block -> the moon")
    with pytest.raises(ReadingError, match="empty"):
        parse("x", "\n\n", TABLE)
    assert parse("x", " done\nsomething else", TABLE).kinds == ("done",)   # the reading's end


def test_an_also_in_a_reply_comes_with_what_the_attempt_brought():
    """"whenever you bring me the tumbler, also bring me the juice" after the tumbler came,
    read the other way round: the reading says what comes with what the attempt brought (the
    reading bench counts the reading the learner uses)."""
    said = "whenever you bring me the tumbler, also bring me the juice. remember that"
    reader = Reader(ReadingScript({said: "also: tumbler with mango juice\nlearn"}))
    brought = reader.read(said, HOUSE, reply=True, moved=["tumbler_0"])
    assert brought.render() == "also: mango-juice_0 with tumbler_0\nlearn"
    both = reader.read(said, HOUSE, reply=True, moved=["tumbler_0", "mango-juice_0"])
    assert both.render() == "also: tumbler_0 with mango-juice_0\nlearn"     # as written
    assert reader.read(said, HOUSE).render() == "also: tumbler_0 with mango-juice_0\nlearn"


def test_household_names_are_read_in_words_and_mapped_back():
    assert spoken_form("on_dining-table_0") == spoken_form("inFrontOf_dining-table_0") == \
        "dining table"
    assert list(HOUSE.things) == ["mango juice", "coffee cup 1", "coffee cup 2", "tumbler"]
    assert HOUSE.scene_line() == ("mango juice, coffee cup 1, coffee cup 2, tumbler; places: "
                                  "dining table, kitchen counter; rooms: long table, handover "
                                  "place")
    r = read("do: mango juice and the coffee cup 2 -> me\nfaster: anywhere -> long table\n"
             "hand: both", HOUSE)
    assert r.clauses[0].objects.names == ("mango-juice_0", "coffee-cup_1")
    assert r.clauses[0].where == Target("me")
    assert r.speed.route == (None, "inFrontOf_long-table_0") and r.clauses[2].hand == "both"
    assert read("do: tumbler -> dining table", HOUSE).clauses[0].where.name == "on_dining-table_0"
    assert HOUSE.of_kind("cup") == ["coffee-cup_0", "coffee-cup_1"] and "juice" in HOUSE.kinds


POSITIONS = {"red block": (-0.2, -0.5), "blue block": (0.05, -0.45), "green block": (0.2, -0.6),
             "green bowl": (0.0, -0.5), "red bowl": (0.2, -0.3)}


@pytest.mark.parametrize("text, chosen", [
    ("do: every block -> middle", ["red block", "blue block", "green block"]),
    ("do: the block left of green bowl -> middle", ["red block"]),
    ("do: the block right of green bowl -> middle", ["blue block"]),    # the nearest that side
    ("do: the block below green bowl -> middle", ["green block"]),
    ("do: the block nearest to red bowl -> middle", ["blue block"]),
    ("do: the block farthest from red bowl -> middle", ["red block"]),
    ("do: the block number 1 from the left -> middle", ["red block"]),
    ("do: the block number 2 from the top -> middle", ["red block"]),
    ("do: the block number 4 from the top -> middle", None),           # three blocks only
    ("do: the block above green bowl -> middle", ["blue block"]),
])
def test_the_code_computes_what_a_selection_means_in_the_scene(text, chosen):
    scene = Scene(TABLE, lambda n: POSITIONS[n])
    assert scene.select(read(text).clauses[0].objects) == chosen


def test_without_positions_a_relation_is_not_guessed_and_targets_are_per_object():
    scene = Scene(TABLE)
    assert scene.select(read("do: the block left of green bowl -> middle").clauses[0]
                        .objects) is None
    same = read("do: every block -> the same color bowl").clauses[0].where
    assert scene.targets(same, "red block") == ["red bowl"]
    assert scene.targets(same, "blue block") is None               # no blue bowl here
    assert scene.targets(read("do: red block -> a different color bowl").clauses[0].where,
                         "red block") == ["green bowl"]


def test_the_scene_of_an_api_is_its_listing_and_places():
    from llm_interaction_node.core.apis.humanoid import HumanoidApi
    from llm_interaction_node.core.apis.registry import ApiRegistry, public_functions
    from llm_interaction_node.core.apis.tabletop import TabletopApi
    from llm_interaction_node.session import make_world
    table = TabletopApi(make_world("tabletop", "red block,green bowl", seed=0))
    scene = reading_scene(ApiRegistry(public_functions(table)))
    assert list(scene.vocabulary.things) == ["red block", "green bowl"]
    assert "top left corner" in scene.vocabulary.places and not scene.vocabulary.me
    assert np.allclose(scene.position("red block"), table.get_obj_pos("red block"))
    house = HumanoidApi(make_world("humanoid", "drinks_and_cup"))
    scene = reading_scene(ApiRegistry(public_functions(house)))
    assert "mango juice" in scene.vocabulary.things and scene.vocabulary.me
    assert scene.vocabulary.places["dining table"] == "on_dining-table_0"
    assert scene.vocabulary.locations["handover place"] == "handover_to_human"
    lying = dict(house.list_object_locations())
    assert scene.vocabulary.lying["mango-juice_0"] == lying["mango-juice_0"] \
        == "on_kitchen-counter_0"


def test_the_reader_reads_each_utterance_once_per_scene_and_counts_its_tokens():
    script = ReadingScript({"put the cubes in the green bowl": "do: every block -> green bowl"})
    ledger = TokenLedger()
    reader = Reader(script, ledger=ledger)
    first = reader.read("put the cubes in the green bowl", TABLE)
    again = reader.read("put   the cubes in the green bowl", TABLE)      # the same words
    assert first is again and script.asked == ["put the cubes in the green bowl"]
    assert first.clauses[0].objects == Selection("every", kind="block")
    assert reader.last("put the cubes in the green bowl") is first
    assert ledger.by_purpose()["read"].calls == 1


def test_the_prompt_holds_the_scene_and_at_most_a_bounded_utterance():
    flood = "put the red block " * 10_000
    prompt = build(TABLE.scene_line(), flood)
    said = prompt.rsplit("\nsaid: ", 1)[1].split("\n")[0]
    assert len(said) <= MAX_UTTERANCE_CHARS + 4 and prompt.endswith("reading:\n-")
    assert "\nscene: red block, blue block, green block, green bowl, red bowl\n" in prompt


def test_a_failed_or_malformed_reading_is_none_and_says_why():
    reader = Reader(ScriptedLLM([LLMError("the endpoint is down"), " do: the moon -> x\n\n"]))
    assert reader.read("hello", TABLE) is None and "down" in reader.last_failure
    assert reader.read("again", TABLE) is None and "no reading" in reader.last_failure
    assert Reader(ScriptedLLM([])).read("", TABLE).clauses == ()     # nothing said: no call


def test_a_reply_is_read_with_what_the_attempt_moved_and_the_one_moved_said_one_way():
    """The reply prompt shows what the attempt moved; "do: none -> X" after a one-object
    attempt is that object, a rejected object is never the one meant, and where the attempt is
    not known the reading is the model's as it wrote it."""
    said = "it goes in the green bowl, not there"
    script = ReadingScript({said: "do: none -> green bowl",
                            "wrong one": "wrong object\ndo: red block -> none",
                            "wrong one, the blue one": "wrong object\ndo: blue block -> none"})
    reader = Reader(script)
    one = reader.read(said, TABLE, reply=True, moved=["red block"])
    assert "\nyou moved: red block\nsaid: " + said in script.prompts[-1]
    assert one.clauses == (Clause("do", Selection("named", names=("red block",)),
                                  Target("named", "green bowl")),)
    two = reader.read(said, TABLE, reply=True, moved=["red block", "blue block"])
    assert "you moved: red block and blue block\n" in script.prompts[-1]
    assert two.clauses[0].objects is None                      # which one: not said
    none = reader.read(said, TABLE, reply=True, moved=[])
    assert "you moved: nothing\n" in script.prompts[-1] and none.clauses[0].objects is None
    unknown = reader.read(said, TABLE, reply=True)
    assert "\nsaid: " + said in script.prompts[-1].rsplit("\nscene: ", 1)[1]
    assert "you moved" not in script.prompts[-1].rsplit("\nscene: ", 1)[1]
    assert unknown.clauses[0].objects is None
    assert reader.read("wrong one", TABLE, reply=True, moved=["red block"]).kinds == \
        ("wrong object",)
    meant = reader.read("wrong one, the blue one", TABLE, reply=True, moved=["red block"])
    assert meant.render() == "wrong object\ndo: blue block -> none"
    request = reader.read(said, TABLE, moved=["red block"])     # a request answers nothing
    assert "you moved" not in script.prompts[-1].rsplit("\nscene: ", 1)[1]
    assert request.clauses[0].objects is None


def test_a_wrong_object_beside_the_moved_thing_sent_to_a_place_is_a_wrong_place():
    """Where a reply's reading sends only what the attempt moved to a place, the thing moved is
    the one meant: a ``wrong object`` beside it is dropped. With another thing named, or the
    moved thing without a place, the reading stays a wrong object."""
    script = ReadingScript({
        "wrong spot, the green bowl": "wrong object\ndo: red block -> green bowl",
        "not that one, put the blue one in the green bowl":
            "wrong object\ndo: blue block -> green bowl",
        "not that one": "wrong object\ndo: red block -> none",
        "both wrong": "wrong object\ndo: red block -> green bowl\ndo: blue block -> red bowl"})
    reader = Reader(script, check_slots=False)
    place = reader.read("wrong spot, the green bowl", TABLE, reply=True, moved=["red block"])
    assert place.render() == "do: red block -> green bowl"
    other = reader.read("not that one, put the blue one in the green bowl", TABLE, reply=True,
                        moved=["red block"])
    assert other.render() == "wrong object\ndo: blue block -> green bowl"
    assert reader.read("not that one", TABLE, reply=True, moved=["red block"]).render() == \
        "wrong object"
    both = reader.read("both wrong", TABLE, reply=True, moved=["red block"])
    assert both.rejects_choice
    unknown = reader.read("wrong spot, the green bowl", TABLE, reply=True)  # attempt not known
    assert unknown.rejects_choice


LYING = ReadingVocabulary.of(["banana_0", "apple_0", "tea-cup_0"],
                             ["on_kitchen-counter_0", "on_sideboard_0"], me=True,
                             lying={"banana_0": "on_kitchen-counter_0",
                                    "apple_0": "on_kitchen-counter_0", "tea-cup_0": None})


def test_a_requests_place_where_its_things_already_lie_is_not_a_place_said():
    """"put the banana away" read with the counter the banana lies on (measured, issue 44):
    a move to where a thing is asks for nothing, so the code leaves that place out; a place
    elsewhere, a thing the attempt moved or of no known place are kept."""
    away, there, both = "put the banana away", "put the banana on the sideboard", \
        "put the banana and the apple away"
    script = ReadingScript({away: "do: banana -> kitchen counter",
                            there: "do: banana -> sideboard",
                            both: "do: banana and apple -> kitchen counter",
                            "put the cup away": "do: tea cup -> kitchen counter"})
    reader = Reader(script)
    assert reader.read(away, LYING).render() == "do: banana_0 -> none"
    assert reader.read(both, LYING).render() == "do: banana_0 and apple_0 -> none"
    assert reader.read(there, LYING).render() == "do: banana_0 -> on_sideboard_0"
    assert reader.read("put the cup away", LYING).render() == \
        "do: tea-cup_0 -> on_kitchen-counter_0"                  # where it lies is not known
    where = "where is the banana? you forgot it"
    script.readings[where] = "do: banana -> kitchen counter"
    assert reader.read(where, LYING, reply=True, moved=["apple_0"]).render() == \
        "do: banana_0 -> none"                  # a reply about a thing the attempt left there
    assert reader.read(where, LYING, reply=True, moved=["banana_0"]).render() == \
        "do: banana_0 -> on_kitchen-counter_0"  # the attempt put it there: "leave it there"
    assert reader.read(where, LYING, reply=True).render() == \
        "do: banana_0 -> on_kitchen-counter_0"  # what the attempt moved is not known
    assert reader.read(away, ReadingVocabulary.of(["banana_0"], ["on_kitchen-counter_0"])) \
        .render() == "do: banana_0 -> on_kitchen-counter_0"      # a scene that tells no places

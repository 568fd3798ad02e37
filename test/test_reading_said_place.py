"""The place a reading sends things to is one the user said, where the words name one whole
(core/reading/said_place.py)."""
from llm_interaction_node.bench import household_situations as H
from llm_interaction_node.core.reading import parse
from llm_interaction_node.core.reading.said_place import places_said
from llm_interaction_node.core.reading.select import reading_scene
from llm_interaction_node.core.reading.vocabulary import ReadingVocabulary
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import build_console


def scene(world_name):
    console = build_console("humanoid", H.household_world(world_name),
                            EventQueue([], close=True))
    return reading_scene(console.api).vocabulary


def place(said, lines, v):
    reading = places_said(parse(said, " " + "\n- ".join(lines) + "\n\n", v), v)
    return [c.where.name if c.where is not None and c.where.how == "named" else None
            for c in reading.moves]


def test_a_place_not_said_is_the_one_name_the_user_said_whole():
    v = scene("living_room")
    # measured: "book" then the likelier "shelf"
    assert place("put the apple next to the book", ["do: apple -> bookshelf"], v) == ["book_0"]
    assert place("put the apple next to the book", ["do: apple -> apple"], v) == ["book_0"]


def test_a_place_said_a_name_said_in_part_or_none_said_stay_as_read():
    v = scene("living_room")
    for said, line, kept in (
            ("put the apple next to the book", "do: apple -> book", "book_0"),
            ("put the apple on the coffee table", "do: apple -> coffee table",
             "on_coffee-table_0"),
            ("put the apple by the bottle", "do: apple -> windowsill", "on_windowsill_0"),
            ("put the apple over here", "do: apple -> sideboard", "on_sideboard_0"),
            ("put the apple next to the book and the banana", "do: apple -> windowsill",
             "on_windowsill_0"),                                  # two names said: which?
            ("put the apple next to the remote", "do: apple -> windowsill",
             "on_windowsill_0"),                   # the remote control, said in part
            ("put the apple on the book shelf", "do: apple -> bookshelf", "on_bookshelf_0")):
        assert place(said, [line], v) == [kept], said
    assert place("bring me the apple", ["do: apple -> me"], v) == [None]
    v = scene("sponge_workbench")        # "place" is a word of "handover place": in part
    assert place("place the sponge beside the spray", ["do: kitchen sponge -> mineral water"],
                 v) == ["mineral-water_0"]


def test_the_tabletop_s_places_too():
    v = ReadingVocabulary.of(["cyan block", "blue block", "gray bowl"])
    assert place("cyan block on top of the blue one", ["do: cyan block -> blue block"], v) == \
        ["blue block"]
    assert place("cyan block into the gray bowl", ["do: cyan block -> blue block"], v) == \
        ["gray bowl"]


def test_a_name_the_reading_gives_things_by_is_no_place_said():
    # measured (reading bench, 90301d5): "top edge" is no name said whole; the blue bowl is the
    # relation's reference, said for that
    v = ReadingVocabulary.of(["cyan block", "gray block", "blue bowl"], ["top side", "left side"])
    assert place("move the cube left of the blue bowl over to the top edge",
                 ["do: the block left of blue bowl -> top side"], v) == ["top side"]

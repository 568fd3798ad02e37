"""A thing named as the place a thing goes means the surface it lies on
(core/reading/beside.py), in the household; the tabletop's places stay as read."""
from llm_interaction_node.bench import household_situations as H
from llm_interaction_node.core.reading import parse
from llm_interaction_node.core.reading.beside import things_as_places
from llm_interaction_node.core.reading.select import reading_scene
from llm_interaction_node.core.reading.vocabulary import ReadingVocabulary
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import build_console


def living_room():
    console = build_console("humanoid", H.household_world("living_room"),
                            EventQueue([], close=True))
    return reading_scene(console.api).vocabulary


def read(lines, vocabulary):
    return parse("x", " " + "\n- ".join(lines) + "\n\n", vocabulary)


def where(reading):
    return [c.where.name if c.where is not None else None for c in reading.moves]


def test_next_to_a_thing_is_on_the_surface_it_lies_on():
    v = living_room()
    assert where(things_as_places(read(["do: apple -> book"], v), v.lying)) == \
        ["on_coffee-table_0"]
    both = things_as_places(read(["do: apple -> book", "do: banana -> water bottle"], v),
                            v.lying)
    assert where(both) == ["on_coffee-table_0", "on_sideboard_0"]


def test_a_surface_me_the_thing_itself_or_a_thing_on_no_surface_stay_as_read():
    v = living_room()
    for lines in (["do: apple -> coffee table"], ["do: apple -> me"], ["do: apple -> apple"],
                  ["do: apple -> none"], ["other"]):
        reading = read(lines, v)
        assert things_as_places(reading, v.lying) is reading, lines
    held = {n: p for n, p in v.lying.items() if n != "book_0"}    # the book: in a hand
    reading = read(["do: apple -> book"], v)
    assert things_as_places(reading, held) is reading
    assert things_as_places(None, v.lying) is None


def test_the_tabletop_s_block_on_a_block_stays_a_block():
    v = ReadingVocabulary.of(["cyan block", "blue block", "gray bowl"])
    reading = read(["do: cyan block -> blue block"], v)
    assert not v.lying and things_as_places(reading, v.lying) is reading

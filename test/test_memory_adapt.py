"""The nearest lesson shown in the names of the request at hand (core/memory/adapt.py)."""
from __future__ import annotations

import pytest

from llm_interaction_node.core.memory.adapt import adapted, name_mapping, with_swaps
from llm_interaction_node.core.transcript.transcript import Transcript

LOOP_LESSON = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'put the blocks in the blue bowl'}
>>> get_obj_names()
['yellow block', 'green block', 'blue block', 'blue bowl', 'green bowl']
>>> block_names = [name for name in get_obj_names() if name.endswith(' block')]
>>> for name in block_names:
...     put_first_on_second(name, 'blue bowl')
'success'
'success'
'success'
>>> wait_for_trigger()"""

KNOWN = ["green bowl", "red bowl", "green block", "top right corner", "blue bowl"]
NAMES = {"blue bowl", "green bowl", "yellow block", "green block", "blue block", "left side",
         "top right corner"}


@pytest.mark.parametrize("taught, asked, mapping", [
    ("put the blocks in the blue bowl", "put the blocks in the green bowl",
     {"blue bowl": "green bowl"}),
    ("put all the blocks on the left side", "put all the blocks on the top right corner",
     {"left side": "top right corner"}),
    ("put the yellow block in the blue bowl", "Put the green block in the red bowl.",
     {"yellow block": "green block", "blue bowl": "red bowl"}),
    # a word that is no name the lesson uses differs: the lesson may compute with it
    ("pick up the block to the left of the blue bowl", "pick up the block to the top of the "
     "blue bowl", None),
    ("put the blocks in the blue bowl", "put the blocks in the bowls with matching colors", None),
    ("put the blocks in the blue bowl", "put the blocks in the purple bowl", None),  # not here
    ("put the blocks in the blue bowl", "put the blocks in the blue bowl", None),  # the same
])
def test_requests_that_differ_only_in_names_map_them(taught, asked, mapping):
    assert name_mapping(taught, asked, NAMES, KNOWN) == mapping


def test_a_name_that_takes_the_place_of_one_in_the_lessons_scene_swaps_with_it():
    assert with_swaps({"blue bowl": "green bowl"}) == {"blue bowl": "green bowl",
                                                        "green bowl": "blue bowl"}
    assert with_swaps({"a": "b", "b": "c"}) == {"a": "b", "b": "c"}


def test_the_lesson_reads_as_the_request_at_hand_in_request_statements_and_scene():
    shown = adapted(LOOP_LESSON, ["put the blocks in the green bowl"], KNOWN)
    entries = Transcript.parse(shown).entries
    assert Transcript.parse(shown).user_utterances() == ["put the blocks in the green bowl"]
    assert entries[1].output == "['yellow block', 'green block', 'blue block', 'green bowl', " \
                                "'blue bowl']"
    assert entries[3].source == "for name in block_names:\n    put_first_on_second(name, " \
                                "'green bowl')"
    assert "endswith(' block')" in entries[2].source


def test_a_lesson_for_another_kind_of_request_is_shown_as_stored():
    for said in (["put the blocks in the bowls with matching colors"],
                 ["put the blocks in the blue bowl"], []):
        assert adapted(LOOP_LESSON, said, KNOWN) == LOOP_LESSON


def test_a_lesson_that_chose_an_object_by_name_is_shown_as_stored():
    """block_direction_of_bowl as stored (issue 30): the request does not say the red block,
    the lesson puts it by name; in the words of "... left of the yellow bowl ..." it would
    read as the rule for any scene."""
    request = ("pick up the block to the left of the green bowl and place it on the top left "
               "corner")
    lesson = f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': '{request}'}}
>>> get_obj_names()
['red block', 'yellow block', 'green bowl', 'yellow bowl']
>>> put_first_on_second('red block', 'top left corner')
'success'
>>> wait_for_trigger()"""
    asked = ["pick up the block to the left of the yellow bowl and place it on the top right "
             "corner"]
    assert adapted(lesson, asked, KNOWN + ["yellow bowl"]) == lesson
    named = lesson.replace("the block to the left of", "the red block to the left of")
    assert "'top right corner'" in adapted(named, [asked[0].replace("the block", "the red block")],
                                           KNOWN + ["yellow bowl", "red block"])


def test_the_newest_utterance_that_differs_only_in_names_is_the_one_used():
    """After a correction the utterances end with it; the task's request still adapts."""
    shown = adapted(LOOP_LESSON, ["put the blocks in the green bowl",
                                  "the yellow block is still on the table"], KNOWN)
    assert "'green bowl')" in shown.split(">>> for name")[1]


def test_the_prompt_shows_the_nearest_lesson_adapted_and_the_memory_keeps_it(tmp_path):
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.source import ExampleSource
    from llm_interaction_node.core.memory.store import ExampleMemory

    def source(adapt):
        memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / f"m{adapt}"),
                                                        adapt_names=adapt))
        memory.add(LOOP_LESSON, "final")
        return memory, ExampleSource(memory, names=lambda: KNOWN)

    memory, examples = source(True)
    shown = examples(["put the blocks in the green bowl"])
    assert "put_first_on_second(name, 'green bowl')" in shown[-1]
    assert memory.list("final")[0].transcript == LOOP_LESSON
    _, plain = source(False)
    assert plain(["put the blocks in the green bowl"])[-1] == LOOP_LESSON


def test_a_loop_lesson_is_shown_only_to_requests_of_its_kind(tmp_path):
    """memory.rules_to_their_kind (measured, issue 30 session 40: with "put the blocks in the
    X bowl" as a loop in every prompt, "put all the blocks in the bowls with matching colors"
    wrote loops it could not finish, and block_distance_to_bowl took its ``block_names``)."""
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.source import ExampleSource
    from llm_interaction_node.core.memory.store import ExampleMemory
    literal = LOOP_LESSON.replace("put the blocks in the blue bowl",
                                  "put the yellow block in the blue bowl")
    literal = literal.split(">>> block_names")[0] + \
        ">>> put_first_on_second('yellow block', 'blue bowl')\n'success'\n>>> wait_for_trigger()"

    def shown(said, keep):
        memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / f"{said[:9]}{keep}"),
                                                        rules_to_their_kind=keep))
        memory.add(LOOP_LESSON, "final")
        memory.add(literal, "final")
        return [t for t in ExampleSource(memory, names=lambda: KNOWN)(said)
                if "put_first_on_second" in t]

    other = shown(["put the blocks in the bowls with matching colors"], True)
    assert not any("block_names" in t for t in other) and any("'yellow block'" in t for t in other)
    assert any("block_names" in t for t in shown(["put the blocks in the bowls with matching "
                                                  "colors"], False))
    same = shown(["put the blocks in the green bowl"], True)
    assert any("put_first_on_second(name, 'green bowl')" in t for t in same)


def test_what_the_robot_says_in_a_lesson_reads_in_the_request_s_names():
    """Measured (teach-once, built-in wordings, seed 15522, cae1f18): the book lesson followed
    for the tea cup said "The book is on the sideboard now." after putting the tea cup on the
    coffee table. The lesson's speech is said in the new names (swaps stay swaps); a word that
    only contains a name is left alone."""
    from llm_interaction_node.core.memory.adapt import adapted_to, said_in_new_names

    lesson = "\n".join([
        ">>> wait_for_trigger()",
        repr({"type": "dialog", "text": "could you carry the book over to the sideboard?"}),
        ">>> say('Sure, I will carry the book over to the sideboard.')",
        ">>> grasp('book_0')", "'success'",
        ">>> place_object('book_0', 'on_sideboard_0')", "'success'",
        ">>> say('The book is on the sideboard now.')", ">>> wait_for_trigger()"])
    mapping = {"book_0": "tea-cup_0", "on_sideboard_0": "on_coffee-table_0"}
    shown = adapted_to(lesson, mapping, "take the tea cup to the coffee table")
    assert ">>> say('Sure, I will carry the tea cup over to the coffee table.')" in shown
    assert ">>> say('The tea cup is on the coffee table now.')" in shown
    assert ">>> place_object('tea-cup_0', 'on_coffee-table_0')" in shown
    swapped = with_swaps(mapping)
    assert said_in_new_names("say('the tea cup, not the book')", swapped) == \
        "say('the book, not the tea cup')"
    assert said_in_new_names("say('my notebook')", swapped) == "say('my notebook')"
    assert said_in_new_names("ask('Which block, the red block?')", {"red block": "blue block"}) \
        == "ask('Which block, the blue block?')"

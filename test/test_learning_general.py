"""A final lesson that moved every object of a kind is stored as a loop over the scene."""
from __future__ import annotations

import pytest

from learning_support import learning_session
from llm_interaction_node.core.learning.general import (
    asks_for_every,
    every_of_kind,
    is_rule_lesson,
)
from llm_interaction_node.core.learning.learner import LearnStatus
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.store import ExampleMemory
from llm_interaction_node.core.transcript import Entry, Transcript

PUT = "put_first_on_second('{}', '{}')"
LOOK = Entry("get_obj_names()", "['red block', 'green block', 'yellow block', 'green bowl']")
BLOCKS = ("red block", "green block", "yellow block")


@pytest.fixture
def table_memory(tmp_path):
    return ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "memory")))


@pytest.mark.parametrize("request_text, every", [
    ("put the blocks in the green bowl", True),
    ("put all the blocks on the left side", True),
    ("put all of the blocks in the bowl", True),
    ("move every block to the corner", True),
    ("put the red blocks in the green bowl", False),
    ("put the red and the green block in the bowl", False),
    ("put the block in the green bowl", False),
])
def test_a_request_asks_for_every_object_of_a_kind_only_without_a_word_between(request_text,
                                                                                every):
    assert asks_for_every(request_text, "block") is every


def moves(names, target="green bowl"):
    return [Entry(PUT.format(n, target), "'success'") for n in names]


def test_moves_of_every_listed_block_to_one_place_are_one_rule():
    rule = every_of_kind("put the blocks in the green bowl", LOOK, moves(BLOCKS))
    assert rule is not None and rule.moved == frozenset(BLOCKS)
    assert [e.source for e in rule.statements()] == [
        "block_names = [name for name in get_obj_names() if name.endswith(' block')]",
        "for name in block_names:\n    put_first_on_second(name, 'green bowl')"]


@pytest.mark.parametrize("request_text, done", [
    ("put the blocks in the green bowl", moves(BLOCKS[:2])),                 # one left out
    ("put the blocks in the green bowl", moves(BLOCKS[:2]) + moves(BLOCKS[2:], "left side")),
    ("put the blocks in the green bowl", moves(BLOCKS) + moves(BLOCKS[:1])),  # one put twice
    ("put the red and green and yellow block in the bowl", moves(BLOCKS)),   # named, not a kind
    ("put the blocks in the green bowl", moves(BLOCKS[:1])),                 # one is a choice
    ("put the blocks in the green bowl", moves(BLOCKS[:2]) + [Entry("say('done')", "")]),
])
def test_moves_that_are_not_every_object_to_one_place_stay_literal(request_text, done):
    assert every_of_kind(request_text, LOOK, done) is None


def test_a_stored_loop_lesson_is_known_as_one():
    rule = every_of_kind("put the blocks in the green bowl", LOOK, moves(BLOCKS))
    stored = Transcript([Entry("wait_for_trigger()", "{'type': 'dialog', 'text': 'x'}"), LOOK,
                         *rule.statements(), Entry("wait_for_trigger()")])
    assert is_rule_lesson(stored.render())
    literal = Transcript([Entry("wait_for_trigger()", "{'type': 'dialog', 'text': 'x'}"), LOOK,
                          *moves(BLOCKS), Entry("wait_for_trigger()")])
    assert not is_rule_lesson(literal.render())


def test_a_look_that_printed_no_list_gives_no_rule():
    assert every_of_kind("put the blocks in the green bowl", Entry("get_obj_names()", "oops"),
                         moves(BLOCKS)) is None


def test_the_final_lesson_of_a_block_left_out_is_a_loop_over_every_block(table_memory):
    """blocks_in_bowl as measured (issue 30, 0e8cd4a run 2): the model put two of the three
    blocks, the user named the third, the accepted attempt put it. Stored: the look, then one
    loop over every block the scene lists, replayed, its outputs the world's."""
    said = ["put the blocks in the green bowl",
            "The yellow block is still not in the green bowl.",
            "Great, learn from that for next time."]
    statements = ["wait_for_trigger()", "get_obj_names()", PUT.format("red block", "green bowl"),
                  PUT.format("green block", "green bowl"), "wait_for_trigger()",
                  PUT.format("yellow block", "green bowl"), "wait_for_trigger()"]
    s = learning_session(said, table_memory, statements, mode="final", api="tabletop",
                         world=",".join(BLOCKS + ("green bowl",)), all_ok=True)
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert "as one move of every block the scene lists" in entry.output
    [example] = table_memory.list("final")
    entries = Transcript.parse(example.transcript).entries
    assert [e.source for e in entries] == [
        "wait_for_trigger()", "get_obj_names()",
        "block_names = [name for name in get_obj_names() if name.endswith(' block')]",
        "for name in block_names:\n    put_first_on_second(name, 'green bowl')",
        "wait_for_trigger()"]
    assert entries[3].output == "\n".join(["'success'"] * 3)


def test_a_final_lesson_for_named_blocks_stays_literal(table_memory):
    said = ["put the red and the green block in the green bowl",
            "the green block is still on the table",
            "Great, learn from that for next time."]
    statements = ["wait_for_trigger()", "get_obj_names()", PUT.format("red block", "green bowl"),
                  "wait_for_trigger()", PUT.format("green block", "green bowl"),
                  "wait_for_trigger()"]
    s = learning_session(said, table_memory, statements, mode="final", api="tabletop",
                         world="red block,green block,green bowl", all_ok=True)
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert "every block" not in entry.output
    [example] = table_memory.list("final")
    sources = [e.source for e in Transcript.parse(example.transcript).entries]
    assert PUT.format("red block", "green bowl") in sources
    assert not any(s.startswith("for ") for s in sources)

"""A place the user taught for a thing (core/learning/taught_place.py): stored as the lesson's
place, whatever its request was read as, and followed for a request about the same thing that
names no place. Only the LLM is scripted; the console, the learner and ChromaDB are real."""
from __future__ import annotations

import pytest

from learning_support import HANDED_THEN_PUT, THERE, TIDY, learning_session
from llm_interaction_node.core.learning.learner import LearnStatus
from llm_interaction_node.core.learning.taught_place import places_said, with_taught_place
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.meaning import slot_mapping
from llm_interaction_node.core.memory.store import ExampleMemory
from llm_interaction_node.core.reading import ReadingVocabulary, parse
from llm_interaction_node.core.reading.record import reading_from_json

HOUSE = ReadingVocabulary.of(["banana_0", "apple_0"], ["on_sideboard_0", "on_kitchen-counter_0"],
                             me=True)


def read(clauses: str):
    return parse("(said)", " " + clauses.replace("\n", "\n- ") + "\n\n", HOUSE)


@pytest.mark.parametrize("request_, asked, stored", [
    ("do: banana -> me", "do: banana -> sideboard\nlearn", "do: banana_0 -> on_sideboard_0"),
    ("do: banana -> none", "do: banana -> sideboard\nlearn", "do: banana_0 -> on_sideboard_0"),
    ("do: banana -> me", "do: apple -> sideboard\nlearn", "do: banana_0 -> me"),   # another thing
    ("do: banana -> me", "done\nlearn", "do: banana_0 -> me"),                       # no place
    ("do: banana and apple -> me", "do: banana -> sideboard\nlearn",                 # one of two
     "do: banana_0 and apple_0 -> me"),
])
def test_the_lesson_sends_its_things_where_the_request_to_learn_said(request_, asked, stored):
    assert with_taught_place(read(request_), read(asked)).render() == stored


def test_a_taught_place_is_followed_for_the_same_thing_without_a_place_only():
    lesson = with_taught_place(read("do: banana -> me"), read("do: banana -> sideboard\nlearn"))
    assert places_said(read("do: banana -> sideboard\nlearn")) == {"banana_0": "on_sideboard_0"}
    assert slot_mapping(lesson, read("do: banana -> none")) == {}
    assert slot_mapping(lesson, read("do: banana -> elsewhere")) == {}
    assert slot_mapping(lesson, read("do: apple -> none")) is None
    assert slot_mapping(lesson, read("do: banana -> me")) is None        # brought to the user


def test_the_learner_stores_the_taught_place_with_the_lesson(tmp_path):
    """The teach-once bench's banana pair as measured (session 54), on drinks_and_cup: the
    request read as bringing the juice to the user, handed over, then the user's place."""
    memory = ExampleMemory("humanoid", MemoryConfig(path=str(tmp_path / "m")))
    s = learning_session([TIDY, THERE], memory, HANDED_THEN_PUT, mode="final", all_ok=True,
                         readings={TIDY: "do: mango juice -> me",
                                   THERE: "do: mango juice -> dining table\nlearn"})
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    [example] = memory.list("final")
    assert reading_from_json(example.reading).render() == \
        "do: mango-juice_0 -> on_dining-table_0"

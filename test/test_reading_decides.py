"""No rule over the user's words decides what they meant (issue 42 item 5).

Each interaction runs twice: once in the user's words, once with every utterance replaced by
made-up words no regex or word list could read ("vokra dessil ..."), the model's reading of
each (the stand-in) the same both times. The correction focus, the repeat note, the learn gate
and the lesson writer must end the same: if a rule over the words decided any of them, the
made-up words would give it nothing and the two runs would differ."""
from __future__ import annotations

import random
import re

import numpy as np
import pytest

from learning_support import learning_session
from llm_interaction_node.core.learning.learner import LearnStatus
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.store import ExampleMemory
from llm_interaction_node.core.transcript.transcript import Transcript
from test_correction import ATTEMPT, FEEDBACK, READINGS, _tabletop_agent
from test_learning_choice import LEFT_OF_YELLOW, LEFT_OF_YELLOW_READ, PUT, placed_world

SYLLABLES = ["vo", "kra", "des", "sil", "mu", "tan", "ber", "qui", "lo", "zen", "fa", "rux"]


def made_up(utterance: str, seed: int) -> str:
    """As many made-up words as ``utterance`` has, none an English word."""
    rng = random.Random(seed)
    return " ".join("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
                    for _ in utterance.split())


def scrambled(utterances: list[str], readings: dict) -> tuple[list[str], dict]:
    words = [made_up(u, i) for i, u in enumerate(utterances)]
    assert len(set(words)) == len(words)
    return words, {w: readings[u] for u, w in zip(utterances, words, strict=True) if u in readings}


def moves_offered(llm) -> list[list[str]]:
    """The move rules of the grammar of every statement the model was asked for."""
    return [[r for r in call["grammar"].splitlines()
             if re.match(r"call-\d+-(t\d+|args) ::=", r)] for call in llm.calls]


def test_the_correction_focus_and_the_repeat_note_follow_the_reading_not_the_words():
    responses = ATTEMPT + ["put_first_on_second('blue block', 'left side')",
                           "wait_for_trigger()"]
    runs = []
    for utterances, readings in ((FEEDBACK, READINGS), scrambled(FEEDBACK, READINGS)):
        agent, llm, world = _tabletop_agent(list(responses), utterances, readings,
                                            repeat_notes=1)
        agent.run()
        sources = [e.source for e in agent.console.transcript
                   if not e.source.startswith("# The user says")]     # quotes the words
        blue = np.asarray(world.object_position("blue block"))[:2]
        runs.append((sources, moves_offered(llm), blue))
    (words, grammars, blue), (made, made_grammars, made_blue) = runs
    assert any(g for g in grammars[len(ATTEMPT):]), "the focus restricted the corrected turn"
    assert made == words and made_grammars == grammars
    assert np.allclose(made_blue, blue)


@pytest.mark.parametrize("reading, status", [
    ("learn", LearnStatus.STORED_FINAL),      # made-up words read as a request to learn
    ("done", None),                           # "keep that in mind" read as approval only
])
def test_the_learn_gate_and_the_lesson_writer_follow_the_reading_not_the_words(
        tmp_path, reading, status):
    said = [LEFT_OF_YELLOW,
            "That is not what I wanted. Try once more, please.",
            "That is right now. Please keep that in mind for the future."]
    readings = {said[0]: LEFT_OF_YELLOW_READ, said[1]: "wrong object", said[2]: reading}
    statements = ["wait_for_trigger()", "get_obj_names()",
                  PUT.format("blue block", "top right corner"), "wait_for_trigger()",
                  PUT.format("yellow block", "top right corner"), "wait_for_trigger()"]
    lessons = []
    for n, (utterances, read) in enumerate(((said, readings), scrambled(said, readings))):
        memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / f"memory{n}")))
        s = learning_session(utterances, memory, statements, mode="final", api="tabletop",
                             robot=placed_world(), all_ok=True, readings=read)
        entry = s.console.execute("learn_from_interaction()").entry
        if status is None:
            assert s.learner.last_outcome is None or \
                s.learner.last_outcome.status != LearnStatus.STORED_FINAL, entry.output
            assert memory.list("final") == []
            lessons.append(entry.output)
            continue
        assert s.learner.last_outcome.status == status, entry.output
        [example] = memory.list("final")
        lessons.append([e.source for e in Transcript.parse(example.transcript).entries
                        if not e.source.startswith("wait_for_trigger")])
    assert lessons[0] == lessons[1]

"""The embedded model reads sentences nobody built the reading from (slow: the real model).

Two held-out sets, neither in the development wording pool nor in the reading prompt's
examples: ``data/reading_heldout.yaml`` (a sentence of each reading kind: requests, relations,
counts, corrections, approval, learning, a route's speed, a hand, forgetting, in the tabletop
and the household) and a sample of ``data/learn_requests.yaml`` (labelled requests to learn and
look-alikes: "remember to bring the cup now", "you forgot the spoon", "next time is fine").
The model reads them under the grammar; the test asserts how many it reads right (a floor
under what was measured, docs/evaluation.md: the reading is greedy, so a change of the prompt,
the grammar or the parser that hurts the reading fails here)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from llm_interaction_node.bench.reading_items import household_vocabulary, normal
from llm_interaction_node.core.reading import Reader, ReadingVocabulary, parse
from llm_interaction_node.core.reading.attempt import answering

pytestmark = [pytest.mark.slow, pytest.mark.embedded_model]
DATA = Path(__file__).resolve().parent / "data"
# floors under the measured counts (docs/evaluation.md, "The model reads": held-out 25/30;
# learn or not 30/40 at 5d412b0: every request to learn read as one (20/20), 10 of 20
# look-alikes read as learn, 8 before the reply prompt showed what the attempt moved)
HELDOUT_FLOOR = 0.7
LEARN_FLOOR = 0.9           # of the requests to learn
LOOK_ALIKE_FLOOR = 0.4      # of the look-alikes (read as anything but learn)
LEARN_SAMPLE = 20          # of each label, every third of the labelled set


@pytest.fixture(scope="module")
def reader():
    from llm_interaction_node.core.llm import models
    if not models.available():
        pytest.skip("the embedded model is not installed")
    from llm_interaction_node.core.llm.local import LocalLlamaClient
    model = Reader(LocalLlamaClient())
    model.prefill(persist=True)
    return model


@pytest.fixture(scope="module")
def vocabularies():
    from llm_interaction_node.bench.household_situations import household_world
    from llm_interaction_node.core.apis.tabletop import PLACE_NAMES
    data = yaml.safe_load((DATA / "reading_heldout.yaml").read_text())
    return {"tabletop": ReadingVocabulary.of(data["tabletop"], PLACE_NAMES, show_places=False),
            "drinks_and_cup": household_vocabulary(household_world("drinks_and_cup"))}


def test_the_model_reads_held_out_sentences_of_every_kind(reader, vocabularies):
    items = yaml.safe_load((DATA / "reading_heldout.yaml").read_text())["items"]
    wrong = []
    for item in items:
        v = vocabularies[item["scene"]]
        gold = parse(item["said"], " " + "\n- ".join(item["gold"]) + "\n\n", v)
        moved = item.get("moved")
        if item.get("reply"):
            gold = answering(gold, moved)       # "the one you moved" said one way
        got = reader.read(item["said"], v, reply=item.get("reply", False), moved=moved)
        if got is None or normal(got.clauses) != normal(gold.clauses):
            wrong.append((item["said"], got.render(v.spoken) if got else reader.last_failure))
    right = len(items) - len(wrong)
    print(f"held-out: {right}/{len(items)} read right")
    assert right >= HELDOUT_FLOOR * len(items), "\n".join(f"{s!r}: {r}" for s, r in wrong)
    assert len({tuple(i["gold"][0].split(":")[0].split()) for i in items}) >= 8   # the kinds


def test_the_model_tells_requests_to_learn_from_look_alikes(reader, vocabularies):
    data = yaml.safe_load((DATA / "learn_requests.yaml").read_text())
    sample = [(u, True) for u in data["positive"][::3][:LEARN_SAMPLE]] + \
        [(u, False) for u in data["negative"][::3][:LEARN_SAMPLE]]
    v = vocabularies["drinks_and_cup"]
    wrong = []
    for utterance, is_request in sample:
        # as the agent reads a reply (the learn gate acts on that reading)
        got = reader.read(utterance, v, reply=True, moved=["coffee-cup_0"])
        if (got is not None and got.asks_to_learn) != is_request:
            wrong.append((utterance, is_request, got.render(v.spoken) if got else None))
    print(f"learn or not: {len(sample) - len(wrong)}/{len(sample)} read right; wrong: {wrong}")
    missed = [w for w in wrong if w[1]]
    taken = [w for w in wrong if not w[1]]
    asked = sum(1 for _, is_request in sample if is_request)
    alike = len(sample) - asked
    assert asked - len(missed) >= LEARN_FLOOR * asked, missed
    assert alike - len(taken) >= LOOK_ALIKE_FLOOR * alike, taken


def test_the_model_knows_what_people_call_a_thing(reader, vocabularies):
    """A thing the user calls by a word that is not the scene's name (core/reading/
    other_names.py): "glass" is the tumbler, not the coffee cup the reading named first
    (the grammar offers only the scene's names); written for this test, in no pool."""
    v = vocabularies["drinks_and_cup"]
    for said in ("pass me that glass", "a glass for me, please"):
        got = reader.read(said, v)
        assert got is not None and got.render(v.spoken) == "do: tumbler -> me", \
            (said, got and got.render(v.spoken))
    got = reader.read("the cup, please", v)                 # its name said: nothing asked
    assert got.render(v.spoken) == "do: coffee cup -> me"
    assert "coffee cup" not in reader.other_names.kept() or \
        "glass" not in reader.other_names.kept()["coffee cup"]

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

import time
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
# look-alikes read as learn, 8 before the reply prompt showed what the attempt moved; issue 60,
# the samples below at b1c1a4e: held-out 14/15, requests to learn 8/8, look-alikes 5/8)
HELDOUT_FLOOR = 0.7
LEARN_FLOOR = 0.85          # of the requests to learn (7 of 8)
LOOK_ALIKE_FLOOR = 0.4      # of the look-alikes (read as anything but learn)

# Issue 60: sized to pass at one thread beside a CPU hog. The accuracy is the benches'
# (python -m llm_interaction_node.bench.reading: the development pool, 156 readings;
# scripts/learn_set_reading.py: all 132 labelled requests to learn and look-alikes); these
# tests keep a floor on a few sentences of each kind: of the held-out set the first sentence
# of each kind (scene, reply or request: 15 of 30, every kind), of the learn set every third of
# each label, LEARN_SAMPLE of each (was 20).
LEARN_SAMPLE = 8
HELDOUT_ITEMS = yaml.safe_load((DATA / "reading_heldout.yaml").read_text())["items"]


def first_of_each_kind(items: list[dict]) -> list[dict]:
    """The first item of each (scene, first clause's kind, reply or request)."""
    seen, out = set(), []
    for item in items:
        key = (item["scene"], item["gold"][0].split(":")[0], bool(item.get("reply")))
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


HELDOUT = first_of_each_kind(HELDOUT_ITEMS)

# The timeout of each test, from the measured cost of one reading (issue 60). Measured at
# b1c1a4e, 2026-12-07 19:01-19:09 UTC: `python scripts/run_suite.py --phase embedded -- -rP
# --durations=0` (the embedded-model phase of `make test`) with one CPU hog (`python3 -c "while
# True: pass"`) beside it and another developer's test run too (load 2-3.6 on 2 cores); the
# client chose 1 thread (core/llm/threads.py). Printed by the tests (reader.costs): held-out, 15
# readings: 4.29 s mean, 6.06 s p90, 13.53 s max per reading (1.73 model calls mean, 4 max; the
# slowest a reading that repeated "X and Y and ..." up to its 80 tokens); learn or not, 16
# readings: 2.61 s mean, 10.56 s max. The reading prompts' prefill: 1,035 tokens evaluated in
# 33.7 s (30.7 tokens/s; the other 6,436 restored from disk). Again at b020c14, 20:05-20:11 UTC,
# the states on disk (load 2.3): held-out 5.29 s mean, 16.41 s max; learn or not 2.52 s mean,
# 7.30 s max; the phase 340 s. The cold prefill: all the reading prompts with no state on
# disk (7,471 tokens then, 28,994 characters: 3.88 characters a token) would take 243 s; the
# module's first test pays it (seconds when restored), computed from the prompts as they are
# now (they grow with the reader's questions). A test's timeout: that cold prefill + twice its
# readings at the slowest measured reading.
READING_S = 16.5          # the slowest reading of both runs
PREFILL_TOKENS_S = 30.7
CHARS_PER_TOKEN = 3.88


def reading_prompts_chars() -> int:
    """The characters of the reading prompts the reader prefills (Reader.prefill's texts)."""
    texts = []

    class Prefills:
        def prefill(self, text, persist=False):
            texts.append(text)
    Reader(Prefills()).prefill(persist=True)
    return sum(len(t) for t in texts)


PREFILL_S = reading_prompts_chars() / CHARS_PER_TOKEN / PREFILL_TOKENS_S


def timeout(readings: int) -> int:
    return int(PREFILL_S + 2 * readings * READING_S)


def cost(reader, since: int) -> str:
    """The cost of the readings made since ``since`` (the reader's costs), for the log."""
    from llm_interaction_node.bench.reading import cost_line, reading_cost
    records = [{"calls": c.calls, "prompt_tokens": c.prompt_tokens,
                "evaluated_tokens": c.evaluated_tokens, "generated_tokens": c.generated_tokens,
                "wall_s": round(c.wall_s, 2)} for c in reader.costs[since:]]
    threads = getattr(reader.llm, "_threads", "?")
    return f"{len(records)} readings, {threads} thread(s); " + cost_line(reading_cost(records))


@pytest.fixture(scope="module")
def reader():
    from llm_interaction_node.core.llm import models
    if not models.available():
        pytest.skip("the embedded model is not installed")
    from llm_interaction_node.core.llm.local import LocalLlamaClient
    model = Reader(LocalLlamaClient())
    start = time.perf_counter()
    usage = model.prefill(persist=True)
    print(f"the reading prompts prefilled in {time.perf_counter() - start:.1f} s: "
          f"{usage.evaluated_tokens} tokens evaluated, {usage.cached_tokens} restored")
    return model


@pytest.fixture(scope="module")
def vocabularies():
    from llm_interaction_node.bench.household_situations import household_world
    from llm_interaction_node.core.apis.tabletop import PLACE_NAMES
    data = yaml.safe_load((DATA / "reading_heldout.yaml").read_text())
    return {"tabletop": ReadingVocabulary.of(data["tabletop"], PLACE_NAMES, show_places=False),
            "drinks_and_cup": household_vocabulary(household_world("drinks_and_cup"))}


@pytest.mark.timeout(timeout(len(HELDOUT)))
def test_the_model_reads_held_out_sentences_of_every_kind(reader, vocabularies):
    items = HELDOUT
    since = len(reader.costs)
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
    print(f"held-out: {right}/{len(items)} read right; {cost(reader, since)}")
    assert right >= HELDOUT_FLOOR * len(items), "\n".join(f"{s!r}: {r}" for s, r in wrong)
    assert len({tuple(i["gold"][0].split(":")[0].split()) for i in items}) >= 8   # the kinds


@pytest.mark.timeout(timeout(2 * LEARN_SAMPLE))
def test_the_model_tells_requests_to_learn_from_look_alikes(reader, vocabularies):
    data = yaml.safe_load((DATA / "learn_requests.yaml").read_text())
    since = len(reader.costs)
    sample = [(u, True) for u in data["positive"][::3][:LEARN_SAMPLE]] + \
        [(u, False) for u in data["negative"][::3][:LEARN_SAMPLE]]
    v = vocabularies["drinks_and_cup"]
    wrong = []
    for utterance, is_request in sample:
        # as the agent reads a reply (the learn gate acts on that reading)
        got = reader.read(utterance, v, reply=True, moved=["coffee-cup_0"])
        if (got is not None and got.asks_to_learn) != is_request:
            wrong.append((utterance, is_request, got.render(v.spoken) if got else None))
    print(f"learn or not: {len(sample) - len(wrong)}/{len(sample)} read right; wrong: {wrong}; "
          f"{cost(reader, since)}")
    missed = [w for w in wrong if w[1]]
    taken = [w for w in wrong if not w[1]]
    asked = sum(1 for _, is_request in sample if is_request)
    alike = len(sample) - asked
    assert asked - len(missed) >= LEARN_FLOOR * asked, missed
    assert alike - len(taken) >= LOOK_ALIKE_FLOOR * alike, taken


@pytest.mark.timeout(timeout(3))
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

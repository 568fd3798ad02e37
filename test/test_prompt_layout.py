"""Issue 26: one prompt prefix for every request. The default layout (memory.order
seed_block) is every seed example in one fixed order (the most central first), then the top-k
LEARNED examples (most similar last), then the interaction; the paper's layout (top k over
seeds and lessons together, most similar last) is the `paper` preset. `ours` and
`ours_no_learning` differ only in learning: with no lesson their prompts are equal.

The memory (ChromaDB, the embedding model), the worlds and the harness are real; only the LLM
is scripted."""
from dataclasses import replace
from pathlib import Path

import pytest

from llm_interaction_node.core.llm.usage import estimate_tokens
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.order import (
    LearnedOrder,
    Order,
    learned_order,
    nearest_within,
    seed_block,
    stable_order,
)
from llm_interaction_node.core.memory.records import Example
from llm_interaction_node.core.memory.source import ExampleSource
from llm_interaction_node.core.memory.store import ExampleMemory
from llm_interaction_node.eval.harness import plan, run_once, run_seed
from llm_interaction_node.eval.oracle import OracleLLM
from llm_interaction_node.eval.systems import make_system
from llm_interaction_node.eval.systems.variants import VARIANTS
from llm_interaction_node.eval.tasks import make_task

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "config" / "transcripts" / "tabletop"
REQUESTS = ["put the red block in the blue bowl", "stack all the blocks on the top right corner",
            "which bowl is the highest?", "move the green block 5 cm to the left of the bowl"]


def dialog(text: str, statement: str = "get_obj_names()") -> str:
    return (f">>> wait_for_trigger()\n{{'type': 'dialog', 'text': {text!r}}}\n>>> {statement}\n"
            ">>> wait_for_trigger()")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A tabletop store with its seed examples (shared, read-only: copies are reopened)."""
    path = tmp_path_factory.mktemp("layout")
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(path / "m"), k=3))
    memory.seed_from(SEEDS)
    return memory


def reopen(memory: ExampleMemory, **config) -> ExampleMemory:
    return ExampleMemory("tabletop", replace(memory.config, **config))


def test_the_default_layout_is_the_seed_block_then_the_learned_examples():
    assert MemoryConfig().order is Order.SEED_BLOCK and Order.SEED_BLOCK.fixed
    assert VARIANTS["paper"].order == "similarity"


def test_the_seeds_are_the_same_whatever_the_utterance(seeded):
    """No lesson yet: every prompt holds all seed examples in the central-first order, the
    start-up prefill (no utterance) included."""
    seeds = seeded.list("seed")
    central = seeded.seed_centrality()
    block = seeded.prompt_examples([])
    assert {e.id for e in block} == {e.id for e in seeds} and len(block) == len(seeds) == 25
    assert [e.id for e in block] == [e.id for e in stable_order(seeds, central)]
    ranks = [central[e.origin] for e in block]
    assert ranks == sorted(ranks, reverse=True)
    for request in REQUESTS:
        assert [e.id for e in seeded.prompt_examples([request])] == [e.id for e in block]
    assert [e.id for e in seeded.prompt_examples(REQUESTS[:3])] == [e.id for e in block]


def test_learned_examples_come_after_the_seeds_most_similar_last(seeded, tmp_path):
    """memory.learned_order similarity: the top k learned examples (k = 3 of 4), scored as
    retrieve() scores, among the learned ones only, most similar last; the seed block before
    them does not change."""
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m"), k=3,
                                                    learned_order=LearnedOrder.SIMILARITY))
    memory.seed_from(SEEDS)
    block = [e.id for e in memory.seed_block()]
    lessons = {memory.add(dialog(text), "learned", origin=f"lesson{n}").id: text
               for n, text in enumerate(["put the red block in the blue bowl please",
                                         "stack the blocks in the corner",
                                         "which bowl is on top",
                                         "say hello to the user"])}
    for request in REQUESTS:
        got = memory.prompt_examples([request])
        assert [e.id for e in got[:len(block)]] == block
        learned = got[len(block):]
        assert len(learned) == 3 and all(e.id in lessons for e in learned)
        # the same as the top 3 of the learned ones in a retrieval over the whole store
        ranked = [e.id for e, _ in memory.retrieve([request], 64) if e.source != "seed"]
        assert [e.id for e in learned] == ranked[-3:]
        assert memory.retrieve_learned([request]) == learned
    nearest = memory.prompt_examples(["put the red block in the blue bowl"])[-1]
    assert lessons[nearest.id] == "put the red block in the blue bowl please"
    # the start-up prefill: the seed block alone, which every request's prompt starts with
    assert [e.id for e in memory.prompt_examples([])] == block
    assert reopen(memory, k=0).prompt_examples([REQUESTS[0]]) == memory.seed_block()


def test_by_default_the_lessons_keep_the_order_they_were_stored_in_the_nearest_again_last(
        tmp_path):
    """memory.learned_order stored_nearest (the default): the top k learned examples in the
    order they were stored, then the most similar one again unless it is last already; the
    query-independent head (no utterance: what the agent prefills) is the seed block and the
    first k lessons in stored order, and every request's prompt starts with all of it while
    the store holds at most k lessons."""
    assert MemoryConfig().learned_order is LearnedOrder.STORED_NEAREST
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m"), k=3))
    memory.seed_from(SEEDS)
    block = [e.id for e in memory.seed_block()]
    texts = ["put the red block in the blue bowl please", "stack the blocks in the corner",
             "which bowl is on top"]
    stored = [memory.add(dialog(text), "learned", origin=f"lesson{n}").id
              for n, text in enumerate(texts)]
    assert [e.id for e in memory.prompt_examples([])] == block + stored
    for request, nearest in [("put the red block in the blue bowl", stored[0]),
                             ("stack all the blocks on the top right corner", stored[1]),
                             ("which bowl is the highest?", stored[2])]:
        got = [e.id for e in memory.prompt_examples([request])]
        assert memory.retrieve_learned([request])[-1].id == nearest
        again = [] if nearest == stored[-1] else [nearest]
        assert got == block + stored + again, request
    # a fourth lesson, memory.tail_tokens 0: k = 3 of 4, so each request holds its top 3,
    # still in stored order
    assert not memory.beyond_head()
    stored.append(memory.add(dialog("say hello to the user"), "learned", origin="lesson3").id)
    kept_order = reopen(memory, tail_tokens=0)
    assert [e.id for e in kept_order.prompt_examples([])] == block + stored[:3]
    for request in REQUESTS:
        top = [e.id for e in kept_order.retrieve_learned([request])]
        got = [e.id for e in kept_order.prompt_examples([request])][len(block):]
        in_order = [i for i in stored if i in top]
        assert got == in_order + ([] if in_order[-1] == top[-1] else [top[-1]])
    # by default (tail_tokens > 0) more lessons than k leave the head to the seed block, and a
    # request gets its top k, most similar last (the source keeps the nearest that fit)
    assert memory.beyond_head() and not kept_order.beyond_head()
    assert [e.id for e in memory.prompt_examples([])] == block
    for request in REQUESTS:
        assert memory.prompt_examples([request]) == \
            memory.seed_block() + memory.retrieve_learned([request])
    # the unit: stored order by creation time, the nearest (last found) repeated once
    found = memory.retrieve_learned(["put the red block in the blue bowl"])
    assert [e.id for e in learned_order(found, LearnedOrder.STORED_NEAREST)][:-1] == \
        [i for i in stored if i in {e.id for e in found}]
    assert learned_order(found, LearnedOrder.SIMILARITY) == found
    assert learned_order([], LearnedOrder.STORED_NEAREST) == []
    assert reopen(memory, learned_order=LearnedOrder.SIMILARITY).prompt_examples([]) == \
        memory.seed_block()


def test_the_nearest_lessons_within_the_budget_seeds_kept():
    """order.nearest_within: the seeds, then of the lessons (most similar last) the nearest
    always and those before it while they fit, none after a gap."""
    texts = ["seed a", "seed b", "l1 " * 10, "l2 " * 10, "l3 " * 10]
    learned = [False, False, True, True, True]
    size = lambda text: len(text.split())                                  # noqa: E731
    assert nearest_within(texts, learned, 20, size) == (
        ["seed a", "seed b", "l2 " * 10, "l3 " * 10], [False, False, True, True])
    assert nearest_within(texts, learned, 5, size) == (
        ["seed a", "seed b", "l3 " * 10], [False, False, True])
    assert nearest_within(texts[:2], learned[:2], 5, size) == (texts[:2], learned[:2])


def test_beyond_the_head_a_request_is_shown_its_nearest_lessons_within_tail_tokens(tmp_path):
    """Issue 43, scale: with more lessons than k the prompt after the seed block is the
    request's nearest lessons within memory.tail_tokens, whatever else is stored (measured
    before: 50 lessons, 10 shown in stored order, 1,141 tokens evaluated before the first
    statement); the head the agent prefills is the seed block."""
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m"), k=3,
                                                    tail_tokens=80))
    memory.seed_from(SEEDS)
    seeds = [e.transcript for e in memory.seed_block()]
    texts = ["put the red block in the blue bowl please", "stack the blocks in the corner",
             "which bowl is on top", "say hello to the user", "wave at the user"]
    lessons = {memory.add(dialog(text), "learned", origin=f"lesson{n}").transcript: text
               for n, text in enumerate(texts)}
    source = ExampleSource(memory, names=lambda: ["red block", "blue bowl"])
    assert source.head() == seeds
    for request in REQUESTS:
        shown = source([request])
        assert shown[:len(seeds)] == seeds
        tail = shown[len(seeds):]
        nearest = memory.retrieve_learned([request])[-1].transcript
        assert tail and tail[-1] == nearest == source.nearest_lesson
        assert all(t in lessons for t in tail) and len(tail) == 1    # two do not fit 80
        assert 40 < estimate_tokens(tail[0]) <= 80
    pair = ExampleSource(reopen(memory, tail_tokens=100), names=lambda: [])
    assert len(pair([REQUESTS[0]])) == len(seeds) + 2
    wide = ExampleSource(reopen(memory, tail_tokens=10_000), names=lambda: [])
    assert len(wide([REQUESTS[0]])) == len(seeds) + 3          # the top k


class AsksItself:
    """The store as it was before the example source handed it its asking: its layout asks
    ``beyond_head`` itself (the reference the shown examples are compared with)."""

    def __init__(self, memory):
        self.memory = memory

    def prompt_examples(self, utterances, k=None, beyond=None):
        return self.memory.prompt_examples(utterances, k)

    def __getattr__(self, name):
        return getattr(self.memory, name)


def test_one_request_asks_the_store_once_whether_it_holds_more_lessons_than_the_head(
        tmp_path, monkeypatch):
    """``ExampleMemory.beyond_head`` counts the Chroma store twice; the example source asks it
    once per request and hands the answer to the store's layout (both asked it before), with
    as many lessons as k and with more; the head a model prefills asks it once too. Spies wrap
    the real store's methods; what is shown is what the store's own asking shows."""
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m"), k=2,
                                                    tail_tokens=80))
    memory.seed_from(SEEDS)
    asked, counted = [], []
    real_beyond, real_count = memory.beyond_head, memory.count
    monkeypatch.setattr(memory, "beyond_head", lambda k=None: asked.append(k) or real_beyond(k))
    monkeypatch.setattr(memory, "count", lambda s=None: counted.append(s) or real_count(s))
    names = lambda: ["red block", "blue bowl"]                             # noqa: E731
    texts = ["put the red block in the blue bowl please", "stack the blocks in the corner",
             "which bowl is on top"]
    for n, text in enumerate(texts, start=1):
        memory.add(dialog(text), "learned", origin=f"lesson{n}")
        source = ExampleSource(memory, names=names)
        reference = ExampleSource(AsksItself(memory), names=names)
        for request in REQUESTS:
            asked.clear(), counted.clear()
            shown = source([request])
            assert (len(asked), len(counted)) == (1, 2), (n, request)
            assert shown == reference([request]) and len(asked) > 1
            assert source.nearest_lesson == reference.nearest_lesson
        assert real_beyond() is (n > 2)
        asked.clear()
        assert source.head() == reference.head() and len(asked) == 2


def test_a_seed_block_over_budget_keeps_the_most_central_seeds_that_fit(seeded):
    """memory.seed_tokens: the block holds the most central seeds that fit, skipping one that
    does not, and is the same for every request (never a per-request selection)."""
    def ex(name, size):
        return Example(id=name, transcript="x " * size, source="seed", origin=name)
    central = {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}
    examples = [ex("d", 10), ex("c", 10), ex("b", 50), ex("a", 30)]
    size = lambda text: len(text.split())                                      # noqa: E731
    assert [e.id for e in seed_block(examples, central, 100, size)] == ["a", "b", "c", "d"]
    assert [e.id for e in seed_block(examples, central, 60, size)] == ["a", "c", "d"]
    assert [e.id for e in seed_block(examples, central, 29, size)] == ["c", "d"]
    assert seed_block(examples, central, 0, size) == []

    from llm_interaction_node.core.llm import estimate_tokens
    everything = seeded.seed_block()
    total = sum(estimate_tokens(e.transcript) for e in everything)
    assert total <= MemoryConfig().seed_tokens, "the default budget holds every seed"
    small = reopen(seeded, seed_tokens=total // 2)
    block = small.seed_block()
    assert 0 < len(block) < len(everything)
    assert sum(estimate_tokens(e.transcript) for e in block) <= total // 2
    assert [e.id for e in block] == [e.id for e in everything if e in block]   # central first
    for n, left_out in enumerate(everything):        # a seed is left out only if it did not
        if left_out not in block:                    # fit beside the more central ones kept
            kept = sum(estimate_tokens(e.transcript) for e in everything[:n] if e in block)
            assert kept + estimate_tokens(left_out.transcript) > total // 2
    for request in REQUESTS:
        assert [e.id for e in small.prompt_examples([request])] == [e.id for e in block]


def test_the_papers_layout_stays_a_setting(seeded, tmp_path):
    """memory.order similarity (the `paper` preset): the top k over seeds and lessons
    together, most similar last; no query-independent head for the start-up prefill."""
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m"), k=5,
                                                    order=Order.SIMILARITY))
    memory.seed_from(SEEDS)
    lesson = memory.add(dialog("put the red block in the blue bowl please"), "learned")
    got = memory.prompt_examples(["put the red block in the blue bowl"])
    assert [e.id for e in got] == [e.id for e, _ in memory.retrieve(
        ["put the red block in the blue bowl"], 5)]
    assert len(got) == 5 and got[-1].id == lesson.id and any(e.source == "seed" for e in got)
    assert memory.prompt_examples([]) == []
    paper = make_system("paper", OracleLLM([]), tmp_path / "paper")
    assert paper.settings.memory.order is Order.SIMILARITY and paper.settings.memory.k == 16
    k64 = make_system("paper_no_learning", OracleLLM([]), tmp_path / "paper64")
    assert (k64.settings.memory.order, k64.settings.memory.k, k64.settings.learning.mode) == \
        (Order.SIMILARITY, 64, "off")


TEMPLATES = ["block_in_bowl", "blocks_in_bowl"]


def console_prompts_per_run(name, tmp_path, fail_first=()):
    """Each run's console prompts (in protocol order) of system ``name`` with the oracle."""
    tasks = [make_task(t, s, run_seed(0, s, t, r)) for s, r, t in plan(["sa_si"], 2, TEMPLATES)]
    llm = OracleLLM(tasks, fail_first=[tasks[i].instruction for i in fail_first])
    system = make_system(name, llm, tmp_path / name / "memory")
    runs = []
    for split, round_, template in plan(["sa_si"], 2, TEMPLATES):
        before = len(llm.prompts)
        record = run_once(system, split, template, round_, run_seed(0, split, template, round_),
                          max_rounds=3)
        runs.append(([p for p in llm.prompts[before:] if p.rstrip().endswith(">>>")],
                     record, system.memory.count("learned")))
    return runs


def test_ours_before_any_lesson_prompts_exactly_as_ours_no_learning(tmp_path):
    """The same scenes, run by run: with no lesson the two systems see the same prompts (the
    same seed block, the same statements), so they act the same."""
    ours = console_prompts_per_run("ours", tmp_path)
    base = console_prompts_per_run("ours_no_learning", tmp_path)
    assert len(ours) == len(base) == 4
    for (a, ra, learned), (b, rb, _) in zip(ours, base, strict=True):
        assert learned == 0 and a and a == b
        assert ra.success == rb.success and ra.first_success == rb.first_success
        assert ra.transcripts == rb.transcripts
        assert ra.startup_s is not None and ra.first_statement_s is not None
        assert a[0].count("# Example ") == 25


def test_a_lesson_is_the_only_difference(tmp_path):
    """The first instruction fails first, ours learns after the feedback: up to the learn call
    both prompt alike; after it ours' prompts hold the seed block, then the lesson."""
    ours = console_prompts_per_run("ours", tmp_path, fail_first=[0])
    base = console_prompts_per_run("ours_no_learning", tmp_path, fail_first=[0])
    first_a, first_b = ours[0][0], base[0][0]
    learn = next(i for i, p in enumerate(first_a)
                 if ">>> learn_from_interaction()" in p.split("# Current interaction:")[-1])
    assert learn > 0 and first_a[:learn] == first_b[:learn]
    assert ours[0][2] == 1 and base[0][2] == 0, "ours stored the lesson, the ablation did not"
    seeds_then_lesson, no_lesson = ours[1][0][0], base[1][0][0]
    assert no_lesson.count("# Example ") == 25 and seeds_then_lesson.count("# Example ") == 26
    block_text = no_lesson.split("\n# Current interaction:")[0]
    assert seeds_then_lesson.startswith(block_text + "\n# Example 26:\n")


def test_the_targets_are_read_from_the_run_records():
    """bench.prompt_prefix over the 5-run benchmark of issue 17 (docs/eval/learning_5runs):
    the numbers issue 26 starts from (ours 112 s median per run, ours_no_learning 20 s)."""
    from llm_interaction_node.bench.prompt_prefix import same_runs, summary
    runs = ROOT / "docs" / "eval" / "learning_5runs"
    ours, base = summary(runs / "ours"), summary(runs / "ours_no_learning")
    assert (ours["runs"], ours["wall_median_s"], base["wall_median_s"]) == (20, 111.7, 19.8)
    assert ours["lessons"] == 0 and ours["after_lesson"] == []
    taught = summary(runs / "ours_final_teaching")
    assert taught["lessons"] == 3 and [x["run"] for x in taught["after_lesson"]] == \
        ["blocks_in_bowl/2", "blocks_in_bowl/3", "matching_bowls/5"]
    pair = same_runs(runs / "ours", runs / "ours_no_learning")
    assert pair["compared"] == 20 and pair["same_first_transcript"] < 20   # the old layout

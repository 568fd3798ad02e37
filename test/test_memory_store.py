"""The example memory on ChromaDB: storing, indexing, retrieval order and scoring, forgetting,
seeding, YAML export/import, reopening from another process."""
from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from llm_interaction_node.core.memory import retrieval
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.embedding import embed
from llm_interaction_node.core.memory.records import Example
from llm_interaction_node.core.memory.store import ExampleMemory

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "config" / "transcripts" / "humanoid"


def dialog(*utterances: str, asks: int = 0) -> str:
    """A console transcript in which the user says ``utterances`` (the last ``asks`` of them
    as answers to ask())."""
    lines = []
    for n, text in enumerate(utterances):
        if n >= len(utterances) - asks:
            lines += [">>> ask('What do you mean?')", repr(text)]
        else:
            lines += [">>> wait_for_trigger()", repr({"type": "dialog", "text": text})]
        lines += [f">>> say('Ok: {n}')"]
    lines.append(">>> wait_for_trigger()")
    return "\n".join(lines)


def records(memory: ExampleMemory) -> dict:
    return memory.collection.get(include=["documents", "metadatas"])


def test_add_get_list_count_delete_reset(memory):
    seed = memory.add(dialog("bring me the milk"), "seed", origin="milk.txt")
    learned = memory.add(dialog("put the cup on the table"), "learned", origin="run-7",
                         problem="The robot put the cup on the floor.",
                         improvement="Place objects on the named table.")
    raw = memory.add(dialog("hand me the sponge"), "raw")
    assert isinstance(learned, Example) and learned.id != seed.id

    got = memory.get(learned.id)
    assert got == learned
    assert got.source == "learned" and got.origin == "run-7"
    assert got.problem == "The robot put the cup on the floor."
    assert got.improvement == "Place objects on the named table."
    assert got.utterances == ("put the cup on the table",)
    assert got.transcript == dialog("put the cup on the table")
    assert memory.get(seed.id).problem is None and memory.get(seed.id).improvement is None
    assert seed.created <= learned.created <= raw.created

    assert [e.id for e in memory.list()] == [seed.id, learned.id, raw.id]
    assert [e.id for e in memory.list("learned")] == [learned.id]
    assert (memory.count(), memory.count("seed"), memory.count("raw"), memory.count("episode")) \
        == (3, 1, 1, 0)

    with pytest.raises(KeyError, match="no example with id 'nope'"):
        memory.get("nope")
    with pytest.raises(ValueError, match="source"):
        memory.add(dialog("x"), "invented")
    with pytest.raises(ValueError, match="no console input"):
        memory.add("just prose", "learned")

    assert memory.delete([learned.id, "nope"]) == 1
    assert memory.count() == 2 and not memory.has(learned.id)
    assert len(records(memory)["ids"]) == 2           # all its records went with it
    memory.reset()
    assert memory.count() == 0 and memory.retrieve(["bring me the milk"]) == []


def test_every_user_utterance_is_indexed(memory):
    text = dialog("bring me a drink", "the orange juice please", "yes, in a glass", asks=2)
    example = memory.add(text, "learned")
    assert example.utterances == ("bring me a drink", "the orange juice please", "yes, in a glass")
    found = records(memory)
    assert sorted(found["documents"]) == sorted(example.utterances)
    metas = found["metadatas"]
    assert {m["example_id"] for m in metas} == {example.id}
    assert sorted(m["rec"] for m in metas) == [0, 1, 2] and {m["n_rec"] for m in metas} == {3}
    assert sum("transcript" in m for m in metas) == 1            # the primary record
    assert len({m["digest"] for m in metas}) == 1

    other = memory.add(dialog("wipe the kitchen counter"), "learned")
    for utterance in example.utterances:                          # each one finds it
        assert memory.retrieve([utterance], k=1)[0][0].id == example.id
    assert memory.retrieve(["clean the counter"], k=1)[0][0].id == other.id

    silent = memory.add(">>> say('I am ready')\n>>> wait_for_trigger()", "episode")
    assert silent.utterances == () and silent.keys == ("say('I am ready')",)
    assert memory.retrieve(["say that you are ready"], k=1)[0][0].id == silent.id


def test_retrieval_order_unique_examples_and_k(memory):
    assert memory.retrieve(["anything"]) == []                    # empty memory
    drinks = memory.add(dialog("bring me a glass of orange juice", "I want orange juice",
                               "orange juice in a glass please"), "learned")
    for text in ["put the screwdriver on the workshop bench", "wipe the dining table",
                 "take the tape measure from me", "bring me the milk carton",
                 "move slowly, the floor is wet"]:
        memory.add(dialog(text), "seed")
    results = memory.retrieve(["a glass of orange juice please"])
    ids = [e.id for e, _ in results]
    assert len(ids) == len(set(ids)) == 6                         # unique, k=16 > stored
    assert ids[-1] == drinks.id                                   # most similar LAST
    scores = [s for _, s in results]
    assert scores == sorted(scores)                               # ascending
    assert memory.retrieve(["a glass of orange juice please"], k=2)[-1][0].id == drinks.id
    assert len(memory.retrieve(["a glass of orange juice please"], k=2)) == 2
    assert memory.retrieve(["a glass of orange juice please"], k=0) == []
    assert memory.retrieve([]) == [] and memory.retrieve(["  "]) == []
    small = ExampleMemory("humanoid", MemoryConfig(path=memory.config.path, k=3))
    assert len(small.retrieve(["juice"])) == 3                    # configured k


@pytest.fixture
def per_utterance(tmp_path) -> ExampleMemory:
    return ExampleMemory("humanoid", MemoryConfig(path=str(tmp_path / "memory"),
                                                  scoring="per_utterance"))


@pytest.mark.parametrize("scoring", ["reference", "per_utterance"])
def test_newest_utterance_dominates(tmp_path, scoring):
    memory = ExampleMemory("humanoid", MemoryConfig(path=str(tmp_path / "m"), scoring=scoring))
    juice = memory.add(dialog("bring me the mango juice"), "learned")
    tool = memory.add(dialog("bring me the screwdriver"), "learned")
    memory.add(dialog("thank you"), "learned")
    assert memory.retrieve(["bring me the mango juice", "bring me the screwdriver"])[-1][0].id \
        == tool.id
    assert memory.retrieve(["bring me the screwdriver", "bring me the mango juice"])[-1][0].id \
        == juice.id
    # only the latest query_utterances (3) count: an old 4th one is ignored
    a = memory.retrieve(["bring me the screwdriver", "hello", "hi", "bring me the mango juice"])
    b = memory.retrieve(["hello", "hi", "bring me the mango juice"])
    assert [(e.id, round(s, 5)) for e, s in a] == [(e.id, round(s, 5)) for e, s in b]
    q = embed(["bring me the mango juice", "bring me the screwdriver"])
    key = embed(["bring me the mango juice"])[0]
    if scoring == "per_utterance":     # the recency-weighted sum of best similarities
        expected = float(q[0] @ key) + 0.6 * float(q[1] @ key)
    else:                              # cos of the recency-weighted query sum with the best key
        mixed = q[0] + 0.6 * q[1]
        expected = float(mixed @ key) / float(np.linalg.norm(mixed))
    got = dict((e.id, s) for e, s in memory.retrieve(["bring me the screwdriver",
                                                      "bring me the mango juice"]))
    assert got[juice.id] == pytest.approx(expected, abs=1e-4)


def brute_force(memory: ExampleMemory, utterances, k):
    found = memory.collection.get(include=["embeddings", "metadatas"])
    keys: dict[str, list] = {}
    for vec, meta in zip(found["embeddings"], found["metadatas"], strict=False):
        keys.setdefault(meta["example_id"], []).append(vec)
    query = retrieval.query_utterances(utterances, memory.config.query_utterances)
    vectors, weights = embed(query), retrieval.recency_weights(len(query), 0.6)
    keys = {e: np.asarray(v, dtype=np.float32) for e, v in keys.items()}
    if memory.config.scoring == "per_utterance":
        scores = retrieval.score_examples(vectors, weights, keys)
    else:                   # the reference score: cos of the weighted query sum, best key
        mixed = retrieval.mixed_query(vectors, weights)
        scores = {e: float(np.max(v @ mixed)) for e, v in keys.items()}
    return retrieval.top_k_ascending(scores, k)


@pytest.mark.parametrize("scoring", ["reference", "per_utterance"])
def test_retrieval_equals_brute_force_beyond_the_nearest_records(tmp_path, scoring):
    memory = ExampleMemory("humanoid", MemoryConfig(path=str(tmp_path / "m"), scoring=scoring))
    rng = random.Random(3)
    things = ["cup", "juice", "milk", "sponge", "screwdriver", "tape measure", "apple", "towel"]
    places = ["table", "counter", "bench", "shelf", "sink"]
    batch = []
    for n in range(70):       # 70 examples, ~170 records: more than the 32 nearest per query
        said = [f"put the {rng.choice(things)} on the {rng.choice(places)}"]
        said += [rng.choice(["thanks", "no, the other one", f"the {rng.choice(things)} too",
                             "faster please"]) + f" ({n})" for _ in range(rng.randrange(3))]
        batch.append(memory.make_example(dialog(*said), "learned"))
    memory.write(batch)
    for window in (["put the cup on the bench", "thanks", "the milk too"],
                   ["faster please", "put the towel on the sink"], ["no, the other one"]):
        got = memory.retrieve(window, k=4)
        want = brute_force(memory, window, 4)
        exact = dict(brute_force(memory, window, 1000))
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-4)
        for example, score in got:        # the same examples, up to ties of equal keys
            assert exact[example.id] == pytest.approx(score, abs=1e-4)


def test_large_store_path_scores_exactly_what_it_returns(per_utterance, monkeypatch):
    """Beyond EXACT_RECORDS the top k comes from the candidates, with a fetch budget; the
    scores it reports must still be the exact ones."""
    from llm_interaction_node.core.memory import strategies

    memory = per_utterance
    rng = random.Random(5)
    things = ["cup", "juice", "milk", "sponge", "screwdriver", "apple", "towel", "book"]
    memory.write([memory.make_example(dialog(
        f"bring the {rng.choice(things)} to the {rng.choice(['table', 'bench', 'sink'])}",
        *[f"{rng.choice(things)} please, {n}" for _ in range(rng.randrange(3))]), "learned")
        for n in range(60)])
    monkeypatch.setattr(strategies, "EXACT_RECORDS", 0)
    monkeypatch.setattr(strategies, "FETCH_PER_K", 1)
    window = ["milk please", "bring the towel to the sink"]
    got = memory.retrieve(window, k=5)
    exact = dict(brute_force(memory, window, 1000))
    assert len(got) == 5 and len({e.id for e, _ in got}) == 5
    for example, score in got:
        assert score == pytest.approx(exact[example.id], abs=1e-4)
    assert [s for _, s in got] == sorted(s for _, s in got)
    assert got[-1][0].id == max(exact, key=exact.get)


def test_hits_bounds():
    # two utterances, 2 results each (full lists); example b is missing for utterance 1
    hits = retrieval.Hits.collect([["a#0/2/x", "b#0/1/y"], ["a#1/2/x", "c#0/1/z"]],
                                  [[0.1, 0.2], [0.3, 0.6]], per_query=2, extra_ids=[["d#0/1/w"]])
    assert hits.ids == ["a", "b", "c", "d"]
    assert hits.floor == pytest.approx([0.8, 0.4])
    weights = retrieval.recency_weights(2, 0.5)
    exact, upper = hits.split(weights)
    assert exact == pytest.approx({"a": 0.9 + 0.5 * 0.7})
    assert upper == pytest.approx({"b": 0.8 + 0.5 * 0.4, "c": 0.8 + 0.5 * 0.4, "d": 0.8 + 0.2})
    assert hits.unseen_bound(weights) == pytest.approx(0.8 + 0.2)
    assert retrieval.kth_best(exact, 1) == pytest.approx(1.25)
    assert retrieval.kth_best(exact, 2) == -np.inf
    assert retrieval.top_k_ascending({"a": 1.0, "b": 3.0, "c": 2.0}, 2) == [("c", 2.0), ("b", 3.0)]
    assert retrieval.query_utterances(["old", "", "mid", "new"], 2) == ["new", "mid"]


def test_forget_removes_learned_about_a_topic_but_not_seeds(memory):
    seed = memory.add(dialog("bring me the orange juice"), "seed")
    juice = memory.add(dialog("get me something to drink"), "learned",
                       problem="The robot brought milk instead of orange juice.",
                       improvement="Ask which drink the user wants.")
    raw = memory.add(dialog("a glass of orange juice please"), "raw")
    tool = memory.add(dialog("put the screwdriver on the workshop bench"), "learned")
    removed = memory.forget("orange juice")
    assert {e.id for e in removed} == {juice.id, raw.id}
    assert {e.id for e in memory.list()} == {seed.id, tool.id}
    assert memory.forget("orange juice") == []
    assert [e.id for e in memory.forget("orange juice", include_seed=True)] == [seed.id]
    assert [e.id for e in memory.list()] == [tool.id]
    with pytest.raises(ValueError):
        memory.forget("  ")


def test_seed_from_is_idempotent(memory, tmp_path):
    folder = tmp_path / "seeds"
    folder.mkdir()
    files = sorted(SEEDS.glob("*.txt"))[:3]
    for f in files:
        shutil.copy(f, folder / f.name)
    (folder / "notes.md").write_text("not a transcript")
    assert memory.seed_from(folder) == 3
    assert memory.seed_from(folder) == 0
    stored = {e.origin: e for e in memory.list("seed")}
    assert set(stored) == {f.name for f in files}
    first = stored[files[0].name]
    assert first.transcript.startswith(">>> ") and "# world:" not in first.transcript
    (folder / "extra.txt").write_text(dialog("water the plants"))
    assert memory.seed_from(folder) == 1 and memory.count("seed") == 4
    with pytest.raises(FileNotFoundError):
        memory.seed_from(tmp_path / "missing")


def test_threads_that_seed_write_forget_and_retrieve_at_once_lose_nothing(memory):
    """The interaction node retrieves in the agent's thread while the learn and memory
    services write from another: every public operation holds the memory's lock."""
    def together(*jobs):
        barrier = threading.Barrier(len(jobs))
        errors = []

        def run(job):
            barrier.wait()
            try:
                job()
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
        threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not any(t.is_alive() for t in threads), "a thread hangs (deadlock?)"
        assert not errors, errors

    # four "first opens" at once: every seed transcript is stored exactly once
    together(*[lambda: memory.seed_from(SEEDS)] * 4)
    n_seeds = len(list(SEEDS.glob("*.txt")))
    assert memory.count("seed") == n_seeds
    assert len({e.origin for e in memory.list("seed")}) == n_seeds

    added, removed, retrieved = [], [], []

    def learn(tag):
        for i in range(6):
            added.append(memory.add(dialog(f"bring me the {tag} number {i}"), "learned"))

    def forget():
        for _ in range(3):
            removed.extend(memory.forget("bring me the sponge number", threshold=0.8))

    def retrieve():
        for _ in range(6):
            retrieved.append(memory.retrieve(["bring me the mug number 2"], 4))

    together(lambda: learn("mug"), lambda: learn("sponge"), forget, retrieve,
             lambda: [memory.list() for _ in range(5)])
    assert memory.count("learned") == len(added) - len(removed) == len(memory.list("learned"))
    assert all(len(found) == 4 for found in retrieved)
    assert memory.count("seed") == n_seeds


def test_export_import_round_trip(memory, tmp_path):
    a = memory.add(dialog("bring me the milk", "thanks"), "seed", origin="milk.txt")
    b = memory.add(dialog("wipe the table"), "learned", origin="run-3", problem="Missed a spot.",
                   improvement="Wipe twice.")
    path = tmp_path / "memory.yaml"
    assert memory.export_yaml(path) == 2
    text = path.read_text()
    assert "transcript: |" in text and "  >>> wait_for_trigger()" in text   # block scalars
    other = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "other")))
    assert other.import_yaml(path) == 2
    assert other.import_yaml(path) == 0                            # ids already present
    assert [other.get(e.id) for e in (a, b)] == [a, b]
    assert other.retrieve(["please wipe the table"], k=1)[0][0].id == b.id
    path.write_text("examples: [{source: learned}]")
    with pytest.raises(ValueError, match="transcript"):
        other.import_yaml(path)


def test_an_imported_lesson_keeps_its_reading_author_scope_and_a_habit_s_edit(memory, tmp_path):
    """A habit without its edit is no habit (measured: ``memory import`` dropped the edit, the
    reading, the author and the scope of every lesson)."""
    edit = json.dumps({"op": "after", "when": {"skill": "request", "thing": "any",
                                                "place": None}, "statements": ['say("Bye.")']})
    habit = memory.add(dialog("bring me the milk", "say bye when you are done"), "habit",
                       origin="run-1", reading='{"clauses": []}', author="edit", scope="rule",
                       edit=edit)
    path = tmp_path / "memory.yaml"
    memory.export_yaml(path)
    other = ExampleMemory("humanoid", MemoryConfig(path=str(tmp_path / "other")))
    assert other.import_yaml(path) == 1
    got = other.get(habit.id)
    assert (got.edit, got.reading, got.author, got.scope) == \
        (edit, '{"clauses": []}', "edit", "rule")


REOPEN = textwrap.dedent("""
    import json, sys
    import chromadb
    from chromadb.config import Settings
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.store import ExampleMemory
    memory = ExampleMemory("humanoid", MemoryConfig(path=sys.argv[1]))
    print("loaded before retrieve:", "sentence_transformers" in sys.modules, file=sys.stderr)
    results = memory.retrieve(["could you bring me a glass of orange juice"], k=1)
    # plain chromadb, no embedding function passed: the registered one is found by name
    client = chromadb.PersistentClient(path=sys.argv[1], \
settings=Settings(anonymized_telemetry=False))
    raw = client.get_collection("examples_humanoid").query(
        query_texts=["could you bring me a glass of orange juice"], n_results=1,
        include=["metadatas"])
    print(json.dumps({"retrieved": [e.id for e, _ in results],
                      "raw": raw["metadatas"][0][0]["example_id"]}))
""")


def test_a_new_process_reopens_the_store(memory, tmp_path):
    juice = memory.add(dialog("bring me a glass of orange juice"), "learned")
    memory.add(dialog("put the screwdriver away"), "learned")
    done = subprocess.run([sys.executable, "-c", REOPEN, memory.config.path], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["retrieved"] == [juice.id] and out["raw"] == juice.id
    assert "loaded before retrieve: False" in done.stderr       # the model loads on first use


def test_prompt_order_is_fixed_central_seeds_first_and_the_nearest_again_last(tmp_path):
    """memory.order stable_nearest: the retrieved set in an order that does not depend on the
    query (seeds most central first, learned ones oldest first), then the most similar again."""
    from llm_interaction_node.core.memory.order import seed_centrality
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m"), k=5,
                                                    order="stable_nearest"))
    memory.seed_from(ROOT / "config" / "transcripts" / "tabletop")
    learned = memory.add(dialog("put all the blocks on the top right corner"), "learned")
    central = memory.seed_centrality()
    assert set(central) == {e.origin for e in memory.list("seed")}
    a = memory.prompt_examples(["put all the blocks on the top right corner"])
    b = memory.prompt_examples(["put all the blocks on the bottom side", "thanks"])
    assert a[-1].id == learned.id and a[-2].id == learned.id     # newest lesson last, and nearest
    for got in (a, b):
        seeds = [e for e in got[:-1] if e.source == "seed"]
        ranks = [central[e.origin] for e in seeds]
        assert ranks == sorted(ranks, reverse=True)
        assert len(got) == 6 and len({e.id for e in got}) == 5
    # the same examples keep their order whatever the query was
    common = [e.id for e in a[:-1] if e.id in {x.id for x in b[:-1]}]
    assert common == [e.id for e in b[:-1] if e.id in set(common)]
    # centrality: an example like many others ranks above a singular one
    keys = {"x": np.eye(3)[:1], "y": np.array([[0.9, 0.1, 0.0]]), "z": np.eye(3)[2:]}
    keys = {k: v / np.linalg.norm(v, axis=1, keepdims=True) for k, v in keys.items()}
    c = seed_centrality(keys)
    assert c["x"] > c["z"] and c["y"] > c["z"]

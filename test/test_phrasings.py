"""Phrasing is a variable of every benchmark (eval/phrasings.py): a wording pool gives the
instructions, the feedback, the requests to learn and the household's words; the development
pool has what the reading issue asks of it; the simulated users, the eval harness and the
correction bench speak from it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_interaction_node.eval import tasks as T
from llm_interaction_node.eval.observe import Fact
from llm_interaction_node.eval.phrasings import (
    BUILT_IN,
    PhrasingsError,
    instruction_fields,
    load_phrasings,
)
from llm_interaction_node.eval.simulated_user import Observation, SimulatedUser

POOL = Path(__file__).resolve().parent.parent / "config" / "phrasings" / "development.yaml"
SA_SI = ("blocks_in_bowl", "matching_bowls", "block_direction_of_bowl", "blocks_on_place",
         "block_distance_to_bowl", "nth_block_from_direction")


def test_the_development_pool_has_what_the_issue_asks():
    pool = load_phrasings(POOL)
    assert all(len(pool.instructions[t]) >= 6 for t in SA_SI)
    assert sum(len(v) for v in pool.feedback.values()) >= 30
    assert len(pool.learn) >= 8 and len(pool.closing) >= 8
    assert pool.label.startswith("development.yaml@") and BUILT_IN.label == "built-in"


def test_run_r_of_a_template_takes_wording_r_minus_1_mod_n_for_every_system():
    pool = load_phrasings(POOL)
    task = T.make_task("blocks_in_bowl", "sa_si", 5)
    wordings = pool.instructions["blocks_in_bowl"]
    fields = instruction_fields(task)
    for run in range(1, 2 * len(wordings) + 1):
        assert pool.instruction(task, run) == wordings[(run - 1) % len(wordings)].format(**fields)
    assert BUILT_IN.instruction(task, 3) == task.instruction
    assert SimulatedUser(task, phrasings=pool, run=2).first().text == pool.instruction(task, 2)


def test_every_wording_of_the_pool_fills_from_its_template():
    pool = load_phrasings(POOL)
    for template, wordings in pool.instructions.items():
        for seed in range(3):
            task = T.make_task(template, "sa_si", seed)
            for run in range(1, len(wordings) + 1):
                text = pool.instruction(task, run)
                assert "{" not in text and text.strip() == text


@pytest.mark.parametrize("text, error", [
    ("instructions:\n  no_such_template: ['x']\n", "no_such_template"),
    ("instructions:\n  blocks_in_bowl: ['put them in the {cup}']\n", "{cup}"),
    ("feedback:\n  forgotten_thing: ['x']\n", "forgotten_thing"),
    ("feedback:\n  missing: ['{colour}']\n", "colour"),
    ("learn: []\n", "learn"),
    ("household:\n  lessons:\n    also_bring: ['bring the {c}']\n", "also_bring"),
    ("wordings: {}\n", "unknown key"),
    ("instructions: [", "not valid YAML"),
])
def test_a_bad_pool_is_refused_with_what_is_wrong(tmp_path, text, error):
    path = tmp_path / "pool.yaml"
    path.write_text(text)
    with pytest.raises(PhrasingsError, match=error.replace("{", r"\{").replace("}", r"\}")):
        load_phrasings(path)


def test_the_simulated_user_speaks_feedback_and_learn_requests_from_the_pool(tmp_path):
    path = tmp_path / "pool.yaml"
    path.write_text("feedback:\n  missing: ['oi, {things} {is} still not {wanted}']\n"
                    "learn: ['now keep that in your head']\nopeners: ['']\nclosers: ['']\n")
    pool = load_phrasings(path)
    user = SimulatedUser(T.make_task("blocks_in_bowl", "sa_si", 1), phrasings=pool)
    user.first()
    said = user.respond(Observation(False, unmet=[
        Fact("missing", ("red block",), "on the table", "in the green bowl")]))
    assert said.text == "Oi, the red block is still not in the green bowl"
    assert user.respond(Observation(True)).text == "now keep that in your head"
    # a kind the pool leaves out is the built-in pool's
    other = SimulatedUser(T.make_task("block_in_bowl", "sa_si", 1), phrasings=pool)
    other.first()
    wrong = other.respond(Observation(False, unmet=[
        Fact("wrong_place", ("red block",), "in the blue bowl", "in the green bowl")]))
    assert wrong.kind == "high_level" and "blue bowl" in wrong.text


@pytest.mark.slow
def test_the_correction_bench_speaks_from_the_pool_and_records_it(tmp_path):
    from llm_interaction_node.bench.corrections import main
    assert main(["--scripted", "--world", "2d", "--scenes", "1", "--templates",
                 "blocks_in_bowl", "--variants", "default", "--phrasings", str(POOL),
                 "--out", str(tmp_path)]) == 0
    [record] = [json.loads(p.read_text()) for p in (tmp_path / "default").glob("*.json")]
    pool = load_phrasings(POOL)
    task = T.make_task(record["template"], "sa_si", record["seed"])
    assert record["phrasings"] == pool.label
    assert record["instruction"] == pool.instruction(task, 1) != task.instruction

"""The lessons-at-scale benchmark (bench/lesson_scale.py, issue 43): what it stores, what it
reports per size, and that its prompts follow the memory's layout. Timings are not asserted.

The memory is a real ChromaDB store with MiniLM; no model runs (the first-statement part runs
with a scripted stand-in, which checks its plumbing only)."""
from __future__ import annotations

import json

import pytest

from llm_interaction_node.bench import lesson_scale
from llm_interaction_node.core.learning.choice import is_choice_lesson
from llm_interaction_node.core.learning.general import is_rule_lesson
from llm_interaction_node.core.learning.scenes_check import RULE, SCENE
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.transcript.transcript import Transcript


@pytest.fixture(scope="module")
def report():
    return lesson_scale.run([0, 3, 9], per_template=1)


def test_the_lessons_are_in_the_forms_the_learner_stores():
    requests = lesson_scale.lesson_requests(16)
    assert [r.template for r in requests[:8]] == list(lesson_scale.QUERIES)
    assert len({r.words for r in requests}) == 16            # worded and placed anew
    for i, request in enumerate(requests):
        text, author, scope = lesson_scale.lesson_transcript(request, i)
        transcript = Transcript.parse(text)
        assert transcript.user_utterances() == [request.words]
        if request.template in ("blocks_in_bowl", "blocks_on_place"):
            assert is_rule_lesson(text) and (author, scope) == ("reading", RULE)
        elif request.template in lesson_scale.SELECTION:
            assert is_choice_lesson(text) == (scope == RULE)
            assert (author, scope) in {("reading", RULE), ("attempt", SCENE)}
        else:
            assert not is_rule_lesson(text) and not is_choice_lesson(text)
            assert (author, scope) == ("attempt", RULE)
    literal = [i for i, r in enumerate(lesson_scale.lesson_requests(32))
               if lesson_scale.lesson_transcript(r, i)[2] == SCENE]
    assert literal == [29, 30, 31]           # every 4th selection lesson: its literal move


def test_each_size_reports_every_instruction_and_the_lessons_it_stored(report):
    assert [s["lessons"] for s in report["sizes"]] == [0, 3, 9]
    assert [s["stored"] for s in report["sizes"]] == [0, 3, 9]
    assert report["queries"] == 8 and report["seeds"] == 25
    for size in report["sizes"]:
        assert len(size["rows"]) == 8 and size["model_rows"] == []
        assert size["summary"]["queries"] == 8
        for row in size["rows"]:
            assert row["lessons_retrieved"] == min(size["lessons"], report["k"])
            assert len(row["lessons"]) == row["lessons_in_prompt"]
    empty = report["sizes"][0]["rows"]
    assert all(r["lessons_in_prompt"] == 0 and r["nearest"] is None for r in empty)
    assert len({r["prompt_tokens"] - r["after_head_tokens"] for r in empty}) == 1   # the seeds


def test_the_prompt_grows_with_the_lessons_it_holds(report):
    """Up to k lessons every lesson of the request's shape is in the prompt (the layout: all
    learned ones retrieved, rules of another shape left out), so a prompt grows with them."""
    before, after = report["sizes"][0]["rows"], report["sizes"][-1]["rows"]
    for a, b in zip(before, after, strict=True):
        assert a["request"] == b["request"]
        assert b["prompt_tokens"] > a["prompt_tokens"]
        assert 1 <= b["lessons_in_prompt"] <= 9 + 1          # the nearest may come again
    medians = [s["summary"]["prompt_tokens"]["median"] for s in report["sizes"]]
    assert medians == sorted(medians) and medians[0] < medians[-1]


def test_memory_k_bounds_the_lessons_in_the_prompt():
    small = lesson_scale.run([4, 12], per_template=1, config={"k": 2},
                             templates=["blocks_in_bowl", "block_on_block"])
    assert small["k"] == 2
    for size in small["sizes"]:
        for row in size["rows"]:
            assert row["lessons_retrieved"] == 2
            assert row["lessons_in_prompt"] <= 3              # k, the nearest again


def test_the_first_statement_part_times_a_session_per_instruction():
    """With a stand-in for the model: one session per instruction, stopped after its first
    console input, which is timed."""
    report = lesson_scale.run([0, 2], per_template=1,
                              llm_factory=lambda: ScriptedLLM(["get_obj_names()"] * 8),
                              templates=["block_in_bowl", "blocks_in_bowl"])
    for size in report["sizes"]:
        assert [r["template"] for r in size["model_rows"]] == ["block_in_bowl", "blocks_in_bowl"]
        assert all(r["first_statement_s"] >= 0 for r in size["model_rows"])
        assert size["summary"]["first_statement_s"]["median"] is not None


def test_main_prints_the_table_and_writes_the_json(tmp_path, capsys):
    out = tmp_path / "scale.json"
    assert lesson_scale.main(["--sizes", "0", "2", "--queries-per-template", "1",
                              "--templates", "block_in_bowl", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "retrieval ms" in printed and "\n      2 " in printed
    data = json.loads(out.read_text())
    assert [s["lessons"] for s in data["sizes"]] == [0, 2]
    assert [len(s["rows"]) for s in data["sizes"]] == [1, 1]
    assert set(lesson_scale.SUMMARIZED) <= set(data["sizes"][1]["summary"])


def test_an_unknown_template_is_named():
    with pytest.raises(ValueError, match="no new instruction written for \\['stacking'\\]"):
        lesson_scale.query_requests(1, ["stacking"])


def test_memory_settings_are_read_and_checked():
    assert lesson_scale.memory_overrides(["k=8", "rules_to_their_kind=false"]) == \
        {"k": 8, "rules_to_their_kind": False}
    with pytest.raises(SystemExit, match="memory"):
        lesson_scale.memory_overrides(["k=-1"])
    with pytest.raises(SystemExit, match="NAME=VALUE"):
        lesson_scale.memory_overrides(["k"])

"""The reading's prompt files load through one loader (core/reading/prompt_file.py): a file of
ours with a broken example says which file and which example, before any model runs."""
from __future__ import annotations

import pytest

from llm_interaction_node.core.reading import check, lasting, other_names
from llm_interaction_node.core.reading.prompt_file import load_prompt_file


def test_an_example_without_a_field_names_the_file_and_the_example(tmp_path):
    path = tmp_path / "lasting.yaml"
    path.write_text("header: |\n  Does it last?\nexamples:\n  - said: hi\n    answer: now\n"
                    "  - said: always do it\n")
    with pytest.raises(ValueError, match=r"lasting.yaml: examples #2 has no answer"):
        lasting.load(str(path))
    path.write_text("- said: hi\n")
    with pytest.raises(ValueError, match="is a mapping"):
        load_prompt_file(path, ("said",))


def test_each_prompt_keeps_its_own_check_of_an_answer(tmp_path):
    path = tmp_path / "checks.yaml"
    path.write_text("header: h\nexamples:\n  - {said: a, claim: b, answer: maybe}\n")
    with pytest.raises(ValueError, match="answer is not"):
        check.load_checks(str(path))
    path.write_text("header: h\nexamples:\n  - {thing: cup, called: 'mug, beaker'}\n")
    with pytest.raises(ValueError, match="does not give 3 names"):
        other_names.load(str(path))


def test_the_fields_come_as_text_in_the_order_asked(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("header: '  Read it.  '\nexamples:\n  - {answer: 1, said: two}\n")
    assert load_prompt_file(path, ("said", "answer")) == ("Read it.", (("two", "1"),))
    path.write_text("header: x\n")
    assert load_prompt_file(path, ("said",)) == ("x", ())

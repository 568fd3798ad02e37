"""The household probe (bench/household_probe.py): requests in new words, each on a fresh
memory and world, judged by the world's end state. Real worlds, console, agent and memory; the
model is a scripted stand-in."""
import json

import pytest

from llm_interaction_node.bench import household_probe as P
from llm_interaction_node.core import llm as llm_module
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.settings import Settings

WAIT = ["wait_for_trigger()"] * 3
FETCH = ["move_to(get_location_coordinates('inFrontOf_long-table_0'))",
         "grasp('screwdriver_0')", "move_to(get_location_coordinates('handover_to_human'))",
         "handover_object_to_human('screwdriver_0')", *WAIT]
PROBE = "- world: sponge_workbench\n  said: can you grab the screwdriver for me\n" \
        "  goal: {screwdriver_0: human}\n"


def probes_file(tmp_path, text=PROBE):
    path = tmp_path / "probes.yaml"
    path.write_text(text)
    return path


def test_a_probe_is_met_only_where_the_world_ends_as_its_goal_says(tmp_path):
    (probe,) = P.load_probes(probes_file(tmp_path))
    done = P.run_probe(probe, Settings(), ScriptedLLM(list(FETCH)))
    assert done["met"] and done["unmet"] == [] and done["unsaid"] == []
    assert any(s.startswith("handover(object_name=screwdriver_0)") for s in done["skills"])
    # what the guides changed is in the record: the grasp with no drive before it
    guided = P.run_probe(probe, Settings(), ScriptedLLM(FETCH[1:]))
    assert guided["met"] and any("does not stand" in n for n in guided["notes"])
    assert not any("does not stand" in n for n in done["notes"])
    idle = P.run_probe(probe, Settings(), ScriptedLLM(list(WAIT)))
    assert not idle["met"] and idle["unmet"] == [["screwdriver_0", "human"]]


@pytest.mark.parametrize("text, says", [
    ("[]", "non-empty list"),
    ("- {world: attic, said: hi, goal: {a_0: human}}", "unknown world 'attic'"),
    ("- {world: living_room, said: hi, goal: {unicorn_0: human}}", "objects: apple_0"),
    ("- {world: living_room, said: [], goal: {apple_0: human}}", "said must be"),
    ("- {world: living_room, said: hi}", "needs world, said and goal")])
def test_a_bad_probes_file_is_refused_saying_what_is_wrong(tmp_path, text, says):
    with pytest.raises(ValueError, match=says):
        P.load_probes(probes_file(tmp_path, text))


def test_the_command_writes_each_probe_and_the_totals(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(llm_module, "make_client", lambda settings: ScriptedLLM(list(FETCH)))
    out = tmp_path / "out"
    assert P.main(["--probes", str(probes_file(tmp_path)), "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["probes"], summary["met"]) == (1, 1)
    assert json.loads((out / "probes.json").read_text())[0]["transcript"]
    assert "met 1/1" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        P.main(["--probes", str(tmp_path / "missing.yaml")])

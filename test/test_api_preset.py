"""The API preset (the setting robot_api.preset, issue 31 item 3): every system gets the same
robot API and listing, ``ours`` by default; ``paper`` is the paper's API and outputs
(``cap_simulation/api.py`` and its environment: place names taken but not listed, no refused
pick, every move 'success', its name lookup and hint; the household's bare 'failure').
The worlds (2-D tabletop, household) and the systems are real; only the LLM is scripted."""
import json

import numpy as np
import pytest

from llm_interaction_node.core.apis.registry import ApiRegistry
from llm_interaction_node.core.apis.sets import API_PRESETS, HUMANOID, TABLETOP
from llm_interaction_node.core.apis.tabletop import TabletopApi
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.transcript.errors import SemanticHintError
from llm_interaction_node.core.user.channel import CallbackUser
from llm_interaction_node.eval.harness import run_once, run_protocol
from llm_interaction_node.eval.systems import make_system
from llm_interaction_node.session import build_session, make_world
from llm_interaction_node.settings import Settings

SYSTEMS = ("ours", "ours_no_learning", "cap", "dynamic_cap", "helper")
SCRIPT = {"ours": "wait_for_trigger()", "ours_no_learning": "wait_for_trigger()",
          "cap": "x = 1\n", "dynamic_cap": "x = 1\n", "helper": "x = 1\n"}


def preset(name):
    return Settings().with_overrides({"robot_api.preset": name})


def api(world, name):
    return TABLETOP.make_api(world, TABLETOP.options(name))


def api_lines(prompt: str) -> list[str]:
    """The robot API's lines of a prompt's listing (the console's as they are, a program
    prompt's without their '# '), with their continuation comments."""
    out, lines = [], prompt.split("# Examples of earlier interactions:")[0].splitlines()
    for i, line in enumerate(lines):
        bare = line[2:] if line.startswith("# def ") else line
        if any(bare.startswith(f"def {n}(") for n in TabletopApi.API):
            out.append(bare)
            for more in lines[i + 1:]:
                more = more[2:] if more.startswith("#     # ") else more
                if not more.startswith("    # "):
                    break
                out.append(more)
    return out


# ---------------------------------------------------------------------------- one listing
@pytest.mark.parametrize("name", API_PRESETS)
def test_every_system_holds_the_same_api_listing_of_the_preset(tmp_path, name):
    want = ApiRegistry(TABLETOP.functions(None, TABLETOP.options(name))).listing().splitlines()
    assert len(want) >= 4 and want[0].startswith("def denormalize_xy(")
    for system_name in SYSTEMS:
        llm = ScriptedLLM([SCRIPT[system_name]] * 40)
        system = make_system(system_name, llm, tmp_path / system_name / "memory", preset(name))
        assert system.api_preset == name
        record = run_once(system, "sa_si", "block_in_bowl", 1, seed=5, max_rounds=1)
        assert record.api_preset == name
        assert api_lines(llm.prompts[0]) == want, system_name
    ours, paper = (ApiRegistry(TABLETOP.functions(None, TABLETOP.options(p))).listing()
                   for p in ("ours", "paper"))
    assert "named place" in ours and "named place" not in paper and "corner" not in paper
    assert "# move gripper to object 1, pick it up, move to target, release the gripper" in paper


def test_a_resumed_evaluation_keeps_its_api_preset(tmp_path):
    out = tmp_path / "out"
    first = make_system("cap", ScriptedLLM(["x = 1\n"] * 5), None, preset("paper"))
    run_protocol(first, out, splits=["sa_si"], runs=1, templates=["block_in_bowl"], max_rounds=1)
    record = json.loads(next(out.glob("runs/**/run_01.json")).read_text())
    assert record["api_preset"] == "paper"
    again = make_system("cap", ScriptedLLM(["x = 1\n"] * 5), None, preset("ours"))
    with pytest.raises(ValueError, match="'paper' API preset, not 'ours'"):
        run_protocol(again, out, splits=["sa_si"], runs=1, templates=["block_in_bowl"],
                     max_rounds=1)


# ---------------------------------------------------------------------------- named places
SCENE = "red block,blue block,green bowl"


def _console_session(name, statements):
    """The ours agent on a 2-D tabletop: the statements, then it hands back."""
    world = make_world("tabletop", SCENE, seed=2)
    said = iter(["put the red block in the top left corner"])
    session = build_session("tabletop", world, CallbackUser(lambda *_: next(said, None)),
                            preset(name).with_overrides({"memory.enabled": False}),
                            llm=ScriptedLLM(list(statements) + ["wait_for_trigger()"]))
    session.agent.run()
    [entry] = [e for e in session.console.transcript if "put_first_on_second" in e.source]
    return world, session, entry


@pytest.mark.parametrize("name", API_PRESETS)
def test_a_named_place_is_a_target_in_both_presets_and_only_ours_lists_it(name):
    """The paper's environment knew the places too (its get_obj_pos); its listing did not
    say so."""
    world, session, entry = _console_session(
        name, ["put_first_on_second('red block', 'top left corner')"])
    assert entry.output == "'success'"
    corner = TabletopApi(world).denormalize_xy([0, 1])
    assert np.linalg.norm(world.object_position("red block")[:2] - corner) < 0.01
    listing = session.console.api.listing()
    assert ("a named place ('top left corner'" in listing) == (name == "ours")
    assert ("place" in listing) == (name == "ours")


def test_the_paper_preset_reads_place_names_as_the_papers_environment_did():
    """By their exact names ('the' and '_' dropped): 'Top left corner' is an unknown object
    there, with its hint, and moves nothing; ours takes it."""
    world = make_world("tabletop", SCENE, seed=2)
    start = world.object_position("red block").copy()
    paper = api(world, "paper")
    with pytest.raises(SemanticHintError, match='Unknown object "Top left corner". Use one of'):
        paper.put_first_on_second("red block", "Top left corner")
    assert np.allclose(world.object_position("red block"), start)
    assert paper.put_first_on_second("red block", "the_top left corner") == "success"
    assert np.allclose(paper.get_obj_pos("red block"), paper.denormalize_xy([0, 1]), atol=0.01)
    assert np.allclose(paper.get_obj_pos("the middle"), paper.denormalize_xy([0.5, 0.5]))
    assert api(world, "ours").put_first_on_second("red block", "Middle") == "success"
    with pytest.raises(SemanticHintError, match="unknown object 'middle'"):
        TabletopApi(world, named_places=False).put_first_on_second("red block", "middle")


# ---------------------------------------------------------------------------- outputs
def _stacked():
    world = make_world("tabletop", SCENE, seed=2)
    assert TabletopApi(world).put_first_on_second("blue block", "red block") == "success"
    return world


def test_a_blocked_pick_says_what_to_move_first_with_ours_and_takes_the_top_block_with_paper():
    world = _stacked()
    with pytest.raises(SemanticHintError, match="Move 'blue block' off it first"):
        api(world, "ours").put_first_on_second("red block", "green bowl")
    red = world.object_position("red block").copy()
    assert api(world, "paper").put_first_on_second("red block", "green bowl") == "success"
    bowl = world.object_position("green bowl")
    assert np.linalg.norm(world.object_position("blue block")[:2] - bowl[:2]) < 0.05
    assert np.allclose(world.object_position("red block"), red)      # the gripper met blue


class Failing:
    """A tabletop robot whose pick-and-place reports failure (and moves nothing)."""

    def __init__(self, world):
        self.world = world

    def pick_and_place(self, pick, place):
        return "failure"

    def __getattr__(self, name):
        return getattr(self.world, name)


def test_every_paper_move_answers_success_and_ours_the_robots_outcome():
    world = make_world("tabletop", "red block,green bowl", seed=2)
    assert api(Failing(world), "ours").put_first_on_second("red block", "green bowl") == "failure"
    assert api(Failing(world), "paper").put_first_on_second("red block", "green bowl") == "success"


def test_names_are_looked_up_and_refused_as_the_paper_did():
    world = make_world("tabletop", "red block,blue bowl", seed=2)
    paper, ours = api(world, "paper"), api(world, "ours")
    with pytest.raises(SemanticHintError) as hint:
        paper.put_first_on_second("purple cube", "green thing")
    assert (
        str(hint.value) == "Unknown object \"purple cube\". Use one of ['blue bowl', 'red block']"
    )
    with pytest.raises(SemanticHintError, match="unknown objects 'purple cube', 'green thing'"):
        ours.put_first_on_second("purple cube", "green thing")
    assert paper.put_first_on_second("the red square", "blue circle") == "success"
    assert paper.moves == [("red block", "blue bowl")]
    with pytest.raises(SemanticHintError, match="unknown object 'the red square'"):
        ours.get_obj_pos("the red square")


def test_a_failed_household_skill_is_a_bare_failure_with_the_paper_preset(tmp_path):
    """In a session (its console and the replay check of what it learns) the paper preset's
    grasp at the wrong furniture answers 'failure', ours says why; the learned interaction
    replays with the same API (no mismatch)."""
    outputs = {}
    for name in API_PRESETS:
        world = make_world("humanoid", "drinks_and_cup")
        said = iter(["bring me the milk"])
        settings = preset(name).with_overrides({   # the grasp from afar is the premise: no
            "memory.path": str(tmp_path / name), "learning.mode": "raw",   # drive first
            "agent.go_where_it_lies": False})
        settings.memory.host = None
        session = build_session(
            "humanoid",
            world,
            CallbackUser(lambda *_, said=said: next(said, None)),
            settings,
            llm=ScriptedLLM(
                [
                    "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
                    "grasp('milk-carton_0')",
                    "wait_for_trigger()",
                ]
            ),
        )
        session.agent.run()
        [grasp] = [e for e in session.console.transcript if e.source.startswith("grasp(")]
        outputs[name] = grasp.output
        replayed = session.learner.check(session.console.transcript)
        assert replayed is not None and replayed.mismatch is None, (name, replayed.mismatch)
        listing = session.console.api.listing()
        assert ("a failure says why" in listing) == (name == "ours")
    assert outputs["paper"] == "'failure'"
    assert outputs["ours"].startswith("'failure: milk-carton_0 is on the dining table")
    assert HUMANOID.options("paper") == {"explain_failures": False}


def test_the_preset_is_one_setting_with_one_option_on_every_command():
    from llm_interaction_node.bench.corrections import label, unlabel
    from llm_interaction_node.cli import build_parser
    assert Settings().robot_api.preset == "ours"
    with pytest.raises(ValueError, match="robot_api.preset='cap' is invalid"):
        preset("cap")
    with pytest.raises(ValueError, match="unknown API preset"):
        TABLETOP.options("cap")
    parser = build_parser()
    for argv in (["eval", "--out", "x"], ["chat"], ["replay", "f"], ["run"]):
        assert parser.parse_args(argv + ["--api-preset", "paper"]).api_preset == "paper"
        assert parser.parse_args(argv).api_preset is None          # not given: the file's
    assert unlabel(label("today", "paper")) == ("today", "paper") == unlabel("today-paper-api")
    assert label("today") == "today" and unlabel("no_focus") == ("no_focus", "ours")


def test_the_correction_bench_runs_with_the_paper_api_in_a_directory_of_its_own(tmp_path):
    from llm_interaction_node.bench.corrections import main
    assert main(["--scripted", "--world", "2d", "--scenes", "1", "--templates",
                 "blocks_on_place", "--variants", "today", "--api-preset", "paper",
                 "--out", str(tmp_path)]) == 0
    [record] = [json.loads(p.read_text()) for p in (tmp_path / "today-paper-api").glob("*.json")]
    assert record["api_preset"] == "paper" and record["variant"] == "today"
    assert record["put_right"]  # the stand-in names the places: the paper's API takes them
    assert not (tmp_path / "today").exists()
    [row] = json.loads((tmp_path / "summary.json").read_text())["variants"]
    assert row["variant"] == "today-paper-api" and row["api_preset"] == "paper"
    assert row["settings"]["robot_api.preset"] == "paper" and row["situations"] == 1

"""The household situations of the correction bench (bench/household_situations.py) on real
household worlds with scripted stand-ins: a next turn that puts the attempt right, one that
copies it, one that undoes what the attempt got right, judged by the world's state."""
import json
import re

import pytest

from llm_interaction_node.bench import household_situations as H
from llm_interaction_node.bench.corrections import bench_settings, main, run_household_situation
from llm_interaction_node.core.apis.humanoid import HumanoidApi
from llm_interaction_node.core.apis.registry import ApiRegistry, public_functions
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.session import open_memory

WAIT = ["wait_for_trigger()"] * 3
SITUATIONS = H.situations()


def _go(location):
    return f"move_to(get_location_coordinates({location!r}))"


def test_the_humanoid_queries_are_marked_and_the_skills_are_the_moves():
    world = H.household_world("drinks_and_cup")
    registry = ApiRegistry(public_functions(HumanoidApi(world)))
    assert registry.queries == {"get_location_coordinates", "get_obj_pos", "get_object_in_hand",
                                "is_object_at_location", "list_locations",
                                "list_object_locations", "list_objects"}
    plain = ApiRegistry(public_functions(HumanoidApi(world, explain_failures=False)))
    assert plain.queries == registry.queries               # the plain listing keeps the marks
    assert set(H.MOVES) == {"bring_object_to", "grasp", "handover_object_to_human",
                            "place_object", "receive_object_from_human"}


def test_two_situations_of_each_mistake_from_the_worlds_scenes():
    assert [s.kind for s in SITUATIONS] == [k for k in H.KINDS for _ in range(2)]
    assert len({s.id for s in SITUATIONS}) == 12
    for s in SITUATIONS:
        world = s.build()
        initial = H.state(world)
        assert {o for o, _ in s.goal + s.mistake if not o.startswith(H.FAST)} <= set(initial)
        assert H.unmet(s.goal, initial)                    # the request is not done at start
        left = H.after(s.mistake, initial)
        assert H.unmet(s.goal, left)                       # the attempt leaves it wrong
        for obj, _ in s.goal:
            assert obj.startswith(H.FAST) or H.said(obj) in s.instruction
        text = H.feedback(s, initial, left, world)
        assert text and not re.search(r"_\d|\(|inFrontOf|on_", text)      # the user's words
    forgotten, wrong_object, wrong_place = SITUATIONS[0], SITUATIONS[2], SITUATIONS[4]
    world = forgotten.build()
    left = H.after(forgotten.mistake, H.state(world))
    missing = forgotten.goal[1][0]
    assert H.said(missing) in H.feedback(forgotten, H.state(world), left, world)
    world = wrong_object.build()
    left = H.after(wrong_object.mistake, H.state(world))
    text = H.feedback(wrong_object, H.state(world), left, world)
    assert H.said(wrong_object.goal[0][0]) in text and H.said(wrong_object.mistake[0][0]) in text
    world = wrong_place.build()
    left = H.after(wrong_place.mistake, H.state(world))
    text = H.feedback(wrong_place, H.state(world), left, world)
    where, wrong = wrong_place.goal[0][1], wrong_place.mistake[0][1]
    assert "not on" in text or "I said" in text
    for surface in (where, wrong):
        assert surface[3:].split("_")[0].replace("-", " ") in text


def test_the_worlds_have_no_injected_failures():
    world = H.household_world("drinks_and_cup")
    api = HumanoidApi(world)
    api.move_to(api.get_location_coordinates("inFrontOf_dining-table_0"))
    assert api.grasp("milk-carton_0") == "success"
    api.move_to(api.get_location_coordinates("handover_to_human"))
    assert api.handover_object_to_human("milk-carton_0") == "success"     # the file fails twice


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """Each situation's new turn with a scripted stand-in (``name`` -> its script)."""
    memory_path = str(tmp_path_factory.mktemp("memory"))

    def run(variant, script):
        settings = bench_settings(variant, 8, memory_path)
        memory = open_memory("humanoid", settings.memory)
        records = []
        for situation in SITUATIONS:
            world = situation.build()
            records.append(run_household_situation(
                situation, world, ScriptedLLM(script(situation, H.state(world)) + WAIT),
                settings, memory))
        return records
    return run


def test_a_next_turn_that_puts_it_right(bench):
    records = bench("today", H.solution)
    assert all(r["put_right"] and not r["copied"] and not r["worse"] and r["changed"]
               for r in records)


def test_a_copy_of_the_attempt_is_copied_and_not_put_right(bench):
    records = bench("today", lambda s, initial: s.attempt[1:])    # the lookup left out
    assert all(r["copied"] and not r["put_right"] and not r["worse"] and not r["changed"]
               for r in records)
    # the copy's grasp of the object the human holds already is refused with a hint
    assert f"the human holds {SITUATIONS[0].mistake[0][0]!r}" in records[0]["transcript"]


def test_the_repeat_note_over_actions_catches_the_household_copy(bench):
    records = bench("mechanisms", lambda s, initial: s.attempt[1:])
    assert all("would do again exactly what was done" in r["transcript"] for r in records)
    # its last move was not run (too_slow's last statement is a drive, no object move: its
    # grasp, which the copy repeats before the note, counts as the copied move)
    assert not any(r["copied"] for r in records if r["kind"] != "too_slow")


def test_undoing_what_the_attempt_got_right_is_worse(bench):
    def undo(situation, initial):
        if situation.kind != "forgotten":
            return H.solution(situation, initial)
        given = situation.mistake[0][0]
        home = initial[given][0]
        return [_go("handover_to_human"), f"receive_object_from_human({given!r})",
                f"bring_object_to({given!r}, {home!r})"]
    records = bench("today", undo)
    for situation, record in zip(SITUATIONS, records, strict=False):
        undone = situation.kind == "forgotten"
        assert record["worse"] is undone and record["put_right"] is not undone
        assert record["situation"] == situation.id and record["kind"] == situation.kind


@pytest.mark.slow
def test_the_bench_runs_the_household_situations_and_writes_their_summary(tmp_path):
    assert main(["--scripted", "--world", "household", "--variants", "today",
                 "--scenes", "1", "--out", str(tmp_path)]) == 0
    records = [json.loads(p.read_text()) for p in (tmp_path / "today").glob("*.json")]
    assert len(records) == 6
    assert {"situation", "template", "kind", "variant", "world", "put_right", "changed",
            "copied", "worse", "transcript", "evaluated_tokens", "wall_s"} <= set(records[0])
    assert all(r["put_right"] and not r["copied"] and not r["worse"] for r in records)
    assert {r["template"] for r in records} == set(H.KINDS.values())
    summary = json.loads((tmp_path / "summary.json").read_text())["variants"]
    assert [(v["variant"], v["situations"], v["put_right"]) for v in summary] == [("today", 6, 6)]
    # resumable: a second run finds every record and runs nothing
    assert main(["--scripted", "--world", "household", "--variants", "today",
                 "--scenes", "1", "--out", str(tmp_path)]) == 0
    with pytest.raises(SystemExit):                        # a tabletop template: refused
        main(["--world", "household", "--templates", "blocks_in_bowl", "--out", str(tmp_path)])

"""The kinematic household world on its own: loading, rules, clock, log, failures, reset."""
import json
import math
import threading
import time

import numpy as np
import pytest

from llm_interaction_node.sims import HouseholdWorld, list_worlds, load_household_world, world_path

SMALL = {
    "name": "small",
    "room": {"x": [-3, 3], "y": [-3, 3]},
    "robot": {"start": [0.0, 0.0, 0.0], "base_speed": 1.0, "turn_speed": 2.0,
              "durations": {"grasp": 2.0, "place": 3.0}},
    "furniture": {
        "desk_0": {"position": [2.0, 0.0], "height": 0.8, "approach": [1.5, 0.0, 0.0]},
        "top-cupboard_0": {"position": [0.0, 2.0], "height": 2.0, "approach": [0.0, 1.5, 1.5708]},
        "pillar_0": {"position": [-2.0, 0.0], "affordances": [], "approach": [-1.5, 0.0, 3.1416]},
    },
    "locations": {"handover_to_human": [0.0, -1.0, -1.5708], "room_center": [0.0, 0.0, 0.0]},
    "objects": {
        "pen_0": {"location": "on_desk_0", "offset": [0.1, 0.0], "height": 0.02},
        "vase_0": {"location": "on_top-cupboard_0"},
        "book_0": {"held_by": "human"},
        "crate_0": {"pose": [1.0, -2.0, 0.0, 0.0, 0.0, 0.0], "location": "room_center"},
    },
    "failures": {"grasp": {"*": 1}},
}


def world(**kwargs):
    return HouseholdWorld.from_dict(SMALL, **kwargs)


def test_world_files_load_and_are_consistent():
    assert {"drinks_and_cup", "ladder_and_shelf", "sponge_workbench"} <= set(list_worlds())
    for name in ("drinks_and_cup", "ladder_and_shelf", "sponge_workbench"):
        w = load_household_world(name)
        locations = w.named_locations()
        assert {"handover_to_human", "room_center"} <= set(locations)
        for obj in w.scene():
            assert obj.pose.shape == (6,)
            if obj.location and obj.location.startswith("on_"):   # every surface is reachable
                assert "inFrontOf_" + obj.location[3:] in locations
        assert json.loads(json.dumps(w.snapshot())) == w.snapshot()
    assert world_path("sponge_workbench").name == "sponge_workbench.yaml"
    assert load_household_world(world_path("drinks_and_cup")).name == "drinks_and_cup"
    with pytest.raises(FileNotFoundError, match="drinks_and_cup"):
        world_path("no_such_world")


def test_scene_derived_from_config():
    w = world()
    scene = {o.name: o for o in w.scene()}
    assert scene["pen_0"].object_class == "pen" and scene["pen_0"].affordances == ("grasp",)
    assert scene["pen_0"].location == "on_desk_0"
    assert scene["pen_0"].pose[:3].tolist() == pytest.approx([2.1, 0.0, 0.81])
    assert scene["desk_0"].affordances == ("place_something_on_top",)
    assert scene["pillar_0"].affordances == ()
    assert scene["book_0"].held_by == "human"
    assert scene["crate_0"].location == "room_center"
    assert list(w.named_locations()) == ["inFrontOf_desk_0", "inFrontOf_top-cupboard_0",
                                         "inFrontOf_pillar_0", "handover_to_human", "room_center"]


def test_move_clock_log_and_progress():
    fractions = []
    w = world(progress=fractions.append)
    assert w.move_to(np.array([1.5, 0.0, 0.0]), 1.0) == "success"
    assert w.clock == pytest.approx(1.5)                      # 1.5 m at 1 m/s, no turn
    assert w.move_to(np.array([1.5, 0.0, math.pi / 2]), 0.5) == "success"
    assert w.log[-1].duration == pytest.approx((math.pi / 2) / (2.0 * 0.5))
    assert w.clock == pytest.approx(1.5 + math.pi / 2)
    assert fractions[-1] == 1.0 and fractions == sorted(fractions[:10]) + sorted(fractions[10:])
    assert len(fractions) == 20 and all(0 < f <= 1 for f in fractions)
    entry = w.log[0].to_dict()
    assert entry["skill"] == "move_to" and entry["args"]["location"] == "inFrontOf_desk_0"
    assert entry["speed_factor"] == 1.0 and entry["result"] == "success" and entry["start"] == 0.0
    assert w.move_to(np.array([5.0, 0.0, 0.0]), 1.0) == "failure"      # outside the room
    assert w.snapshot()["base_pose"][0] == pytest.approx(1.5)


def test_time_scale_sleeps():
    w = world(time_scale=0.02)
    start = time.monotonic()
    w.move_to(np.array([1.5, 0.0, 0.0]), 1.0)                 # 1.5 s simulated -> 30 ms
    assert time.monotonic() - start >= 0.025
    start = time.monotonic()
    world().move_to(np.array([1.5, 0.0, 0.0]), 1.0)
    assert time.monotonic() - start < 0.025


def test_state_is_readable_during_a_slow_move():
    w = world(time_scale=0.1)                                 # 1.5 s simulated -> 0.15 s
    mover = threading.Thread(target=w.move_to, args=(np.array([1.5, 0.0, 0.0]), 1.0))
    mover.start()
    seen = []
    while mover.is_alive():
        start = time.monotonic()
        seen.append(w.snapshot()["base_pose"][0])
        assert time.monotonic() - start < 0.05                # not blocked by the moving skill
        time.sleep(0.01)
    mover.join()
    assert any(0.0 < x < 1.5 for x in seen)                   # observed mid-way
    assert w.snapshot()["base_pose"][0] == pytest.approx(1.5)


def test_grasp_place_rules_and_injected_wildcard_failure():
    w = world()
    assert w.grasp("pen_0", "left") == "failure"              # not in front of the desk
    assert w.log[-1].reason.startswith("object out of reach")
    w.move_to(np.array([1.4, 0.1, 0.0]), 1.0)                 # within the 0.3 m tolerance
    assert w.grasp("pen_0", "left") == "failure"              # '*': first possible grasp fails
    assert w.log[-1].reason == "injected failure" and w.log[-1].duration == 2.0
    assert w.grasp("pen_0", "left") == "success"
    assert w.hands == {"left": "pen_0", "right": None}
    pose = {o.name: o for o in w.scene()}["pen_0"].pose       # held objects follow the hand
    assert pose[2] == pytest.approx(1.0) and pose[0] > 1.4
    assert w.place("pen_0", "pillar_0") == "failure"          # no place affordance
    assert w.place("pen_0", "desk_0") == "success"
    assert w.snapshot()["objects"]["pen_0"]["location"] == "on_desk_0"
    w.move_to(w.named_locations()["inFrontOf_top-cupboard_0"], 1.0)
    assert w.grasp("vase_0", "right") == "failure"            # 2.0 m: too high
    assert w.log[-1].reason == "surface too high"


def test_handover_receive_rules():
    w = world()
    assert w.receive("book_0", "left") == "failure"           # not at the human
    w.move_to(w.named_locations()["handover_to_human"], 1.0)
    assert w.receive("pen_0", "left") == "failure"            # the human does not hold it
    assert w.receive("book_0", "left") == "success"
    assert w.receive("book_0", "right") == "failure"
    assert w.human_holds == [] and w.hands["left"] == "book_0"
    assert w.handover("book_0") == "success"
    assert w.human_holds == ["book_0"]
    assert w.run_skill("dance", {}) == "failure"


def test_reset_and_snapshot():
    w = world()
    initial = w.snapshot()
    w.move_to(w.named_locations()["handover_to_human"], 1.0)
    w.receive("book_0", "right")
    assert w.snapshot() != initial
    w.reset()
    assert w.snapshot() == initial
    assert w.log == [] and w.clock == 0.0
    assert w.snapshot()["objects"]["book_0"]["held_by"] == "human"
    w.move_to(np.array([1.5, 0.0, 0.0]), 1.0)
    assert w.grasp("pen_0", "left") == "failure"              # injected failures are re-armed


def test_random_failures_are_seeded():
    cfg = dict(
        SMALL, failures={}, random_failures={"probability": 0.5, "seed": 3, "skills": ["grasp"]}
    )

    def run():
        w = HouseholdWorld.from_dict(cfg)
        w.move_to(np.array([1.5, 0.0, 0.0]), 1.0)
        results = []
        for _ in range(12):
            results.append(w.grasp("pen_0", "left"))
            if results[-1] == "success":
                w.place("pen_0", "desk_0")
        return results

    first = run()
    assert first == run()
    assert "failure" in first and "success" in first


def test_bad_world_files_are_rejected():
    with pytest.raises(ValueError, match="unknown furniture"):
        HouseholdWorld.from_dict(dict(SMALL, objects={"x_0": {"location": "on_nothing_0"}}))
    with pytest.raises(ValueError, match="held_by: human"):
        HouseholdWorld.from_dict(dict(SMALL, objects={"x_0": {}}))


def test_a_world_not_in_the_format_is_one_line_that_says_where():
    """Issue 45: a misspelt key in a world file was taken silently (the object had no
    location, the human stood at the default place)."""
    with pytest.raises(ValueError) as error:
        HouseholdWorld.from_dict(dict(SMALL, human={"postion": [0.0, 1.0]}), source="mine.yaml")
    assert str(error.value) == ("mine.yaml: human: unknown key 'postion' (did you mean "
                                "'position'?); known: position")
    objects = dict(SMALL["objects"], pen_0={"loaction": "on_desk_0"})
    with pytest.raises(ValueError, match=r"objects\.pen_0: unknown key 'loaction' \(did you "
                                         r"mean 'location'\?\)"):
        HouseholdWorld.from_dict(dict(SMALL, objects=objects))
    with pytest.raises(ValueError, match=r"robot\.base_speed: 'fast' is not of type 'number'"):
        HouseholdWorld.from_dict(dict(SMALL, robot={"base_speed": "fast"}))
    with pytest.raises(ValueError, match=r"locations\.room_center: \[0\.0, 0\.0\] is too short"):
        HouseholdWorld.from_dict(dict(SMALL, locations={"room_center": [0.0, 0.0]}))

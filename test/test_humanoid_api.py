"""The humanoid API over the in-process household world (scenarios E1-E3 of the paper)."""
import subprocess
import sys

import numpy as np
import pytest

from llm_interaction_node.core.apis.humanoid import HumanoidApi, HumanoidRobot
from llm_interaction_node.core.apis.registry import ApiRegistry, public_functions
from llm_interaction_node.core.transcript.errors import SemanticHintError
from llm_interaction_node.sims import load_household_world

WORLDS = ["drinks_and_cup", "ladder_and_shelf", "sponge_workbench"]


def make(name="drinks_and_cup"):
    world = load_household_world(name)
    return world, HumanoidApi(world)


def go(api, location, speed_factor=1.0):
    return api.move_to(api.get_location_coordinates(location), speed_factor=speed_factor)


class Spy:
    """Wraps a robot and records the protocol calls (to see what the API asks of it)."""

    def __init__(self, robot):
        self.robot, self.calls = robot, []

    def __getattr__(self, name):
        target = getattr(self.robot, name)

        def call(*args):
            self.calls.append((name, args))
            return target(*args)
        return call


# ---------------------------------------------------------------------------- full sequences
def test_e1_fetch_and_handover_sequence():
    world, api = make("drinks_and_cup")
    assert isinstance(world, HumanoidRobot)
    listing = api.list_object_locations(affordance="grasp")
    assert ("mango-juice_0", "on_kitchen-counter_0") in listing
    assert api.list_locations() == ["inFrontOf_kitchen-counter_0", "inFrontOf_dining-table_0",
                                    "room_center", "handover_to_human"]
    assert go(api, "inFrontOf_kitchen-counter_0") == "success"
    assert api.grasp("mango-juice_0") == "success"
    assert api.get_object_in_hand() == "mango-juice_0"
    assert go(api, "handover_to_human") == "success"
    assert api.handover_object_to_human("mango-juice_0") == "success"
    snap = world.snapshot()
    assert snap["objects"]["mango-juice_0"]["held_by"] == "human"
    assert snap["hands"] == {"left": None, "right": None}
    assert api.get_object_in_hand() is None
    assert api.is_object_at_location("mango-juice_0", "handover_to_human")
    assert [c.skill for c in world.log] == ["move_to", "grasp", "move_to", "handover"]


@pytest.mark.parametrize("name", WORLDS)
def test_fetch_and_handover_in_every_world(name):
    world, api = make(name)
    obj, surface = next((o, loc) for o, loc in api.list_object_locations()
                        if loc and loc.startswith("on_"))
    nav = "inFrontOf_" + surface[len("on_"):]
    assert nav in api.list_locations()
    assert go(api, nav) == "success"
    assert api.grasp(obj) == "success"
    assert go(api, "handover_to_human") == "success"
    assert api.handover_object_to_human(obj) == "success"
    assert world.snapshot()["objects"][obj]["held_by"] == "human"
    assert obj in world.human_holds


def test_bimanual_two_grasps_then_two_handovers():
    world, api = make("drinks_and_cup")
    go(api, "inFrontOf_kitchen-counter_0")
    assert api.grasp("mango-juice_0", "left") == "success"
    assert api.grasp("coffee-cup_0", "right") == "success"
    assert world.hands == {"left": "mango-juice_0", "right": "coffee-cup_0"}
    assert api.get_object_in_hand("right") == "coffee-cup_0"
    assert go(api, "handover_to_human") == "success"
    assert api.handover_object_to_human("mango-juice_0") == "success"
    assert api.handover_object_to_human("coffee-cup_0") == "success"
    assert {"mango-juice_0", "coffee-cup_0"} <= set(world.human_holds)
    assert world.hands == {"left": None, "right": None}


def test_bimanual_place_on_table_both_spellings():
    world, api = make("drinks_and_cup")
    go(api, "inFrontOf_kitchen-counter_0")
    api.grasp("mango-juice_0", "left")
    api.grasp("tumbler_0", "right")
    go(api, "inFrontOf_dining-table_0")
    assert api.place_object("mango-juice_0", "dining-table_0") == "success"
    assert api.place_object("tumbler_0", "on_dining-table_0") == "success"
    assert api.is_object_at_location("mango-juice_0", "on_dining-table_0")
    assert api.is_object_at_location("tumbler_0", "inFrontOf_dining-table_0")
    assert not api.is_object_at_location("tumbler_0", "on_kitchen-counter_0")
    pos = api.get_obj_pos("tumbler_0")
    table = api.get_obj_pos("on_dining-table_0")
    assert pos.shape == (6,) and pos[2] > table[2]
    assert np.hypot(*(pos[:2] - table[:2])) < 0.5


# ---------------------------------------------------------------------------- physical failures
def test_grasp_not_in_front_fails_and_changes_nothing():
    world, api = make("drinks_and_cup")
    assert api.grasp("mango-juice_0").startswith("failure: ")          # robot still at room_center
    assert world.snapshot()["objects"]["mango-juice_0"]["location"] == "on_kitchen-counter_0"
    assert world.hands == {"left": None, "right": None}
    go(api, "inFrontOf_dining-table_0")
    assert api.grasp("mango-juice_0").startswith("failure: ")          # wrong furniture
    assert "reach" in world.log[-1].reason


def test_place_on_too_high_surface_fails():
    world, api = make("ladder_and_shelf")
    go(api, "inFrontOf_dining-table_0")
    api.grasp("muesli-box_0")
    assert go(api, "inFrontOf_tall-shelf_0") == "success"
    assert api.place_object("muesli-box_0", "on_tall-shelf_0").startswith("failure: ")
    assert api.get_object_in_hand() == "muesli-box_0"


def test_place_before_moving_there_fails():
    world, api = make("drinks_and_cup")
    go(api, "inFrontOf_kitchen-counter_0")
    api.grasp("coffee-cup_0")
    assert api.place_object("coffee-cup_0", "on_dining-table_0").startswith("failure: ")
    assert api.get_object_in_hand() == "coffee-cup_0"


def test_injected_handover_failures_then_success():
    world, api = make("drinks_and_cup")           # the milk's first two handovers fail
    go(api, "inFrontOf_dining-table_0")
    assert api.grasp("milk-carton_0") == "success"
    go(api, "handover_to_human")
    assert api.handover_object_to_human("milk-carton_0").startswith("failure: ")
    assert api.handover_object_to_human("milk-carton_0").startswith("failure: ")
    assert api.get_object_in_hand() == "milk-carton_0"
    assert api.handover_object_to_human("milk-carton_0") == "success"
    assert [c.reason for c in world.log if c.skill == "handover"] == \
        ["injected failure", "injected failure", ""]
    world.reset()
    assert world.snapshot()["objects"]["milk-carton_0"]["location"] == "on_dining-table_0"


# ---------------------------------------------------------------------------- failures say why
# Issue 31: a failed skill says why in the world's terms (where the object is, where the robot
# is, what the hands hold), read from the scene and the robot's pose after the call.
def test_grasp_where_the_object_is_not_says_where_it_is_and_where_the_robot_is():
    world, api = make("drinks_and_cup")
    go(api, "inFrontOf_kitchen-counter_0")
    assert api.grasp("milk-carton_0") == (
        "failure: milk-carton_0 is on the dining table; the robot is in front of the kitchen "
        "counter"
    )
    assert api.grasp("milk-carton_0").startswith("failure")       # what code compares against
    world.reset()                                                  # at room_center
    assert api.grasp("mango-juice_0") == (
        "failure: mango-juice_0 is on the kitchen counter; the robot is in the room center")
    assert world.hands == {"left": None, "right": None}


def test_place_at_the_wrong_furniture_or_too_high_says_so():
    world, api = make("drinks_and_cup")
    go(api, "inFrontOf_kitchen-counter_0")
    api.grasp("coffee-cup_0")
    assert api.place_object("coffee-cup_0", "on_dining-table_0") == (
        "failure: the robot is in front of the kitchen counter, not in front of the dining table")
    world, api = make("ladder_and_shelf")
    go(api, "inFrontOf_dining-table_0")
    api.grasp("muesli-box_0")
    go(api, "inFrontOf_tall-shelf_0")
    assert api.place_object("muesli-box_0", "on_tall-shelf_0") == (
        "failure: muesli-box_0 is still in the right hand; the robot could not put it on the tall "
        "shelf"
    )


def test_place_or_handover_with_an_empty_hand_says_the_robot_holds_nothing():
    _, api = make("drinks_and_cup")
    with pytest.raises(SemanticHintError) as e:       # still a hint (checked before the skill)
        api.place_object("coffee-cup_0", "on_dining-table_0")
    assert "the robot holds nothing; coffee-cup_0 is on the kitchen counter" in str(e.value)
    with pytest.raises(SemanticHintError) as e:
        api.handover_object_to_human("milk-carton_0")
    assert "the robot holds nothing; milk-carton_0 is on the dining table" in str(e.value)
    go(api, "inFrontOf_kitchen-counter_0")
    api.grasp("coffee-cup_0")
    with pytest.raises(SemanticHintError, match="the right hand holds coffee-cup_0"):
        api.handover_object_to_human("milk-carton_0")


def test_handing_over_what_the_human_holds_already_says_so_and_changes_nothing():
    """Measured (issue 44): bring_object_to(x, 'handover_to_human') then the model's own
    handover_object_to_human(x): "not in a hand of the robot ... grasp(...) it first", and
    the model took the glass back from the user."""
    world, api = make("drinks_and_cup")
    assert api.bring_object_to("tumbler_0", "handover_to_human") == "success"
    assert api.handover_object_to_human("tumbler_0") == "the human already holds 'tumbler_0'"
    assert world.snapshot()["objects"]["tumbler_0"]["held_by"] == "human"


def test_handover_away_from_the_human_or_not_taken_says_so():
    world, api = make("drinks_and_cup")           # the milk's first two handovers fail
    go(api, "inFrontOf_dining-table_0")
    api.grasp("milk-carton_0")
    assert api.handover_object_to_human("milk-carton_0") == (
        "failure: the robot is in front of the dining table, not at the handover place")
    go(api, "handover_to_human")
    assert api.handover_object_to_human("milk-carton_0") == (
        "failure: the human did not take milk-carton_0; it is still in the right hand")


def test_the_words_for_a_failure_the_api_cannot_check_first():
    """A robot whose scene changed under the API (ROS: perception lags): the reason is what
    the scene shows after the call, e.g. the hands."""
    from llm_interaction_node.core.apis.humanoid_words import (
        Words,
        grasp_failed,
        handover_failed,
        place_failed,
    )
    world, _ = make("drinks_and_cup")
    words = Words(world.scene(), world.named_locations(), world.robot_pose())
    assert place_failed(words, "coffee-cup_0", "dining-table_0") == \
        "failure: the robot holds nothing; coffee-cup_0 is on the kitchen counter"
    assert handover_failed(words, "empty-mug_0") == \
        "failure: the robot holds nothing; the human holds empty-mug_0"
    go(HumanoidApi(world), "inFrontOf_kitchen-counter_0")
    world.grasp("mango-juice_0", "left")
    world.grasp("coffee-cup_0", "right")
    words = Words(world.scene(), world.named_locations(), world.robot_pose())
    assert grasp_failed(words, "tumbler_0", None) == \
        "failure: both hands are full (left: mango-juice_0, right: coffee-cup_0)"
    world.reset()
    unknown = Words(world.scene(), world.named_locations(), None)       # pose not known
    assert grasp_failed(unknown, "milk-carton_0", None) == \
        "failure: milk-carton_0 is on the dining table; grasping milk-carton_0 did not work"


def test_move_failures_say_where_the_robot_is_and_unknown_places_stay_hints():
    world, api = make("drinks_and_cup")
    with pytest.raises(SemanticHintError, match="unknown location 'kitchen'"):
        api.get_location_coordinates("kitchen")
    assert api.move_to(np.array([9.0, 0.0, 0.0])) == \
        "failure: the robot did not reach the target; it is in the room center"
    world._failures_left["move_to"] = {"inFrontOf_dining-table_0": 1}
    result = go(api, "inFrontOf_dining-table_0")
    assert (
        result
        == "failure: the robot did not get in front of the dining table; it is in the room center"
    )


def test_bring_object_to_says_why_its_step_failed():
    world, api = make("drinks_and_cup")
    world._failures_left["grasp"] = {"coffee-cup_0": 1}
    assert api.bring_object_to("coffee-cup_0", "on_dining-table_0") == (
        "failure: coffee-cup_0 is on the kitchen counter, in front of the robot; grasping it did "
        "not work"
    )


def test_explain_failures_false_keeps_the_bare_failure_of_the_papers_api():
    world = load_household_world("drinks_and_cup")
    api = HumanoidApi(world, explain_failures=False)
    go(api, "inFrontOf_kitchen-counter_0")
    assert api.grasp("milk-carton_0") == "failure"
    assert api.grasp("coffee-cup_0") == "success"


def test_a_robot_without_a_pose_still_says_where_the_object_is():
    class NoPose:
        def __init__(self, world):
            self.world = world

        def __getattr__(self, name):
            if name == "robot_pose":
                raise AttributeError(name)
            return getattr(self.world, name)
    world = load_household_world("drinks_and_cup")
    api = HumanoidApi(NoPose(world))
    assert api.grasp("milk-carton_0") == \
        "failure: milk-carton_0 is on the dining table; grasping milk-carton_0 did not work"


# ---------------------------------------------------------------------------- semantic hints
def test_third_grasp_with_both_hands_full_is_a_hint():
    world, api = make("drinks_and_cup")
    go(api, "inFrontOf_kitchen-counter_0")
    api.grasp("mango-juice_0", "left")
    api.grasp("coffee-cup_0", "right")
    n = len(world.log)
    with pytest.raises(SemanticHintError) as e:
        api.grasp("tumbler_0")
    assert "both hands are full" in str(e.value)
    assert "mango-juice_0" in str(e.value) and "coffee-cup_0" in str(e.value)
    assert len(world.log) == n                    # the robot was not asked
    with pytest.raises(SemanticHintError, match="left hand already holds 'mango-juice_0'"):
        api.grasp("tumbler_0", "left")


def test_hand_in_use_suggests_other_hand():
    _, api = make("drinks_and_cup")
    go(api, "inFrontOf_kitchen-counter_0")
    api.grasp("mango-juice_0", "left")
    with pytest.raises(SemanticHintError, match="use the other hand \\('right'\\)"):
        api.grasp("coffee-cup_0", "left")
    with pytest.raises(SemanticHintError, match="already in the left hand"):
        api.grasp("mango-juice_0")


def test_invalid_hand_is_a_hint():
    _, api = make()
    with pytest.raises(SemanticHintError, match="'left', 'right' or None"):
        api.grasp("mango-juice_0", "middle")
    with pytest.raises(SemanticHintError):
        api.get_object_in_hand("both")


def test_unknown_object_hint_names_valid_objects():
    _, api = make()
    with pytest.raises(SemanticHintError) as e:
        api.grasp("cup")
    msg = str(e.value)
    assert msg.startswith("unknown object 'cup'. Use one of the names returned by "
                          "list_objects(affordance='grasp'): ['mango-juice_0', 'coffee-cup_0'")
    for call in (lambda: api.handover_object_to_human("juice"),
                 lambda: api.place_object("juice", "on_dining-table_0"),
                 lambda: api.bring_object_to("juice", "on_dining-table_0"),
                 lambda: api.receive_object_from_human("juice")):
        with pytest.raises(SemanticHintError, match="mango-juice_0"):
            call()
    with pytest.raises(
        SemanticHintError, match=r"list_objects\(affordance=None\).*on_kitchen-counter_0"
    ):
        api.get_obj_pos("juice")
    with pytest.raises(SemanticHintError, match="tumbler_0"):
        api.is_object_at_location("juice", "on_dining-table_0")


def test_unknown_location_hint_lists_locations():
    _, api = make()
    with pytest.raises(SemanticHintError) as e:
        api.get_location_coordinates("kitchen")
    assert "list_locations()" in str(e.value)
    assert "'inFrontOf_kitchen-counter_0'" in str(e.value) and "'handover_to_human'" in str(e.value)
    with pytest.raises(SemanticHintError, match="use 'inFrontOf_kitchen-counter_0'"):
        api.get_location_coordinates("on_kitchen-counter_0")
    with pytest.raises(SemanticHintError, match="list_locations"):
        api.is_object_at_location("mango-juice_0", "garage")


def test_destination_without_affordance_hint():
    world, api = make()
    go(api, "inFrontOf_dining-table_0")
    api.grasp("milk-carton_0")
    for bad in ("inFrontOf_dining-table_0", "coffee-cup_0", "table"):
        with pytest.raises(SemanticHintError) as e:
            api.bring_object_to("milk-carton_0", bad)
        msg = str(e.value)
        assert "affordance place_something_on_top" in msg
        assert "list_objects(affordance='place_something_on_top'): " \
               "['on_kitchen-counter_0', 'on_dining-table_0']" in msg
        with pytest.raises(SemanticHintError, match="place_something_on_top"):
            api.place_object("milk-carton_0", bad)
    assert api.get_object_in_hand() == "milk-carton_0"


def test_not_held_hints():
    _, api = make()
    with pytest.raises(SemanticHintError, match="not in a hand.*grasp"):
        api.place_object("coffee-cup_0", "on_dining-table_0")
    with pytest.raises(SemanticHintError, match="not in a hand"):
        api.handover_object_to_human("coffee-cup_0")


def test_speed_factor_out_of_range_is_a_hint():
    world, api = make()
    target = api.get_location_coordinates("room_center")
    for bad in (0.0, 2.5, -1, 10, "fast", True):
        with pytest.raises(SemanticHintError, match="between 0.1 and 2.0"):
            api.move_to(target, speed_factor=bad)
    assert world.log == []
    assert api.move_to(target, speed_factor=2.0) == "success"
    assert api.move_to(target, speed_factor=0.1) == "success"


def test_move_to_bad_position_is_a_hint():
    world, api = make()
    for bad in (
        "inFrontOf_dining-table_0",
        [1.0, 2.0],
        api.get_obj_pos("coffee-cup_0"),
        [np.nan, 0, 0],
    ):
        with pytest.raises(SemanticHintError, match="get_location_coordinates"):
            api.move_to(bad)
    assert api.move_to([0.5, 0.5, 0.0]) == "success"        # plain lists are fine
    assert world.snapshot()["base_pose"] == [0.5, 0.5, 0.0]


def test_invalid_affordance_is_a_hint():
    _, api = make()
    with pytest.raises(SemanticHintError, match="place_something_on_top"):
        api.list_objects(affordance="pour")


# ---------------------------------------------------------------------------- speed, listing
def test_move_duration_halves_at_double_speed():
    durations = []
    for factor in (1.0, 2.0):
        world, api = make("sponge_workbench")
        go(api, "inFrontOf_long-table_0")
        before = world.clock
        assert go(api, "inFrontOf_workshop-bench_0", factor) == "success"
        durations.append(world.log[-1].duration)
        assert world.clock - before == pytest.approx(durations[-1])
        assert world.log[-1].speed_factor == factor
    assert durations[0] == pytest.approx(3.2 / 0.5)      # 3.2 m straight at 0.5 m/s
    assert durations[1] == pytest.approx(durations[0] / 2)


def test_list_objects_and_locations_by_affordance():
    _, api = make()
    assert api.list_objects() == ["mango-juice_0", "coffee-cup_0", "tumbler_0", "kitchen-sponge_0",
                                  "milk-carton_0", "empty-mug_0"]
    assert api.list_objects(affordance="place_something_on_top") == \
        ["on_kitchen-counter_0", "on_dining-table_0"]
    assert api.list_objects(affordance=None)[-2:] == ["on_kitchen-counter_0", "on_dining-table_0"]
    assert api.list_object_locations(affordance="place_something_on_top") == \
        [("on_kitchen-counter_0", None), ("on_dining-table_0", None)]
    assert ("empty-mug_0", None) in api.list_object_locations()
    coords = api.get_location_coordinates("inFrontOf_kitchen-counter_0")
    assert isinstance(coords, np.ndarray) and coords.tolist() == [1.8, 1.0, 0.0]
    assert repr(api.get_location_coordinates("room_center")) == "array([0., 0., 0.])"


def test_registry_listing_of_humanoid_api():
    _, api = make()
    registry = ApiRegistry(public_functions(api))
    assert registry.names == list(HumanoidApi.API)
    text = registry.listing()
    lines = text.splitlines()
    assert "def move_to(position: np.ndarray, speed_factor: float = 1.0) -> str  " \
           "# Change speed only on user request" in lines
    grasp = "def grasp(object_name: str, hand: Literal['left', 'right', None] = None) -> str"
    i = next(i for i, line in enumerate(lines) if line.startswith(grasp))
    assert "# move to the location of the object before grasping it" in " ".join(lines[i:i + 2])
    assert (
        "def list_object_locations(affordance: Literal[None, 'grasp', 'place_something_on_top'] "
        "= 'grasp') -> list[tuple[str, str | None]]" in lines
    )
    assert (
        "def get_object_in_hand(hand: Literal['left', 'right', None] = None) -> str | None" in lines
    )
    assert "def get_location_coordinates(location_name: str) -> np.ndarray" in lines
    assert "def receive_object_from_human(object_name: str) -> str" in lines
    assert "def is_object_at_location(object_name: str, location_name: str) -> bool" in lines
    for name in HumanoidApi.API:
        assert f"def {name}(" in text
    assert "before placing" in text and "list_objects() before calling this" in text
    # what a failure returns (issue 31); the plain API's listing does not promise it
    assert "a failure says why, e.g. 'failure: <object> is on the dining table; the robot is " \
           "in front of the kitchen counter'" in text
    assert "def handover_object_to_human(object_name: str) -> str  # a failure says why" in lines
    plain = ApiRegistry(public_functions(HumanoidApi(api.robot, explain_failures=False))).listing()
    assert (
        "failure" not in plain
        and "# move to the location of the object before grasping it" in plain
    )
    assert "def handover_object_to_human(object_name: str) -> str\n" in plain + "\n"


# ---------------------------------------------------------------------------- bring_object_to
def test_bring_object_to_generic():
    world, api = make("sponge_workbench")
    assert api.bring_object_to("kitchen-sponge_0", "workshop-bench_0") == "success"
    assert [c.skill for c in world.log] == ["move_to", "grasp", "move_to", "place"]
    assert world.log[0].args["location"] == "inFrontOf_long-table_0"
    assert world.log[2].args["location"] == "inFrontOf_workshop-bench_0"
    assert api.is_object_at_location("kitchen-sponge_0", "on_workshop-bench_0")
    assert api.is_object_at_location("kitchen-sponge_0", "workshop-bench_0")
    assert not api.is_object_at_location("kitchen-sponge_0", "on_long-table_0")
    assert api.get_object_in_hand() is None


def test_bring_object_to_with_object_already_in_hand():
    world, api = make("drinks_and_cup")
    go(api, "inFrontOf_dining-table_0")
    api.grasp("milk-carton_0")
    assert api.bring_object_to("milk-carton_0", "on_kitchen-counter_0") == "success"
    assert [c.skill for c in world.log[-2:]] == ["move_to", "place"]
    assert api.is_object_at_location("milk-carton_0", "on_kitchen-counter_0")


def test_bring_object_to_stops_at_first_failure():
    world, api = make("drinks_and_cup")
    world._failures_left["grasp"] = {"coffee-cup_0": 1}
    assert api.bring_object_to("coffee-cup_0", "on_dining-table_0").startswith("failure: ")
    assert [c.skill for c in world.log] == ["move_to", "grasp"]
    assert api.is_object_at_location("coffee-cup_0", "on_kitchen-counter_0")


def test_bring_ladder_uses_the_ladder_skill():
    world, _ = make("ladder_and_shelf")
    spy = Spy(world)
    api = HumanoidApi(spy)
    assert ("step-ladder_0", None) in api.list_object_locations()
    assert api.bring_object_to("step-ladder_0", "handover_to_human") == "success"
    skill_calls = [c for c in spy.calls if c[0] not in ("scene", "named_locations")]
    assert len(skill_calls) == 1
    name, (skill, arguments) = skill_calls[0]
    assert (name, skill) == ("run_skill", "bring_ladder")
    assert arguments["object_name"] == "step-ladder_0"
    assert arguments["location_name"] == "handover_to_human"
    assert np.allclose(arguments["pose"], world.named_locations()["handover_to_human"])
    assert api.is_object_at_location("step-ladder_0", "handover_to_human")
    assert world.snapshot()["base_pose"] == pytest.approx(list(arguments["pose"]))
    assert world.log[-1].skill == "bring_ladder" and world.log[-1].duration > 20


def test_ladder_hints():
    world, api = make("ladder_and_shelf")
    with pytest.raises(SemanticHintError, match="bring_object_to"):
        api.grasp("step-ladder_0")
    with pytest.raises(SemanticHintError, match="list_locations.*handover_to_human"):
        api.bring_object_to("step-ladder_0", "attic")
    go(api, "inFrontOf_dining-table_0")
    api.grasp("kitchen-sponge_0")
    with pytest.raises(SemanticHintError, match="both hands free"):
        api.bring_object_to("step-ladder_0", "inFrontOf_fridge_0")
    # a surface as the ladder's destination means the place in front of it
    go(api, "inFrontOf_dining-table_0")
    api.place_object("kitchen-sponge_0", "on_dining-table_0")
    assert api.bring_object_to("step-ladder_0", "on_fridge_0") == "success"
    assert api.is_object_at_location("step-ladder_0", "inFrontOf_fridge_0")


# ---------------------------------------------------------------------------- receive
def test_receive_object_from_human():
    world, api = make("sponge_workbench")
    assert api.receive_object_from_human("tape-measure_0") == \
        "failure: the robot is in the room center, not at the handover place"
    go(api, "handover_to_human")
    assert api.receive_object_from_human("screwdriver_0") == \
        "failure: the human does not hold screwdriver_0; screwdriver_0 is on the long table"
    assert api.receive_object_from_human("tape-measure_0") == "success"
    assert api.get_object_in_hand() == "tape-measure_0"
    assert world.human_holds == []
    with pytest.raises(SemanticHintError, match="already in the right hand"):
        api.receive_object_from_human("tape-measure_0")
    assert api.bring_object_to("tape-measure_0", "workshop-bench_0") == "success"
    assert api.is_object_at_location("tape-measure_0", "on_workshop-bench_0")


def test_human_held_object_hints():
    _, api = make("drinks_and_cup")
    with pytest.raises(SemanticHintError, match="receive_object_from_human"):
        api.grasp("empty-mug_0")


def test_bring_object_to_is_the_whole_move_from_and_to_the_human():
    """Issue 44: bring_object_to is the household's one move (the decoding after a correction
    forces it): it takes an object the human holds at the handover place first, and the
    destination 'handover_to_human' hands the object over; each move that worked is kept."""
    world, api = make("drinks_and_cup")
    assert api.bring_object_to("empty-mug_0", "on_kitchen-counter_0") == "success"
    assert api.is_object_at_location("empty-mug_0", "on_kitchen-counter_0")
    assert [c.skill for c in world.log] == ["move_to", "receive", "move_to", "place"]
    assert api.bring_object_to("mango-juice_0", "handover_to_human") == "success"
    assert world.snapshot()["objects"]["mango-juice_0"]["held_by"] == "human"
    assert [c.skill for c in world.log][4:] == ["move_to", "grasp", "move_to", "handover"]
    with pytest.raises(SemanticHintError, match="the human holds .mango-juice_0. already"):
        api.bring_object_to("mango-juice_0", "handover_to_human")
    assert api.moves == [("empty-mug_0", "on_kitchen-counter_0"),
                         ("mango-juice_0", "handover_to_human")]
    with pytest.raises(SemanticHintError, match="destination_object_name 'room_center'"):
        api.bring_object_to("coffee-cup_0", "room_center")
    api.move_to(api.get_location_coordinates("inFrontOf_kitchen-counter_0"))
    assert api.grasp("coffee-cup_0") == "success"
    assert api.moves[-1] == ("mango-juice_0", "handover_to_human")    # a grasp is no move
    api.move_to(api.get_location_coordinates("handover_to_human"))
    assert api.handover_object_to_human("coffee-cup_0") == "success"
    assert api.moves[-1] == ("coffee-cup_0", "handover_to_human")


def test_the_household_move_is_marked_for_the_decoding_after_a_correction():
    _, api = make("drinks_and_cup")
    registry = ApiRegistry(public_functions(api))
    function, spec = registry.move_function()
    assert function.name == "bring_object_to" and spec.to_user == "handover_to_human"
    assert (spec.object_param, spec.target_param) == ("object_name", "destination_object_name")
    assert [n for n in ["milk-carton_0", "on_dining-table_0", "inFrontOf_dining-table_0",
                        "handover_to_human", "step-ladder_0"] if spec.movable(n)] == \
        ["milk-carton_0", "step-ladder_0"]
    plain = ApiRegistry(public_functions(HumanoidApi(api.robot, explain_failures=False)))
    assert plain.move_function()[1] == spec            # the paper's listing keeps the mark
    assert "handover_to_human" not in plain["bring_object_to"].listing()
    assert "handover_to_human" in registry["bring_object_to"].listing()


def test_core_imports_nothing_from_the_layers_above_it():
    """Every module of core (the API layer included) imports no ros, sims, eval, session,
    settings, paths, cli or bench module, nor rclpy."""
    above = ", ".join(repr(f"llm_interaction_node.{m}") for m in (
        "ros", "sims", "eval", "session", "settings", "paths", "cli", "memory_cli", "run_cli",
        "eval_cli", "bench"))
    code = ("import importlib, pkgutil, sys, llm_interaction_node.core as core\n"
            "for m in pkgutil.walk_packages(core.__path__, 'llm_interaction_node.core.'):\n"
            "    importlib.import_module(m.name)\n"
            f"above = ({above},)\n"
            "bad = [m for m in sys.modules if m.startswith(('rclpy',) + above)]\n"
            "assert not bad, bad\n"
            "assert 'llm_interaction_node.core.llm.factory' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)

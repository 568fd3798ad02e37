"""A reply read as a hand ("use your left hand, please") puts that hand into the turn's grasps
(issue 44: the household's wrong-hand corrections were 0 of 4, nothing acted on the hand), and
the humanoid API tells how to change hands. The household world and the console are real."""
from __future__ import annotations

import pytest

from llm_interaction_node.bench.household_situations import household_world
from llm_interaction_node.core.apis.humanoid import HumanoidApi
from llm_interaction_node.core.learning.hand import (
    asked_hand,
    at_asked_hand,
    change_of_hands,
    resolved,
    with_unmet_hand,
)
from llm_interaction_node.core.reading import Clause, Reading, Selection, Target
from llm_interaction_node.core.transcript.errors import SemanticHintError

LEFT = Reading("use your left hand", (Clause("hand", hand="left"),))


@pytest.mark.parametrize("source, written", [
    ("grasp('mango-juice_0')", "grasp('mango-juice_0', 'left')"),
    ("grasp('mango-juice_0', 'right')", "grasp('mango-juice_0', 'left')"),
    ("grasp('mango-juice_0', hand='right')", "grasp('mango-juice_0', 'left')"),
    ("grasp('mango-juice_0', 'left')", "grasp('mango-juice_0', 'left')"),
    ("grasp('mango-juice_0', h)", "grasp('mango-juice_0', h)"),        # not readable: as is
    ("bring_object_to('mango-juice_0', 'handover_to_human')",
     "bring_object_to('mango-juice_0', 'handover_to_human')"),
])
def test_a_grasp_in_a_turn_answering_a_hand_takes_that_hand(source, written):
    assert at_asked_hand(LEFT, source) == written
    assert at_asked_hand(None, source) == source
    both = Reading("both", (Clause("hand", hand="both"),))
    assert asked_hand(both) is None and at_asked_hand(both, source) == source


def test_the_api_says_how_to_change_hands():
    world = household_world("drinks_and_cup")
    api = HumanoidApi(world)
    api.move_to(api.get_location_coordinates("inFrontOf_kitchen-counter_0"))
    assert api.grasp("mango-juice_0", "right") == "success"
    with pytest.raises(SemanticHintError) as err:
        api.grasp("mango-juice_0", "left")
    assert "place_object('mango-juice_0', 'on_kitchen-counter_0')" in str(err.value)
    assert "grasp('mango-juice_0', 'left')" in str(err.value)
    assert api.place_object("mango-juice_0", "on_kitchen-counter_0") == "success"
    assert api.grasp("mango-juice_0", "left") == "success"
    with pytest.raises(SemanticHintError, match="already in the left hand$"):
        api.grasp("mango-juice_0")


def test_the_other_hand_is_the_one_not_holding_what_the_robot_holds():
    other = Reading("the other hand, please", (Clause("hand", hand="other"),))
    assert resolved(other, {"left": None, "right": "mango-juice_0"}).render() == "hand: left"
    assert resolved(other, {"left": "tumbler_0", "right": None}).render() == "hand: right"
    # both hands full, or none: the words do not say which is meant, nothing is made up
    assert resolved(other, {"left": "a_0", "right": "b_0"}) == other
    assert resolved(other, {}) == other and asked_hand(other) is None
    assert resolved(LEFT, {"left": None, "right": "x_0"}) == LEFT


@pytest.mark.parametrize("holding, here, program", [
    ({"left": None, "right": "mango-juice_0"}, "inFrontOf_kitchen-counter_0",
     ("place_object('mango-juice_0', 'on_kitchen-counter_0')", "grasp('mango-juice_0', 'left')")),
    # already in the asked hand, the asked hand full, nothing held: nothing to change
    ({"left": "mango-juice_0", "right": None}, "inFrontOf_kitchen-counter_0", ()),
    ({"left": "tumbler_0", "right": "mango-juice_0"}, "inFrontOf_kitchen-counter_0", ()),
    ({"left": None, "right": None}, "inFrontOf_kitchen-counter_0", ()),
    # standing at no surface (the handover place), or nowhere known: the model decides
    ({"left": None, "right": "mango-juice_0"}, "handover_to_human", ()),
    ({"left": None, "right": "mango-juice_0"}, None, ()),
])
def test_the_change_of_hands_is_put_down_here_and_grasp_with_the_asked_hand(holding, here,
                                                                             program):
    assert change_of_hands(LEFT, holding, here) == program
    assert change_of_hands(None, holding, here) == ()


def _read(*clauses):
    return Reading("(said)", tuple(clauses))


MILK_LEFT = _read(Clause("do", Selection("named", ("milk-carton_0",))), Clause("hand", hand="left"))
IN_RIGHT = {"left": None, "right": "milk-carton_0"}


@pytest.mark.parametrize("reply, asks_left", [
    (_read(Clause("do")), True),                                   # "I said your left hand."
    (_read(Clause("do", Selection("named", ("milk-carton_0",)))), True),
    (_read(Clause("do", Selection("named", ("tumbler_0",)))), False),   # about another thing
    (_read(Clause("do", None, Target("me"))), False),              # a place: not the hand
    (_read(Clause("wrong object")), False),
    (_read(Clause("done")), False),
    (_read(Clause("hand", hand="right")), False),                  # the reply's own hand stands
])
def test_a_bare_complaint_about_a_request_that_named_a_hand_asks_for_that_hand(reply, asks_left):
    got = with_unmet_hand(MILK_LEFT, reply, IN_RIGHT)
    assert (asked_hand(got) == "left") == asks_left
    if not asks_left:
        assert got == reply


def test_a_request_hand_the_attempt_kept_or_no_hand_said_asks_for_nothing():
    bare = _read(Clause("do"))
    assert with_unmet_hand(MILK_LEFT, bare, {"left": "milk-carton_0", "right": None}) == bare
    no_hand = _read(Clause("do", Selection("named", ("milk-carton_0",))))
    assert with_unmet_hand(no_hand, bare, IN_RIGHT) == bare
    assert with_unmet_hand(None, bare, IN_RIGHT) == bare

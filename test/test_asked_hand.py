"""A reply read as a hand ("use your left hand, please") puts that hand into the turn's grasps
(issue 44: the household's wrong-hand corrections were 0 of 4, nothing acted on the hand), and
the humanoid API tells how to change hands. The household world and the console are real."""
from __future__ import annotations

import pytest

from llm_interaction_node.bench.household_situations import household_world
from llm_interaction_node.core.apis.humanoid import HumanoidApi
from llm_interaction_node.core.errors import SemanticHintError
from llm_interaction_node.core.learning.hand import asked_hand, at_asked_hand
from llm_interaction_node.core.reading import Clause, Reading

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

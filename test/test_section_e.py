"""The paper's demonstration scenarios (section E of the seed), taught once through the console
and used by a NEW process: improving plans (E1, both hands), user preferences (E2, the ladder
without asking), low-level parameters (E3, faster on a safe route).

None of these lessons is in the seed memory (test_seed_examples checks that): the robot has
them only because a user taught them in a session. Only the LLM is scripted (the statements
a model would write, and the three L_improve answers); the household worlds, the console,
the learning gate, ChromaDB and the embeddings are real, and each session is its own process
(test/drivers/scripted_session.py). E1 is also the lesson test_learning_e2e teaches through a
shared Chroma server and test_ros_e2e through the ROS graph.
"""
import pytest

from learning_support import teach_then_use

pytestmark = pytest.mark.slow


E1_IMPROVED = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'I want to have some juice'}
>>> list_object_locations(affordance='grasp')
[('mango-juice_0', 'on_kitchen-counter_0'), ('coffee-cup_0', 'on_kitchen-counter_0'), \
('tumbler_0', 'on_kitchen-counter_0'), ('kitchen-sponge_0', 'on_dining-table_0'), \
('milk-carton_0', 'on_dining-table_0'), ('empty-mug_0', None)]
>>> say('Ok, I will bring you the mango juice and a cup')
>>> move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))
'success'
>>> grasp('mango-juice_0', 'left')  # juice in the left hand
'success'
>>> grasp('coffee-cup_0', 'right')  # cup in the right hand: one trip
'success'
>>> move_to(get_location_coordinates('handover_to_human'))
'success'
>>> handover_object_to_human('mango-juice_0')
'success'
>>> handover_object_to_human('coffee-cup_0')
'success'
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'Thanks, that was much quicker'}
>>> wait_for_trigger()"""


def test_e1_improving_plans_both_hands(tmp_path):
    counter = "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))"
    human = "move_to(get_location_coordinates('handover_to_human'))"
    first, second = teach_then_use(
        tmp_path, "drinks_and_cup",
        {"utterances": ["I want to have some juice", "can you also bring me a cup?",
                        "Thanks, but next time, can you do this both at once? You have two hands"],
         "responses": ["list_object_locations(affordance='grasp')",
                       "say('Ok, I will bring you the mango juice')", counter,
                       "grasp('mango-juice_0')", human, "handover_object_to_human('mango-juice_0')",
                       "wait_for_trigger()", "say('Ok, I will bring you a cup')", counter,
                       "grasp('coffee-cup_0')", human, "handover_object_to_human('coffee-cup_0')",
                       "wait_for_trigger()"]},
        ("The robot made two trips instead of carrying the juice and the cup at once.",
         "The robot should grasp the juice and the cup with both hands and bring them together."),
        E1_IMPROVED,
        {"utterance": "can I have some juice and a cup?",
         "responses": ["list_object_locations(affordance='grasp')", counter,
                       "grasp('mango-juice_0', 'left')", "grasp('coffee-cup_0', 'right')", human,
                       "handover_object_to_human('mango-juice_0')",
                       "handover_object_to_human('coffee-cup_0')", "wait_for_trigger()"]})
    objects = second["world"]["objects"]
    assert objects["mango-juice_0"]["held_by"] == objects["coffee-cup_0"]["held_by"] == "human"


E2_IMPROVED = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'I want to clean the top of the fridge'}
>>> list_object_locations()
[('coffee-cup_0', 'on_kitchen-counter_0'), ('mango-juice_0', 'on_kitchen-counter_0'), \
('kitchen-sponge_0', 'on_dining-table_0'), ('muesli-box_0', 'on_dining-table_0'), \
('step-ladder_0', None)]
>>> say('Ok, I will bring you the sponge, and the ladder to reach the top of the fridge')
>>> move_to(get_location_coordinates('inFrontOf_dining-table_0'))
'success'
>>> grasp('kitchen-sponge_0')
'success'
>>> move_to(get_location_coordinates('handover_to_human'))
'success'
>>> handover_object_to_human('kitchen-sponge_0')
'success'
>>> # the top of the fridge is high: bring the ladder without asking
... bring_object_to('step-ladder_0', 'inFrontOf_fridge_0')
'success'
>>> say('And here is the ladder. Anything else I can do for you?')
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'thank you, and remember to always bring me the ladder when I need to \
reach a high surface without asking for it'}
>>> wait_for_trigger()"""


def test_e2_user_preference_the_ladder_without_asking(tmp_path):
    table = "move_to(get_location_coordinates('inFrontOf_dining-table_0'))"
    human = "move_to(get_location_coordinates('handover_to_human'))"
    first, second = teach_then_use(
        tmp_path, "ladder_and_shelf",
        {"utterances": ["I want to clean the top of the fridge", "I will also need the ladder",
                        "thank you, and remember to always bring me the ladder when I need to "
                        "reach a high surface without asking for it"],
         "responses": ["list_object_locations()", "say('Ok, I will bring you the sponge')", table,
                       "grasp('kitchen-sponge_0')", human,
                       "handover_object_to_human('kitchen-sponge_0')",
                       "say('I see that the ladder is not in its place. Would you like me to bring "
                       "it to you as well?')", "wait_for_trigger()",
                       "bring_object_to('step-ladder_0', 'inFrontOf_fridge_0')",
                       "say('Here is the ladder. Anything else I can do for you?')",
                       "wait_for_trigger()"]},
        ("The robot asked whether to bring the ladder although the user needs it to reach a "
         "high surface.",
         "When the user needs to reach a high surface, the robot should bring the ladder right "
         "away without asking."),
        E2_IMPROVED,
        {"utterance": "I need to clean on top of the dishwasher",
         "responses": ["list_object_locations()", table, "grasp('kitchen-sponge_0')", human,
                       "handover_object_to_human('kitchen-sponge_0')",
                       "bring_object_to('step-ladder_0', 'inFrontOf_dishwasher_0')",
                       "wait_for_trigger()"]})
    objects = second["world"]["objects"]
    assert objects["kitchen-sponge_0"]["held_by"] == "human"
    assert objects["step-ladder_0"]["location"] is not None     # set up, not at its wall spot
    assert "ask(" not in second["transcript"]


E3_IMPROVED = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'I need the sponge at the workbench'}
>>> say('Ok, I am going to bring the sponge to the workbench')
>>> list_object_locations(affordance='grasp')
[('kitchen-sponge_0', 'on_long-table_0'), ('screwdriver_0', 'on_long-table_0'), \
('cleaning-spray_0', 'on_long-table_0'), ('mineral-water_0', 'on_kitchen-counter_0'), \
('tape-measure_0', None)]
>>> move_to(get_location_coordinates('inFrontOf_long-table_0'))
'success'
>>> grasp('kitchen-sponge_0')
'success'
>>> move_to(get_location_coordinates('inFrontOf_workshop-bench_0'), speed_factor=2.0)  # the \
route from the table to the bench is safe
'success'
>>> place_object('kitchen-sponge_0', 'on_workshop-bench_0')
'success'
>>> say('I have placed the sponge on the workbench. What should I do next?')
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'That was better, thank you'}
>>> wait_for_trigger()"""


def test_e3_low_level_parameter_faster_on_a_safe_route(tmp_path):
    table = "move_to(get_location_coordinates('inFrontOf_long-table_0'))"
    first, second = teach_then_use(
        tmp_path, "sponge_workbench",
        {"utterances": ["I need the sponge at the workbench",
                        "ok, but that was quite slow. remember that the route from the table to "
                        "the bench is safe, you can go faster"],
         "responses": ["say('Ok, I am going to bring the sponge to the workbench')",
                       "list_object_locations(affordance='grasp')", table,
                       "grasp('kitchen-sponge_0')",
                       "move_to(get_location_coordinates('inFrontOf_workshop-bench_0'))",
                       "place_object('kitchen-sponge_0', 'on_workshop-bench_0')",
                       "say('I have placed the sponge on the workbench. What should I do next?')",
                       "wait_for_trigger()"]},
        ("The robot drove slowly from the table to the workbench although that route is safe.",
         "On the route from the table to the workbench the robot should move faster."),
        E3_IMPROVED,
        {"utterance": "can you bring the sponge to the workbench?",
         "responses": ["list_object_locations(affordance='grasp')", table,
                       "grasp('kitchen-sponge_0')",
                       "move_to(get_location_coordinates('inFrontOf_workshop-bench_0'), "
                       "speed_factor=2.0)",
                       "place_object('kitchen-sponge_0', 'on_workshop-bench_0')",
                       "wait_for_trigger()"]})
    assert second["world"]["objects"]["kitchen-sponge_0"]["location"] == "on_workshop-bench_0"
    # faster: the same trip took less simulated time than the slow one being taught
    assert second["world"]["clock"] < first["world"]["clock"]

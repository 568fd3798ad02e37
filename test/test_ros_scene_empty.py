"""Issue 60: one empty scene message emptied the interaction node's view 2 s later, mid-turn
(``list_objects()`` listed 6 objects, a ``grasp()`` of the same turn failed on ``[]``). On
real processes (the node, the simulator for the skills, the test as perception on its own
scene topic): one empty scene never empties the view; two do, but only at a statement
boundary, never while a statement runs (ros/robot/scene_memory.py)."""
import time

import pytest

from fake_llm_server import FakeLLMServer
from test_ros_e2e import running_robot

pytestmark = pytest.mark.slow

TO_COUNTER = "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))"
MID = (f"seen = list_objects(); {TO_COUNTER}; "
       "print('listed before:', 'mango-juice_0' in seen, "
       "'after:', 'mango-juice_0' in list_objects())")


def _output_of_last(user, source):
    """The output of the last input ``source`` ('' for none)."""
    out, seen = "", False
    for e in user.entries:
        if e.kind == "input":
            seen = e.text == source
            if seen:
                out = ""
        elif seen and e.kind == "output":
            out = e.text
    return out


def test_one_empty_scene_keeps_the_view_and_two_wait_for_the_statement_to_end(tmp_path):
    from builtin_interfaces.msg import Time
    from llm_interaction_interfaces.msg import Scene

    from llm_interaction_node.core.apis.humanoid import GRASP
    from llm_interaction_node.ros.conversions import scene_to_msg
    from llm_interaction_node.sims.worlds import load_household_world
    llm = FakeLLMServer()
    llm.text = "wait_for_trigger()"
    try:
        with running_robot(tmp_path, llm.url, tmp_path / "memory", time_scale=0.5,
                           **{"memory.enabled": "false", "topics.scene": "test/scene",
                              "timeouts.first_scene_s": 1.0,
                              "scene.empty_after_s": 0.5}) as (user, procs):
            scene = user.probe.node.create_publisher(Scene, "test/scene", 10)
            user.probe.wait_until(lambda: scene.get_subscription_count() > 0, 30, "the node")
            grasped = [o for o in load_household_world("drinks_and_cup").scene()
                       if GRASP in o.affordances]

            def publish(objects):
                now = user.probe.node.get_clock().now().nanoseconds
                scene.publish(scene_to_msg(objects, stamp=Time(sec=now // 10**9,
                                                               nanosec=now % 10**9)))

            publish(grasped)
            time.sleep(0.3)
            publish([])                                   # one glitch, and it lasts
            procs["node"].wait_for_log("kept the last view", 30)
            time.sleep(1.0)                               # twice scene.empty_after_s
            llm.texts = ["list_objects()", "wait_for_trigger()"]
            user.say("what can you grab?")
            user.wait_idle_after(1)
            assert "mango-juice_0" in _output_of_last(user, "list_objects()"), \
                user.transcript()
            # perception says so twice while a statement runs: the statement keeps its view
            llm.texts = [MID, "list_objects()", "wait_for_trigger()"]
            user.say("go to the counter and look again")
            user.probe.wait_until(lambda: MID in [e.text for e in user.entries], 60,
                                  "the statement to start")
            publish([])
            publish([])
            time.sleep(1.0)                               # the move takes ~3.6 s
            user.wait_idle_after(2, timeout=60)
            assert _output_of_last(user, MID).endswith("listed before: True after: True"), \
                user.transcript()
            # ... and the next statement starts with the empty view
            assert _output_of_last(user, "list_objects()") == "[]", \
                user.transcript()
            assert "the view is empty now" in procs["node"].log()
    finally:
        llm.close()

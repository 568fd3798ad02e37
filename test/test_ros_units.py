"""ROS-layer pieces that need no running graph: parameters, conversions, scene memory, cleaning."""
import math
import time
from dataclasses import fields

import numpy as np
import pytest
import yaml
from llm_interaction_interfaces.msg import SceneObject as SceneObjectMsg

from llm_interaction_node.core.apis.humanoid import GRASP, PLACE_ON_TOP
from llm_interaction_node.core.apis.knowledge import StaticKnowledge
from llm_interaction_node.core.llm import LLMConfig
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.settings.config import flatten
from llm_interaction_node.paths import world_path
from llm_interaction_node.ros import interaction_parameters as parameters
from llm_interaction_node.ros import names
from llm_interaction_node.ros.conversions import (
    base_pose_to_msg,
    msg_to_base_pose,
    msg_to_pose6,
    pose6_to_msg,
    scene_to_msg,
)
from llm_interaction_node.ros.nodes.interaction_node import clean_utterance
from llm_interaction_node.ros.robot.humanoid import SkillTimeouts
from llm_interaction_node.ros.robot.scene_memory import SceneMemory
from llm_interaction_node.ros.skills import SKILL_ACTIONS, SKILL_TYPES, SKILLS
from llm_interaction_node.settings import settings_info
from llm_interaction_node.sims.worlds import load_household_world


def test_the_params_file_repeats_the_declared_defaults_with_their_types():
    data = yaml.safe_load(open("config/interaction_node.yaml"))["interaction_node"][
        "ros__parameters"
    ]
    values = flatten(data)
    assert set(values) <= set(parameters.PARAMETERS)
    for name, value in values.items():
        default = parameters.PARAMETERS[name][0]
        assert type(value) is type(default), name
        assert value == default, f"{name}: the file says {value!r}, the default is {default!r}"
    config = parameters.read(values, env={})
    assert config.settings.llm.base_url is None and config.settings.memory.k == MemoryConfig.k
    assert (
        config.names["actions.grasp"] == SKILL_ACTIONS["grasp"]
        and config.names["topics.asr_text"] == names.ASR_TEXT
    )


def test_the_parameter_list_is_derived_from_the_settings_fields():
    derived = {i.name: i for i in settings_info()}
    assert parameters.PARAMETERS["memory.k"] == (MemoryConfig.k, derived["memory.k"].description)
    assert parameters.PARAMETERS["llm.mode"][0] == "completion" == LLMConfig().mode
    assert parameters.PARAMETERS["llm.base_url"][0] == ""          # None: '' = not set
    assert "llm.api_key" not in parameters.PARAMETERS                # secrets: environment only
    assert set(derived) - {"llm.api_key"} <= set(parameters.PARAMETERS)
    timeouts = {f"timeouts.{f.name}" for f in fields(SkillTimeouts)}
    assert timeouts <= set(parameters.PARAMETERS)
    # every skill has its result timeout, derived from the one table of skills
    mine = SkillTimeouts(grasp_s=7.0)
    assert {skill: mine.result_s(skill) for skill in SKILL_TYPES}["grasp"] == 7.0
    assert all(mine.result_s(skill) > 0 for skill in SKILL_TYPES)
    assert [mine.result_s(s.name) for s in SKILLS if s.name != "grasp"] == \
        [s.result_s for s in SKILLS if s.name != "grasp"]
    assert SkillTimeouts().move_to_s == 120.0 and SkillTimeouts().run_skill_s == 180.0
    assert {f"actions.{skill}" for skill in SKILL_TYPES} <= set(parameters.PARAMETERS)
    with pytest.raises(KeyError):
        mine.result_s("dance")


def test_parameters_are_read_typed_and_bad_ones_refused():
    config = parameters.read({"llm.base_url": "", "memory.host": "", "timeouts.grasp_s": 3,
                              "robot.max_speed_factor": 1.5, "learning.mode": "raw"}, env={})
    assert config.settings.llm.base_url is None and config.settings.memory.host is None
    assert config.node.timeouts.grasp_s == 3.0 and config.settings.learning.mode == "raw"
    assert config.node.robot.api_options() == {"min_speed": 0.1, "max_speed": 1.5}
    with pytest.raises(ValueError, match="timeouts.grasp_s"):
        parameters.read({"timeouts.grasp_s": "soon"}, env={})
    with pytest.raises(ValueError, match="learning.mode"):
        parameters.read({"learning.mode": "sometimes"}, env={})
    with pytest.raises(ValueError, match="unknown parameter"):
        parameters.read({"timeouts.graps_s": 3.0}, env={})
    with pytest.raises(ValueError, match="humanoid"):
        parameters.read({"api": "tabletop"}, env={})


def test_pose_conversions_round_trip():
    for pose in ([1, 2, 0.5, 0.1, -0.2, 2.5], [0, 0, 0, 0, 0, -3.0]):
        assert np.allclose(msg_to_pose6(pose6_to_msg(pose)), pose)
    assert np.allclose(msg_to_base_pose(base_pose_to_msg([1.0, -2.0, 3.0])), [1.0, -2.0, 3.0])
    zero = pose6_to_msg([1, 2, 3, 0, 0, 0])
    zero.orientation.w = 0.0                      # an invalid quaternion counts as identity
    assert np.allclose(msg_to_pose6(zero), [1, 2, 3, 0, 0, 0])


def test_scene_memory_keeps_the_valid_entries_and_adds_configured_furniture():
    knowledge = StaticKnowledge.from_yaml(world_path("drinks_and_cup"))
    warnings = []
    memory = SceneMemory(knowledge, warn=warnings.append)
    world = load_household_world("drinks_and_cup")
    msg = scene_to_msg([o for o in world.scene() if GRASP in o.affordances])
    bad = SceneObjectMsg(name="", object_class="x")
    dup = SceneObjectMsg(name="mango-juice_0", object_class="mango-juice")
    nan = SceneObjectMsg(name="ghost_0", object_class="ghost")
    nan.pose.position.x = math.nan
    bare = SceneObjectMsg(name="apple_3", object_class="apple")       # no affordances given
    msg.objects = list(msg.objects) + [bad, dup, nan, bare]
    memory.update(msg)
    objects = {o.name: o for o in memory.objects()}
    assert "ghost_0" not in objects and "" not in objects
    assert objects["apple_3"].affordances == (GRASP,)
    assert PLACE_ON_TOP in objects["kitchen-counter_0"].affordances    # from the knowledge file
    assert objects["mango-juice_0"].location == "on_kitchen-counter_0"
    assert memory.dropped == 3 and "non-finite pose" in warnings[0]
    assert memory.wait_for_first(0.01)
    assert set(memory.locations()) == set(world.named_locations())


def test_an_empty_scene_is_held_back_and_a_late_one_is_dropped():
    """Issue 45: one empty scene message wiped the view (list_objects() -> [], grasps refused,
    no warning), and an older-stamped scene replaced a newer one."""
    from builtin_interfaces.msg import Time
    knowledge = StaticKnowledge.from_yaml(world_path("drinks_and_cup"))
    warnings = []
    memory = SceneMemory(knowledge, warn=warnings.append, empty_after_s=0.3)
    world = load_household_world("drinks_and_cup")
    grasped = [o for o in world.scene() if GRASP in o.affordances]
    names = {o.name for o in grasped}
    memory.update(scene_to_msg(grasped, stamp=Time(sec=100)))
    memory.update(scene_to_msg([], stamp=Time(sec=101)))              # a glitch
    assert names <= {o.name for o in memory.objects()}
    assert "no objects; kept the last view" in warnings[-1]
    older = [o for o in grasped if o.name != "coffee-cup_0"]
    memory.update(scene_to_msg(older, stamp=Time(sec=99)))            # came late
    assert "coffee-cup_0" in {o.name for o in memory.objects()}
    assert memory.late == 1 and "came late" in warnings[-1]
    memory.update(scene_to_msg(older, stamp=Time(sec=102)))           # newer: taken
    assert "coffee-cup_0" not in {o.name for o in memory.objects()}
    memory.update(scene_to_msg(grasped))                              # unstamped: taken
    assert "coffee-cup_0" in {o.name for o in memory.objects()}
    for _ in range(3):                                                # empty, and it lasts
        memory.update(scene_to_msg([], stamp=Time(sec=103)))
    assert names <= {o.name for o in memory.objects()}
    assert sum("kept the last view" in w for w in warnings) == 1      # not once per message
    time.sleep(0.35)
    assert not names & {o.name for o in memory.objects()}
    assert "the view is empty now" in warnings[-1]
    assert memory.wait_for_stamp(103 * 10**9, 0.01)


def _scene_memory(warnings, **kw):
    """A scene memory of drinks_and_cup holding its graspable objects (a real Scene message)."""
    from builtin_interfaces.msg import Time
    memory = SceneMemory(StaticKnowledge.from_yaml(world_path("drinks_and_cup")),
                         warn=warnings.append, **kw)
    grasped = [o for o in load_household_world("drinks_and_cup").scene()
               if GRASP in o.affordances]
    memory.update(scene_to_msg(grasped, stamp=Time(sec=100)))
    return memory, grasped, {o.name for o in grasped}


def _empty(sec):
    from builtin_interfaces.msg import Time
    return scene_to_msg([], stamp=Time(sec=sec))


def _seen(memory):
    return {o.name for o in memory.objects()}


def test_one_empty_scene_never_empties_the_view_however_long_it_lasts():
    """Issue 60: one empty scene message emptied the view 2 s later (list_objects() listed 6
    objects, a grasp() of the same turn failed on []). Perception must say so twice."""
    warnings = []
    memory, _, names = _scene_memory(warnings, empty_after_s=0.2)
    memory.update(_empty(101))
    time.sleep(0.3)                                   # past empty_after_s: one message only
    assert names <= _seen(memory)
    assert not any("empty now" in w for w in warnings)
    memory.update(_empty(102))                        # said twice, the first 0.3 s old
    assert not names & _seen(memory)
    assert "reported no objects 2 times" in warnings[-1]
    assert memory.wait_for_stamp(102 * 10**9, 0.01)


def test_two_empty_scenes_empty_the_view_only_once_the_first_is_old_enough():
    warnings = []
    memory, grasped, names = _scene_memory(warnings, empty_after_s=0.4)
    memory.update(_empty(101))
    memory.update(_empty(102))
    assert names <= _seen(memory)                     # twice, but not yet empty_after_s
    time.sleep(0.45)
    assert not names & _seen(memory)
    # a scene with objects between two empty ones starts the count again
    memory.update(scene_to_msg(grasped))
    memory.update(_empty(104))
    memory.update(scene_to_msg(grasped))
    memory.update(_empty(105))
    time.sleep(0.45)
    assert names <= _seen(memory)


def test_an_empty_scene_never_empties_the_view_mid_statement():
    """The view a statement started with keeps its objects until the statement ends; an
    empty scene takes effect at the statement boundary; objects still update mid-statement."""
    warnings = []
    memory, grasped, names = _scene_memory(warnings, empty_after_s=0.0)
    memory.statement_started()
    listed = _seen(memory)                            # list_objects() of the statement
    memory.update(_empty(101))
    memory.update(_empty(102))
    memory.update(_empty(103))
    time.sleep(0.05)
    assert _seen(memory) == listed                    # the grasp() after it finds them
    assert not any("empty now" in w for w in warnings)
    memory.statement_ended()                          # the boundary
    assert not names & _seen(memory)
    assert "the view is empty now" in warnings[-1]
    # a view with objects again; mid-statement a scene with objects replaces it at once
    memory.update(scene_to_msg(grasped))
    memory.statement_started()
    fewer = [o for o in grasped if o.name != "coffee-cup_0"]
    memory.update(scene_to_msg(fewer))                # a skill moved something
    assert "coffee-cup_0" not in _seen(memory) and names - {"coffee-cup_0"} <= _seen(memory)
    memory.statement_ended()
    # emptying due between statements: the next statement starts with the empty view
    memory.update(_empty(110))
    memory.update(_empty(111))
    memory.statement_started()
    assert not names & _seen(memory)
    memory.update(scene_to_msg(grasped))
    assert names <= _seen(memory)
    memory.statement_ended()


def test_the_empty_scene_rule_is_the_node_parameters_scene_star():
    assert parameters.PARAMETERS["scene.empty_messages"][0] == 2
    assert parameters.PARAMETERS["scene.empty_after_s"][0] == 2.0
    config = parameters.read({"scene.empty_messages": 1, "scene.empty_after_s": 0.0}, env={})
    assert (config.node.scene.empty_messages, config.node.scene.empty_after_s) == (1, 0.0)
    with pytest.raises(ValueError, match="scene.empty_messages"):
        parameters.read({"scene.empty_messages": 0}, env={})
    # one message at once, as configured
    warnings = []
    memory, _, names = _scene_memory(warnings, empty_messages=1, empty_after_s=0.0)
    memory.update(_empty(101))
    assert not names & _seen(memory)


def test_a_bad_scene_message_updates_the_view_with_its_good_entries_only():
    """Issue 18: one bad message (NaN pose, empty name, a duplicate) must not make the real
    objects vanish; duplicates are reported, not silently resolved."""
    knowledge = StaticKnowledge.from_yaml(world_path("drinks_and_cup"))
    warnings = []
    memory = SceneMemory(knowledge, warn=warnings.append)
    world = load_household_world("drinks_and_cup")
    grasped = [o for o in world.scene() if GRASP in o.affordances]
    memory.update(scene_to_msg(grasped))                                  # a clean scene
    before = {o.name: o for o in memory.objects()}
    assert not warnings and {"mango-juice_0", "coffee-cup_0"} <= set(before)
    msg = scene_to_msg([o for o in grasped if o.name != "coffee-cup_0"])
    for entry in msg.objects:
        if entry.name == "mango-juice_0":
            entry.pose.position.x = math.nan                              # glitch on the juice
    moved = SceneObjectMsg(name="apple_3", object_class="apple")          # a new object
    twice = [SceneObjectMsg(name="bowl_9", object_class="bowl") for _ in range(2)]
    twice[1].pose.position.x = 5.0
    msg.objects = list(msg.objects) + [SceneObjectMsg(name=""), moved] + twice
    memory.update(msg)
    after = {o.name: o for o in memory.objects()}
    assert np.allclose(after["mango-juice_0"].pose, before["mango-juice_0"].pose)   # kept
    assert "coffee-cup_0" in after                  # absent from a bad message: not vanished
    assert "apple_3" in after                       # the good entries updated the view
    assert "bowl_9" in after and memory.duplicates == 1
    assert "'bowl_9' given 2 times (no previous view: kept the first entry)" in warnings[-1]
    assert "mango-juice_0: non-finite pose" in warnings[-1]
    twice[0].pose.position.x = 7.0
    msg = scene_to_msg(grasped)
    msg.objects = list(msg.objects) + twice
    memory.update(msg)                              # a duplicate again: the previous view stays
    assert after["bowl_9"].pose[0] == memory_pose(memory, "bowl_9")[0]
    assert "'bowl_9' given 2 times (kept the previous view of it)" in warnings[-1]
    memory.update(scene_to_msg(grasped))            # a clean message replaces the view
    assert "apple_3" not in {o.name for o in memory.objects()}


def memory_pose(memory, name):
    return next(o.pose for o in memory.objects() if o.name == name)


def test_knowledge_matches_the_world_it_was_read_from():
    for name in ("drinks_and_cup", "ladder_and_shelf", "sponge_workbench"):
        knowledge = StaticKnowledge.from_yaml(world_path(name))
        world = load_household_world(name)
        assert list(knowledge.locations) == list(world.named_locations())
        furniture = {o.name for o in world.scene() if PLACE_ON_TOP in o.affordances
                     and GRASP not in o.affordances}
        assert {f.name for f in knowledge.furniture} >= furniture


@pytest.mark.parametrize("raw, clean", [
    ("  hello \t robot \n", "hello robot"),
    ("\x1b[31mred\x1b[0m text\x07", "red text"),
    ("\x01\x02", ""),
])
def test_clean_utterance(raw, clean):
    assert clean_utterance(raw, 100) == clean


def test_clean_utterance_cuts_long_text_with_a_note():
    out = clean_utterance("word " * 1000, 50)
    assert out.startswith("word word") and out.endswith("[... cut: 4999 characters in all]")
    assert len(out) < 100


def test_a_skill_without_a_server_returns_what_the_api_promises_and_the_reason_goes_to_the_node():
    """The robot returns exactly 'failure' (the protocol's contract) and the API says it in the
    world's terms (the robot has not moved, so its place is not known); the server's reason
    travels as a typed SkillOutcome to the node (which says it) and the log."""
    from llm_interaction_node.core.apis.humanoid import FAILURE, HumanoidApi
    from llm_interaction_node.core.user.interrupt import StopSignal
    from llm_interaction_node.ros.robot.humanoid import RosHumanoidRobot
    from llm_interaction_node.ros.robot.skill_client import SkillClient
    from ros_support import probe_node

    knowledge = StaticKnowledge.from_yaml(world_path("drinks_and_cup"))
    scene = SceneMemory(knowledge)
    world = load_household_world("drinks_and_cup")
    scene.update(scene_to_msg(world.scene()))
    told = []
    with probe_node("skill_failure_probe") as probe:
        stop = StopSignal()
        skills = {skill: SkillClient(probe.node, action, f"no_such_server/{skill}", stop,
                                     server_wait_s=0.2)
                  for skill, action in SKILL_TYPES.items()}
        robot = RosHumanoidRobot(skills, scene, now_ns=lambda: 0,
                                 on_failure=lambda skill, outcome: told.append((skill, outcome)))
        result = HumanoidApi(robot).grasp("mango-juice_0")
    assert (
        result
        == f"{FAILURE}: mango-juice_0 is on the kitchen counter; grasping mango-juice_0 did not "
           f"work"
    )
    assert robot.robot_pose() is None
    (skill, outcome), = told
    assert skill == "grasp" and outcome.infrastructure and outcome.status == FAILURE
    assert "no action server 'no_such_server/grasp'" in outcome.message
    assert robot.outcomes[-1] == ("grasp", outcome)


def test_the_real_robot_node_does_not_import_the_simulator():
    import subprocess
    import sys
    code = ("import sys, llm_interaction_node.ros.nodes.interaction_node; "
            "bad = [m for m in sys.modules if m.startswith('llm_interaction_node.sims')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


LIFECYCLE_NODE = '''
import sys, time
from rclpy.node import Node
from llm_interaction_node.ros.node_main import run_node

class Probe(Node):
    def __init__(self):
        super().__init__("lifecycle_probe")
        self.declare_parameter("build_s", 0.0)
        self.declare_parameter("bad", False)
        print("building", flush=True)
        time.sleep(self.get_parameter("build_s").value)
        if self.get_parameter("bad").value:
            raise ValueError("parameter bad is set")
        self.ticks = 0
        self.create_timer(0.05, self.tick)

    def tick(self):
        self.ticks += 1

    def start(self):
        print("started", flush=True)

    def close(self):
        time.sleep(0.3)
        print(f"closing: context ok {self.context.ok()}, executor spins {self.ticks > 0}", \
flush=True)

sys.exit(run_node(Probe, "lifecycle_probe", sys.argv))
'''


def _lifecycle(ros_args, ignore_sigint=False):
    import signal
    import subprocess
    import sys
    return subprocess.Popen(
        [sys.executable, "-c", LIFECYCLE_NODE, "--ros-args", *ros_args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        if ignore_sigint
        else None,
    )


def _wait_for(proc, text, timeout=240):
    import time
    lines, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if text in line:
            return "".join(lines)
    raise AssertionError(f"no {text!r}: {''.join(lines)}")


@pytest.mark.timeout(900)
def test_every_node_runs_through_run_node_stops_on_a_signal_and_refuses_bad_parameters():
    """node_main.run_node: SIGINT (also when it was ignored, a background job) and SIGTERM
    end the node with 0 after its close() ran while the executor still spun; a bad parameter
    is one line and exit code 2; a signal while the node is still built ends it at once."""
    import signal
    import time
    running = {"int": _lifecycle([]), "ignored": _lifecycle([], ignore_sigint=True),
               "term": _lifecycle([])}
    bad = _lifecycle(["-p", "bad:=true"])
    slow = _lifecycle(["-p", "build_s:=120.0"])
    try:
        for name, proc in running.items():
            _wait_for(proc, "started")
            proc.send_signal(signal.SIGTERM if name == "term" else signal.SIGINT)
        for name, proc in running.items():
            rest, _ = proc.communicate(timeout=120)
            assert proc.returncode == 0, (name, rest)
            assert "closing: context ok True, executor spins True" in rest, (name, rest)
            assert "Traceback" not in rest
        out, _ = bad.communicate(timeout=240)
        assert bad.returncode == 2, out
        assert "lifecycle_probe: parameter bad is set" in out and "Traceback" not in out
        _wait_for(slow, "building")
        sent = time.monotonic()
        slow.send_signal(signal.SIGINT)
        out, _ = slow.communicate(timeout=100)
        assert time.monotonic() - sent < 100 and slow.returncode == 0, out
        assert "started" not in out and "Traceback" not in out
    finally:
        for proc in (*running.values(), bad, slow):
            if proc.poll() is None:
                proc.kill()
                proc.wait()

"""ROS-layer pieces that need no running graph: parameters, conversions, scene memory, cleaning."""
import math

import numpy as np
import pytest
import yaml

from llm_interaction_interfaces.msg import Scene, SceneObject as SceneObjectMsg

from llm_interaction_node.core.apis.humanoid import GRASP, PLACE_ON_TOP, SceneObject
from llm_interaction_node.core.apis.knowledge import StaticKnowledge
from llm_interaction_node.ros import names, parameters
from llm_interaction_node.ros.conversions import (base_pose_to_msg, msg_to_base_pose, msg_to_pose6,
                                                  pose6_to_msg, scene_to_msg)
from llm_interaction_node.ros.interaction_node import clean_utterance
from llm_interaction_node.ros.scene_memory import SceneMemory
from llm_interaction_node.session import AgentSettings
from llm_interaction_node.sims.worlds import load_household_world, world_path


def test_the_params_file_sets_every_declared_parameter_with_its_type():
    data = yaml.safe_load(open("config/interaction_node.yaml"))["interaction_node"]["ros__parameters"]

    def flat(d, prefix=""):
        for k, v in d.items():
            if isinstance(v, dict):
                yield from flat(v, f"{prefix}{k}.")
            else:
                yield f"{prefix}{k}", v
    values = dict(flat(data))
    assert set(values) == set(parameters.PARAMETERS)
    for name, (default, _description) in parameters.PARAMETERS.items():
        assert type(values[name]) is type(default), name
    settings = AgentSettings.from_dict(parameters.agent_settings_dict(values))
    assert settings.llm.base_url is None and settings.memory["k"] == 16
    assert values["actions.grasp"] == names.GRASP and values["topics.asr_text"] == names.ASR_TEXT


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

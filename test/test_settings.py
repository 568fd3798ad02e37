"""The one settings object: defaults in one place, the files repeat them, sources in order,
unknown keys refused everywhere, and every entry point builds its agent with build_session."""
import subprocess
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import pytest
import yaml

from llm_interaction_node.core.llm import LLMConfig
from llm_interaction_node.core.settings.config import describe, flatten, from_mapping, setting
from llm_interaction_node.core.settings.config_files import config_path
from llm_interaction_node.settings import Settings, load_settings, settings_info


def test_agent_yaml_repeats_the_defaults():
    data = yaml.safe_load(config_path("agent.yaml").read_text())
    defaults = flatten(Settings().to_dict())
    for name, value in flatten(data).items():
        assert name in defaults, f"agent.yaml sets {name}, which is no setting"
        assert value == defaults[name], (
            f"agent.yaml: {name} is {value!r}, the default {defaults[name]!r}"
        )
    assert Settings.from_dict(data, env={}) == Settings()


def test_the_llm_mode_default_is_completion_everywhere():
    node = yaml.safe_load(config_path("interaction_node.yaml").read_text())
    assert LLMConfig().mode == "completion"
    assert load_settings(env={}).llm.mode == "completion"
    assert node["interaction_node"]["ros__parameters"]["llm"]["mode"] == "completion"


@pytest.mark.parametrize("text,named", [
    ("agent:\n  max_statments_per_turn: 4\n", "unknown agent setting.*max_statments_per_turn"),
    ("llm:\n  modle: x\n", "unknown llm setting.*modle"),
    ("memory:\n  kk: 4\n", "unknown memory setting.*kk"),
    ("learning:\n  k: 4\n", "unknown learning setting.*k; known: mode"),
    ("agnet:\n  loop_repeats: 4\n", "unknown settings section.*agnet"),
    ("agent:\n  statement_timeout_s: soon\n", "agent.statement_timeout_s='soon' is not a number"),
    ("learning:\n  mode: sometimes\n", "learning.mode='sometimes' is invalid: use one of"),
    ("memory:\n  port: 0\n", "memory.port=0 must be >= 1"),
    ("memory:\n  order: random\n", "memory.order='random' is invalid"),
    ("agent: 3\n", "'agent' settings must be a mapping"),
])
def test_unknown_keys_and_bad_values_are_refused_in_every_section(tmp_path, text, named):
    path = tmp_path / "agent.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=named) as info:
        load_settings(path, env={})
    assert str(path) in str(info.value)


def test_sources_in_order_defaults_file_environment_options(tmp_path):
    path = tmp_path / "agent.yaml"
    path.write_text(
        "llm:\n  model: from-file\n  max_tokens: 100\nagent:\n  statement_timeout_s: 5\n"
    )
    env = {"LLM_INTERACTION_MODEL": "from-env"}
    settings = load_settings(path, env=env)
    assert settings.llm.model == "from-env" and settings.llm.max_tokens == 100
    assert settings.agent.statement_timeout_s == 5.0 and settings.memory.k == 16
    settings = load_settings(path, env=env, overrides={
        "llm.model": "from-option", "agent.statement_timeout_s": 2, "memory.k": None})
    assert settings.llm.model == "from-option" and settings.agent.statement_timeout_s == 2.0
    assert settings.memory.k == 16                           # None: the option was not given
    with pytest.raises(ValueError, match="unknown memory setting.*kk"):
        load_settings(path, env={}, overrides={"memory.kk": 3})


def test_the_settings_reach_the_agent():
    settings = Settings().with_overrides({"agent.max_statements_per_turn": 4,
                                          "agent.loop_repeats": 5, "llm.temperature": 0.5})
    assert settings.agent.max_statements_per_turn == 4 and settings.agent.loop_repeats == 5
    assert settings.llm.temperature == 0.5


def test_a_setting_is_one_dataclass_field():
    @dataclass
    class Section:
        retries: int = setting(3, "how often to retry")
        ratio: float = setting(0.5, "a ratio")

    assert [(i.name, i.default, i.description) for i in describe(Section)] == [
        ("retries", 3, "how often to retry"), ("ratio", 0.5, "a ratio")]
    assert from_mapping(Section, {"retries": "4", "ratio": 1}, "s") == Section(4, 1.0)
    with pytest.raises(ValueError, match="s.retries"):
        from_mapping(Section, {"retries": 1.5}, "s")
    assert all(i.description for i in settings_info()), "every setting says what it is"


def test_a_choice_may_be_a_str_enum_read_from_its_values():
    """memory.order / memory.scoring are the StrEnums of the modules that act on them; the
    parser takes their values (any case, as from the environment), the field holds the member,
    and the listing (ROS parameters, agent.yaml) shows the plain value."""
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.order import Order
    from llm_interaction_node.core.memory.strategies import Scoring

    class Colour(StrEnum):
        RED = "red"
        BLUE = "blue"

    @dataclass
    class Section:
        colour: Colour = setting(Colour.RED, "a colour")

    assert from_mapping(Section, {"colour": " Blue "}, "s").colour is Colour.BLUE
    assert from_mapping(Section, {"colour": Colour.BLUE}, "s").colour is Colour.BLUE
    with pytest.raises(ValueError, match=r"s.colour='green' is invalid: use one of 'red', 'blue'"):
        from_mapping(Section, {"colour": "green"}, "s")
    [info] = describe(Section)
    assert info.default == "red" and type(info.default) is str
    assert MemoryConfig().order is Order.SEED_BLOCK and MemoryConfig().scoring is Scoring.REFERENCE
    assert MemoryConfig(order="stable").order is Order.STABLE         # built in code: checked too
    settings = Settings.from_dict({"memory": {"scoring": "per_utterance"}},
                                  env={"LLM_INTERACTION_MODEL": "m"})
    assert settings.memory.scoring is Scoring.PER_UTTERANCE
    assert settings.with_overrides({"memory.order": "similarity"}).memory.order is Order.SIMILARITY
    defaults = {i.name: i.default for i in settings_info()}
    assert type(defaults["memory.order"]) is str and defaults["memory.scoring"] == "reference"


def test_every_agent_is_assembled_by_build_session():
    """chat, the interaction node and the benchmark's ours: no second assembly."""
    import inspect

    import llm_interaction_node
    from llm_interaction_node import cli
    from llm_interaction_node.eval.systems import ours

    node = (
        Path(llm_interaction_node.__file__).parent / "ros" / "nodes" / "interaction_node.py"
    ).read_text()
    for source in (inspect.getsource(cli.cmd_chat), inspect.getsource(ours), node):
        assert "build_session(" in source
        for part in ("build_agent(", "build_console(", "learning_console(", "ConsoleSession(",
                     "InteractionBuiltins(", "Sandbox("):
            assert part not in source, part


def test_bench_does_not_import_the_eval_command():
    code = ("import sys, llm_interaction_node.bench.eval_protocol; "
            "assert 'llm_interaction_node.eval_cli' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_systems_registry_names_every_variant_without_importing_the_agent():
    code = ("import sys; from llm_interaction_node.eval.systems import OURS, SYSTEMS; "
            "assert set(OURS) < set(SYSTEMS) and 'ours_frozen' in OURS; "
            "assert 'llm_interaction_node.session' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_world_directories_are_a_setting_read_from_the_environment(tmp_path):
    """LLM_INTERACTION_WORLDS is the env metadata of paths.WorldSettings (process-wide: nodes
    without agent settings look worlds up), read by the one settings mechanism."""
    import os

    from llm_interaction_node.core.settings.config import environment_variables
    from llm_interaction_node.paths import WorldSettings, list_worlds, world_dirs, world_path

    assert environment_variables(WorldSettings) == {"dirs": "LLM_INTERACTION_WORLDS"}
    (tmp_path / "b").mkdir()
    mine = tmp_path / "b" / "my_kitchen.yaml"
    mine.write_text(world_path("drinks_and_cup", env={}).read_text())
    env = {"LLM_INTERACTION_WORLDS": f"{tmp_path / 'a'}{os.pathsep} {tmp_path / 'b'} {os.pathsep}"}
    assert world_dirs(env)[:2] == [tmp_path / "a", tmp_path / "b"]
    assert world_path("my_kitchen", env) == mine and "my_kitchen" in list_worlds(env)
    with pytest.raises(FileNotFoundError, match="no world 'my_kitchen'"):
        world_path("my_kitchen", env={})

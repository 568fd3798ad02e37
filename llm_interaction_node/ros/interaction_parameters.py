"""The interaction node's parameters: declared up front, derived from the typed settings.

* ``llm.*``, ``agent.*``, ``memory.*``, ``learning.*``: the fields of
  :class:`~llm_interaction_node.settings.Settings`, the settings ``config/agent.yaml`` gives
  the terminal chat (the API key is no parameter: it comes from the environment);
* ``api``, ``knowledge``, ``robot.*``, ``timeouts.*``, ``scene.*``, ``asr.*``, ``instruct.*``:
  the fields of :class:`NodeSettings`, the node's own;
* ``actions.*``, ``topics.*``, ``services.*``, ``servers.*``: interface names (defaults in
  :mod:`.names`, the skills' actions in :mod:`.skills`; ``servers.*``: the actions the node
  serves).

Defaults and descriptions come from those fields; ``config/interaction_node.yaml`` repeats
them (a test keeps it equal). ROS parameters cannot be null: '' means "not set" where the
default is none. As for the chat, ``LLM_INTERACTION_*`` environment variables override
``llm.*``. No rclpy here except in :func:`declare` (``llm-interaction run`` reads params
files with :func:`read_params_files` before any node starts), which declares them with the
helper of every node (:func:`.node_parameters.declare_settings`).
"""
from __future__ import annotations

import inspect
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..core.apis.humanoid import HumanoidApi
from ..core.apis.sets import api_set
from ..core.settings.config import SettingInfo, describe, flatten, from_mapping, nest, setting
from ..paths import DEFAULT_WORLD
from ..settings import Settings, settings_info
from . import names
from .instruction import InstructSettings
from .robot.humanoid import RosHumanoidRobot, SkillTimeouts
from .robot.scene_memory import SceneSettings
from .skills import SKILL_ACTIONS

_SPEED = inspect.signature(HumanoidApi).parameters      # the API's own speed limits


@dataclass
class RobotLimits:
    """``robot.*``: limits the humanoid API checks before a skill is sent."""

    min_speed_factor: float = setting(_SPEED["min_speed"].default,
                                      "lowest speed_factor move_to accepts")
    max_speed_factor: float = setting(_SPEED["max_speed"].default,
                                      "highest speed_factor move_to accepts")

    def api_options(self) -> dict[str, float]:
        return {"min_speed": self.min_speed_factor, "max_speed": self.max_speed_factor}


@dataclass
class SpeechInput:
    """``asr.*``: hygiene of recognised speech before it reaches the LLM."""

    max_chars: int = setting(2000, "longer utterances are cut (with a note) before they "
                             "reach the LLM")
    queued_notice: int = setting(3, "when this many utterances wait while the robot is busy, "
                                 "it says that it queued them (once per flood; 0 = never)")
    pause_after_speech_s: float = setting(
        3.0, "while the user speaks (speech/voice_activity) no statement or skill goal "
        "starts; after the speech ended at most this long for its result (0 = no pause)",
        minimum=0.0)
    pause_max_s: float = setting(30.0, "the longest pause for one utterance", above=0.0)


@dataclass
class NodeSettings:
    """The interaction node's own settings (not the agent's)."""

    api: str = setting("humanoid", "API set the LLM sees (the ROS robot implements 'humanoid')")
    knowledge: str = setting(DEFAULT_WORLD, "static scene knowledge: a world name from "
                             "config/worlds or a YAML path (named locations, furniture, "
                             "object classes)")
    export_dir: str = setting("", "directory of the interaction/memory export files ('' = "
                              "<memory.path>/exports); names with a path separator or '..' "
                              "are refused")
    robot: RobotLimits = field(default_factory=RobotLimits)
    timeouts: SkillTimeouts = field(default_factory=SkillTimeouts)
    scene: SceneSettings = field(default_factory=SceneSettings)
    asr: SpeechInput = field(default_factory=SpeechInput)
    instruct: InstructSettings = field(default_factory=InstructSettings)

    def __post_init__(self) -> None:
        if api_set(self.api) is not RosHumanoidRobot.API_SET:
            raise ValueError(f"api {self.api!r}: the ROS robot implements "
                             f"{RosHumanoidRobot.API_SET.name!r} only")


# interface name parameters -> (default, description)
INTERFACES: dict[str, tuple[str, str]] = {
    **{f"actions.{skill}": (name, f"action server of the {skill} skill")
       for skill, name in SKILL_ACTIONS.items()},
    "topics.scene": (names.SCENE, "perceived scene (Scene)"),
    "topics.markers": (names.MARKERS, "the scene memory as RViz markers "
                       "(visualization_msgs/MarkerArray, transient local)"),
    "topics.skill_events": (names.SKILL_EVENTS, "each skill goal and result as JSON "
                            "(std_msgs/String)"),
    "markers.frame_id": ("map", "fixed frame of the markers (the scene's frame)"),
    "topics.asr_text": (names.ASR_TEXT, "recognised user speech (std_msgs/String)"),
    "topics.tts_text": (names.TTS_TEXT, "text for the robot to say (std_msgs/String)"),
    "topics.transcript": (names.TRANSCRIPT, "live console transcript (ConsoleEntry)"),
    "topics.state": (names.STATE, "idle | busy | learning | warming (std_msgs/String, latched)"),
    "topics.llm_progress": (names.LLM_PROGRESS, "how far a long LLM call is (std_msgs/String)"),
    "topics.stop": (names.STOP, "stop the running skill and generation (std_msgs/Empty)"),
    "topics.voice_activity": (names.VOICE_ACTIVITY, "the user speaks (std_msgs/Bool, latched, "
                              "from the asr node)"),
    "topics.asr_result": (names.ASR_RESULT, "each utterance the asr node judged (AsrResult)"),
    "services.stop": (names.STOP, "stop, as a std_srvs/Trigger service"),
    "services.reset": (names.RESET, "forget the current interaction (std_srvs/Trigger)"),
    "services.learn": (names.LEARN, "learn from the current interaction (Learn)"),
    "services.memory": (names.MEMORY, "inspect / edit the example memory (ManageMemory)"),
    "services.answer": (names.ANSWER, "answer the question an Instruct goal asks (Answer)"),
    "servers.instruct": (names.INSTRUCT, "the Instruct action this node serves: other nodes "
                         "instruct the robot and get its outcome (Instruct)"),
}

_AGENT = [info for info in settings_info() if not info.secret]
_NODE = describe(NodeSettings)
_UNSET_EMPTY = {info.name for info in _AGENT + _NODE if info.default is None}

# name -> (default, description): every parameter the node declares
PARAMETERS: dict[str, tuple[Any, str]] = {
    **{info.name: ("" if info.default is None else info.default, info.description)
       for info in _AGENT + _NODE},
    **INTERFACES,
}


@dataclass
class NodeConfig:
    """The parameters, typed: the agent's settings, the node's own, the interface names."""

    settings: Settings
    node: NodeSettings
    names: dict[str, str]


def read(values: Mapping[str, Any], env: Mapping[str, str] = os.environ) -> NodeConfig:
    """Parameter values (dotted names; missing ones: defaults) -> a NodeConfig.
    ValueError for unknown names and bad values."""
    unknown = sorted(set(values) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)}")
    values = {name: None if name in _UNSET_EMPTY and value == "" else value
              for name, value in values.items()}
    agent = {i.name: values[i.name] for i in _AGENT if i.name in values}
    own = {i.name: values[i.name] for i in _NODE if i.name in values}
    interfaces = {name: values.get(name, default) for name, (default, _) in INTERFACES.items()}
    return NodeConfig(
        Settings.from_dict(nest(agent), env),
        from_mapping(NodeSettings, nest(own), "node"),
        interfaces,
    )


def read_params_files(files: Sequence[str | Path], node: str,
                      overrides: Mapping[str, Any] | None = None,
                      env: Mapping[str, str] = os.environ) -> NodeConfig:
    """What the node would read from these params files (later ones win) and ``-p``
    ``overrides``, checked before the node is started."""
    values: dict[str, Any] = {}
    for file in files:
        data = yaml.safe_load(Path(file).read_text(encoding="utf-8")) or {}
        values.update(flatten((data.get(node) or {}).get("ros__parameters") or {}))
    return read({**values, **(overrides or {})}, env)


def declare(node) -> dict[str, Any]:
    """Declare every parameter on ``node`` (the one helper of every node); return name -> value."""
    from .node_parameters import declare_settings
    return declare_settings(node, [SettingInfo(name, default, description, type(default))
                                   for name, (default, description) in PARAMETERS.items()])

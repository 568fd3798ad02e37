"""The settings: one typed object for chat, run, the interaction node, memory and eval.

Each section is a dataclass whose fields carry their default and a description
(:func:`~.core.settings.config.setting`), written once:

=========  ==============================================  ================================
section    class                                           where
=========  ==============================================  ================================
llm        :class:`~.core.llm.config.LLMConfig`            ``core/llm/config.py``
agent      :class:`~.core.agent.AgentConfig`               ``core/agent/config.py``
memory     :class:`MemorySettings` (= ``MemoryConfig``     here (``core/memory/config.py``)
           + ``enabled``)
learning   :class:`LearningSettings`                       here
robot_api  :class:`RobotApiSettings`                       here
=========  ==============================================  ================================

Sources, later ones win (:func:`~.core.settings.config.load_section`, the same for every section):
the defaults; the fallback variables OPENAI_BASE_URL / OPENAI_API_KEY; ``config/agent.yaml``
(``--config FILE``) or, in the interaction node, its ROS parameters \
(:mod:`.ros.interaction_parameters`
derives the parameter list from these fields); the environment variable a field names
(``env=``, e.g. ``LLM_INTERACTION_MODEL``); command-line options (``overrides``). Unknown keys
are refused in every section.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from .core.agent import AgentConfig
from .core.apis.sets import ApiPreset
from .core.learning.learner import LearningMode
from .core.llm.config import LLMConfig
from .core.memory.config import MemoryConfig
from .core.settings.config import SettingInfo, check_section, describe, load_section, nest, setting
from .core.settings.config_files import config_path

SETTINGS_FILE = "agent.yaml"


@dataclass
class MemorySettings(MemoryConfig):
    """The example memory (``memory:``): where it is and how it is queried, and whether the
    agent has one at all."""

    enabled: bool = setting(True, "false: fixed examples from config/transcripts, no learning")


@dataclass
class LearningSettings:
    """How the memory grows and is used (``learning:``); the ablations of the paper."""

    mode: LearningMode = setting("auto", "auto (L_improve's rewrite where it passes every "
                                 "check, else final) | improve (L_improve) | final (no LLM: the "
                                 "request and the attempt the user accepted, replayed) | "
                                 "corrected (no LLM: the request, what worked, the corrections "
                                 "as comments) | raw "
                                 "(store as is, w/o improve) | off (w/o learning)")
    retrieval: bool = setting(True, "false: every example in memory goes into the prompt, "
                              "oldest first (w/o retrieval)")
    store_episodes: bool = setting(False, "store successful episodes (HELPER / Dynamic CaP "
                                   "style growth, benchmark)")
    scenes_check: bool = setting(True, "a lesson whose request moves things is run in 2 changed "
                                 "copies of its scene first; one that does not do there what "
                                 "its reading says is stored as an example of its own scene "
                                 "(false: lessons are not judged; the ablation)")

    def __post_init__(self) -> None:
        check_section(self, "learning")


@dataclass
class RobotApiSettings:
    """The robot API the console offers (``robot_api:``): the same for every system (ours,
    its ablations, CaP, HELPER), from the one preset (``core/apis/sets.py``)."""

    preset: ApiPreset = setting("ours", "ours: this project's API (tabletop: named places in "
                                "the listing, a blocked pick says what to move first; "
                                "household: a failed skill says why) | paper: the paper's API "
                                "and outputs (no place names in the listing, no blocked-pick "
                                "refusal, every move 'success', its unknown-object hint; a "
                                "bare 'failure')")

    def __post_init__(self) -> None:
        check_section(self, "robot_api")


@dataclass
class Settings:
    """Everything the agent side is configured with (see the module docstring)."""

    llm: LLMConfig = field(default_factory=LLMConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)   # the core's, handed over as is
    memory: MemorySettings = field(default_factory=MemorySettings)
    learning: LearningSettings = field(default_factory=LearningSettings)
    robot_api: RobotApiSettings = field(default_factory=RobotApiSettings)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, env: Mapping[str, str] = os.environ,
                  overrides: Mapping[str, Any] | None = None) -> Settings:
        """From the ``config/agent.yaml`` structure, the environment and dotted
        ``overrides`` (``{'agent.statement_timeout_s': 5}``; None values are skipped), in the
        one precedence of :func:`~.core.settings.config.load_section`."""
        data = {} if data is None else data
        if not isinstance(data, Mapping):
            raise ValueError(f"the settings must be a mapping of sections, not {data!r}")
        sections = {f.name: f.default_factory for f in fields(cls)}
        forced = nest({k: v for k, v in (overrides or {}).items() if v is not None})
        unknown = sorted(map(str, (set(data) | set(forced)) - set(sections)))
        if unknown:
            raise ValueError(f"unknown settings section(s) {', '.join(unknown)}; "
                             f"known: {', '.join(sections)}")
        return cls(**{name: load_section(kind, data.get(name), name, env, forced.get(name))
                      for name, kind in sections.items()})

    def with_overrides(self, overrides: Mapping[str, Any]) -> Settings:
        """A copy with dotted ``overrides`` applied (validated like a file)."""
        return Settings.from_dict(self.to_dict(), env={}, overrides=overrides)

    def to_dict(self) -> dict[str, Any]:
        """The nested structure of ``config/agent.yaml`` (includes the API key, if any)."""
        return asdict(self)


def settings_info() -> list[SettingInfo]:
    """Every setting with its dotted name, default and description."""
    return describe(Settings)


def load_settings(path: str | Path | None = None, env: Mapping[str, str] = os.environ,
                  overrides: Mapping[str, Any] | None = None) -> Settings:
    """The settings from a YAML file (default ``config/agent.yaml``; the defaults if that is
    not installed), the environment and ``overrides``. Bad files or values: ValueError."""
    file = Path(path) if path else config_path(SETTINGS_FILE)
    data: Any = {}
    if path or file.exists():
        try:
            data = yaml.safe_load(file.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ValueError(f"cannot read the settings file {file}: {exc}") from exc
    try:
        return Settings.from_dict(data, env, overrides)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{file}: {exc}") from exc

"""The settings: one typed object for chat, run, the interaction node, memory and eval.

Each section is a dataclass whose fields carry their default and a description
(:func:`~.core.config.setting`), written once:

=========  ==============================================  ================================
section    class                                           where
=========  ==============================================  ================================
llm        :class:`~.core.llm.config.LLMConfig`            ``core/llm/config.py``
agent      :class:`AgentSettings`                          here
memory     :class:`MemorySettings` (= ``MemoryConfig``     here (``core/memory/store.py``)
           + ``enabled``)
learning   :class:`LearningSettings`                       here
=========  ==============================================  ================================

Sources, later ones win: the defaults; ``config/agent.yaml`` (``--config FILE``) or, in the
interaction node, its ROS parameters (:mod:`.ros.parameters` derives the parameter list from
these fields); for ``llm.*`` the ``LLM_INTERACTION_*`` environment variables
(:data:`~.core.llm.config.ENV_VARS`); command-line options (``overrides``). Unknown keys are
refused in every section.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from .core.agent import AgentConfig
from .core.config import SettingInfo, describe, from_mapping, nest, setting
from .core.learning.learner import MODES
from .core.llm.config import LLMConfig
from .core.memory.store import MemoryConfig
from .core.policy import TurnPolicy
from .paths import config_path

SETTINGS_FILE = "agent.yaml"


@dataclass
class AgentSettings:
    """The interaction loop (``agent:``)."""

    max_statements_per_turn: int = setting(TurnPolicy.max_statements,
                                           "statement cap per user turn")
    loop_repeats: int = setting(TurnPolicy.loop_repeats,
                                "the same statement this often in a row is a loop")
    redo_cycle: int = setting(TurnPolicy.redo_cycle,
                              "a cycle of this many statements or more is a loop when done twice "
                              "in a row (0: only loop_repeats)")
    statement_timeout_s: float = setting(10.0, "generated code's own running time per statement "
                                         "(API calls such as skills excluded)")
    empty_temperature_step: float = setting(AgentConfig.empty_temperature_step,
                                            "temperature raise when the LLM returns nothing")
    idle_retries: int = setting(AgentConfig.idle_retries,
                                "a user turn answered with nothing but wait_for_trigger() is "
                                "asked again this often (at a raised temperature)")
    repeat_notes: int = setting(AgentConfig.repeat_notes,
                                "a turn about to repeat, statement for statement, the attempt the "
                                "user just answered gets a note instead of the last statement, "
                                "this often per turn (0: off)")
    function_generation: bool = setting(AgentConfig.function_generation,
                                        "functions a statement calls that nobody defined are "
                                        "written by a second LLM prompt first (config/fgen.yaml)")

    def __post_init__(self) -> None:
        if self.max_statements_per_turn < 1 or self.loop_repeats < 2 or self.redo_cycle < 0:
            raise ValueError("agent.max_statements_per_turn must be >= 1, "
                             "agent.loop_repeats >= 2 and agent.redo_cycle >= 0")
        if not self.statement_timeout_s > 0 or self.empty_temperature_step < 0:
            raise ValueError("agent.statement_timeout_s must be > 0 and "
                             "agent.empty_temperature_step >= 0")


@dataclass
class MemorySettings(MemoryConfig):
    """The example memory (``memory:``): where it is and how it is queried, and whether the
    agent has one at all."""

    enabled: bool = setting(True, "false: fixed examples from config/transcripts, no learning")

    def __post_init__(self) -> None:
        self.validate()


@dataclass
class LearningSettings:
    """How the memory grows and is used (``learning:``); the ablations of the paper."""

    mode: str = setting("improve", "improve (L_improve) | corrected (no LLM: the request, "
                        "what worked, the corrections as comments) | raw (store as is, "
                        "w/o improve) | off (w/o learning)")
    retrieval: bool = setting(True, "false: every example in memory goes into the prompt, "
                              "oldest first (w/o retrieval)")
    store_episodes: bool = setting(False, "store successful episodes (HELPER / Dynamic CaP "
                                   "style growth, benchmark)")

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"learning.mode must be one of {MODES}, not {self.mode!r}")

    @classmethod
    def from_dict(cls, values: Mapping[str, Any] | None) -> "LearningSettings":
        return from_mapping(cls, values, "learning")


@dataclass
class Settings:
    """Everything the agent side is configured with (see the module docstring)."""

    llm: LLMConfig = field(default_factory=LLMConfig)
    agent: AgentSettings = field(default_factory=AgentSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    learning: LearningSettings = field(default_factory=LearningSettings)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, env: Mapping[str, str] = os.environ,
                  overrides: Mapping[str, Any] | None = None) -> "Settings":
        """From the ``config/agent.yaml`` structure, the environment and dotted
        ``overrides`` (``{'agent.statement_timeout_s': 5}``; None values are skipped)."""
        data = {} if data is None else data
        if not isinstance(data, Mapping):
            raise ValueError(f"the settings must be a mapping of sections, not {data!r}")
        sections = [name for name in cls.__dataclass_fields__]
        forced = nest({k: v for k, v in (overrides or {}).items() if v is not None})
        unknown = sorted(map(str, (set(data) | set(forced)) - set(sections)))
        if unknown:
            raise ValueError(f"unknown settings section(s) {', '.join(unknown)}; "
                             f"known: {', '.join(sections)}")
        given = {}
        for name in sections:
            given[name] = data.get(name) or {}
            if not isinstance(given[name], Mapping):
                raise ValueError(f"the '{name}' settings must be a mapping, not {given[name]!r}")
        return cls(llm=LLMConfig.from_sources(given["llm"], env, overrides=forced.get("llm")),
                   **{name: from_mapping(cls.__dataclass_fields__[name].default_factory,
                                         {**given[name], **forced.get(name, {})}, name)
                      for name in sections if name != "llm"})

    def with_overrides(self, overrides: Mapping[str, Any]) -> "Settings":
        """A copy with dotted ``overrides`` applied (validated like a file)."""
        return Settings.from_dict(self.to_dict(), env={}, overrides=overrides)

    def to_dict(self) -> dict[str, Any]:
        """The nested structure of ``config/agent.yaml`` (includes the API key, if any)."""
        return asdict(self)

    def agent_config(self) -> AgentConfig:
        """What the core's Agent takes."""
        return AgentConfig(temperature=self.llm.temperature, max_tokens=self.llm.max_tokens,
                           empty_temperature_step=self.agent.empty_temperature_step,
                           idle_retries=self.agent.idle_retries,
                           repeat_notes=self.agent.repeat_notes,
                           function_generation=self.agent.function_generation,
                           policy=TurnPolicy(max_statements=self.agent.max_statements_per_turn,
                                             loop_repeats=self.agent.loop_repeats,
                                             redo_cycle=self.agent.redo_cycle))


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

"""Assemble a console session: an API set, a world (or robot), speech and user input.

This is the one place that knows which functions make up each API set; the CLI, the
benchmark and (later) the ROS node build their sessions here.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

import yaml

from .core.agent import Agent, AgentConfig
from .core.apis.humanoid import HumanoidApi
from .core.apis.tabletop import TabletopApi
from .core.builtins import InteractionBuiltins
from .core.console import ConsoleSession
from .core.llm import LLMClient, LLMConfig, TokenLedger
from .core.policy import TurnPolicy
from .core.prompt import HEADERS, LOOP_EXAMPLES, PromptBuilder
from .core.registry import ApiRegistry, public_functions
from .core.sandbox import Sandbox
from .core.transcript import Transcript
from .core.user import UserChannel
from .paths import config_path

ApiName = Literal["humanoid", "tabletop"]
API_NAMES = ("humanoid", "tabletop")
# Built-ins each API set offers (the tabletop API of the CaP evaluation has no speech).
BUILTINS = {
    "humanoid": ("say", "ask", "wait_for_trigger", "learn_from_interaction"),
    "tabletop": ("wait_for_trigger", "learn_from_interaction"),
}


def load_settings(path: str | Path | None) -> dict[str, Any]:
    """The agent settings file (config/agent.yaml by default) as a dict."""
    path = Path(path) if path else config_path("agent.yaml")
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f) or {}


def make_world(api: ApiName, world: str | None = None, seed: int = 0):
    """The in-process world for an API set: a household world file, or a tabletop scene."""
    if api == "humanoid":
        from .sims.worlds import DEFAULT_WORLD, load_household_world
        return load_household_world(world or DEFAULT_WORLD)
    if api == "tabletop":
        from .sims.tabletop2d import TabletopWorld2D
        if world:
            names = [n.strip() for n in world.split(",") if n.strip()]
            return TabletopWorld2D.from_names(names, seed=seed)
        return TabletopWorld2D.random(n_blocks=3, n_bowls=3, seed=seed)
    raise ValueError(f"unknown API set {api!r}; use one of {API_NAMES}")


def robot_api(api: ApiName, robot) -> list[Callable]:
    """The robot functions of an API set, bound to a robot (world or ROS robot)."""
    if api == "humanoid":
        return public_functions(HumanoidApi(robot))
    if api == "tabletop":
        return public_functions(TabletopApi(robot))
    raise ValueError(f"unknown API set {api!r}; use one of {API_NAMES}")


def build_console(api: ApiName, robot, channel: UserChannel,
                  speak: Callable[[str], None] = lambda text: None,
                  learner: Callable[[], str | None] | None = None,
                  statement_timeout_s: float = 10.0) -> ConsoleSession:
    builtins = InteractionBuiltins(channel, speak=speak, learner=learner)
    registry = ApiRegistry(robot_api(api, robot))
    registry.extend(getattr(builtins, name) for name in BUILTINS[api])
    return ConsoleSession(registry, builtins, Sandbox(timeout_s=statement_timeout_s))


def load_examples(api: ApiName, directory: str | Path | None = None) -> list[str]:
    """Example transcripts (one ``*.txt`` file each) as prompt text, sorted by file name."""
    folder = Path(directory) if directory else config_path("transcripts", api)
    return [Transcript.parse(p.read_text(encoding="utf-8")).render()
            for p in sorted(folder.glob("*.txt"))]


@dataclass
class AgentSettings:
    llm: LLMConfig
    agent: AgentConfig
    statement_timeout_s: float

    @classmethod
    def from_dict(cls, settings: dict[str, Any]) -> "AgentSettings":
        a = settings.get("agent") or {}
        llm = LLMConfig.from_sources(settings.get("llm") or {})
        policy = TurnPolicy(max_statements=int(a.get("max_statements_per_turn", 15)),
                            loop_repeats=int(a.get("loop_repeats", 3)))
        agent = AgentConfig(temperature=llm.temperature, max_tokens=llm.max_tokens,
                            empty_temperature_step=float(a.get("empty_temperature_step", 0.3)),
                            policy=policy)
        return cls(llm, agent, float(a.get("statement_timeout_s", 10.0)))


def build_agent(api: ApiName, llm: LLMClient, console: ConsoleSession, examples=(),
                config: AgentConfig | None = None, ledger: TokenLedger | None = None) -> Agent:
    prompt = PromptBuilder(HEADERS[api], console.api.listing())
    return Agent(llm, console, prompt, examples=examples, loop_example=LOOP_EXAMPLES[api],
                 ledger=ledger, config=config)

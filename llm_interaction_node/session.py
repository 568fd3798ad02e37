"""Assemble a console session: an API set, a world (or robot), speech and user input.

This is the one place that knows which functions make up each API set; the CLI, the
benchmark and (later) the ROS node build their sessions here.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

import yaml

from .core.agent import Agent, AgentConfig
from .core.apis.humanoid import HumanoidApi
from .core.apis.tabletop import TabletopApi
from .core.builtins import InteractionBuiltins
from .core.console import ConsoleSession
from .core.learning.learner import MODES, Learner
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
    "humanoid": ("say", "ask", "wait_for_trigger", "learn_from_interaction", "forget_learned"),
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
class LearningSettings:
    """How the memory grows and is used; the ablations of the paper are settings of this."""

    mode: str = "improve"          # improve (L_improve) | raw (w/o improve) | off (w/o learning)
    retrieval: bool = True         # False: every example in memory, oldest first (w/o retrieval)
    store_episodes: bool = False   # HELPER / Dynamic CaP: store successful episodes

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> "LearningSettings":
        values = dict(values or {})
        unknown = set(values) - {"mode", "retrieval", "store_episodes"}
        if unknown:
            raise ValueError(f"unknown learning settings: {sorted(unknown)}")
        settings = cls(**values)
        if settings.mode not in MODES:
            raise ValueError(f"learning.mode must be one of {MODES}, not {settings.mode!r}")
        return settings


@dataclass
class AgentSettings:
    llm: LLMConfig
    agent: AgentConfig
    statement_timeout_s: float
    memory: dict[str, Any]
    learning: LearningSettings

    @classmethod
    def from_dict(cls, settings: dict[str, Any]) -> "AgentSettings":
        a = settings.get("agent") or {}
        llm = LLMConfig.from_sources(settings.get("llm") or {})
        policy = TurnPolicy(max_statements=int(a.get("max_statements_per_turn", 15)),
                            loop_repeats=int(a.get("loop_repeats", 3)))
        agent = AgentConfig(temperature=llm.temperature, max_tokens=llm.max_tokens,
                            empty_temperature_step=float(a.get("empty_temperature_step", 0.3)),
                            policy=policy)
        return cls(llm, agent, float(a.get("statement_timeout_s", 10.0)),
                   dict(settings.get("memory") or {}),
                   LearningSettings.from_dict(settings.get("learning")))


def open_memory(api: ApiName, values: dict[str, Any] | None = None, seed: bool = True):
    """The example memory of an API set, with the seed examples added if missing."""
    from .core.memory.store import ExampleMemory, MemoryConfig
    memory = ExampleMemory(api, MemoryConfig.from_dict(values or {}))
    if seed:
        memory.seed_from(config_path("transcripts", api))
    return memory


def memory_examples(memory, k: int | None = None,
                    retrieval: bool = True) -> Callable[[Sequence[str]], list[str]]:
    """The agent's example source: top-k (default: the memory's configured k) retrieved for
    the latest utterances, most similar last; with retrieval off every example in memory,
    oldest first."""
    def examples(utterances: Sequence[str]) -> list[str]:
        if not retrieval:
            return [e.transcript for e in memory.list()]
        return [e.transcript for e, _score in memory.retrieve(utterances, k)]
    return examples


def store_episode(memory, console: ConsoleSession, learning: LearningSettings):
    """HELPER / Dynamic CaP growth: keep the transcript of an episode that ended in success.

    Called by whoever judges success (the benchmark harness); a no-op unless enabled.
    """
    if not learning.store_episodes or not console.transcript.statements():
        return None
    return memory.add(console.transcript.render(), "episode", origin=console.task_id)


def attach_learning(console: ConsoleSession, llm: LLMClient, memory, mode: str = "improve",
                    ledger: TokenLedger | None = None):
    """Give the console's learn_from_interaction()/forget_learned() a memory to act on."""
    builtins = console.builtins
    learner = Learner(llm, memory, console.api.listing(), console.api.names, mode=mode,
                      say=builtins.say, ledger=ledger, interaction_id=lambda: console.task_id)
    learner.bind(lambda: console.transcript, lambda: builtins.utterances)
    builtins.learner = learner

    def forget(topic: str) -> str:
        removed = memory.forget(topic)
        builtins.say(f"I forgot {len(removed)} thing(s) I had learned about {topic}.")
        return f"removed {len(removed)} learned example(s)"
    builtins.forgetter = forget
    return learner


def build_agent(api: ApiName, llm: LLMClient, console: ConsoleSession, examples=(),
                config: AgentConfig | None = None, ledger: TokenLedger | None = None,
                stop=None) -> Agent:
    prompt = PromptBuilder(HEADERS[api], console.api.listing())
    return Agent(llm, console, prompt, examples=examples, loop_example=LOOP_EXAMPLES[api],
                 ledger=ledger, config=config, stop=stop)

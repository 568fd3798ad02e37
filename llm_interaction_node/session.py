"""Assemble an agent session: API set + robot + user channel + speech + console + sandbox +
memory (or fixed examples) + learner + agent + token ledger + stop signal.

:func:`build_session` is the one assembly; the terminal chat, the ROS interaction node and
the benchmark's systems call it with what is genuinely theirs (the robot, where user input
comes from, where speech goes) and a :class:`~.settings.Settings`. This module is also the
one place that knows which functions make up each API set.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Sequence

from .core.agent import Agent, AgentConfig
from .core.apis.humanoid import HumanoidApi
from .core.apis.tabletop import TabletopApi
from .core.builtins import InteractionBuiltins
from .core.console import ConsoleSession
from .core.interrupt import StopSignal
from .core.learning.learner import Learner
from .core.llm import LLMClient, TokenLedger, make_client
from .core.prompt import HEADERS, LOOP_EXAMPLES, PromptBuilder
from .core.registry import ApiRegistry, public_functions
from .core.sandbox import Sandbox
from .core.transcript import Transcript
from .core.user import UserChannel
from .paths import config_path
from .settings import AgentSettings, LearningSettings, Settings

log = logging.getLogger(__name__)

ApiName = Literal["humanoid", "tabletop"]
API_NAMES = ("humanoid", "tabletop")
# Built-ins each API set offers (the tabletop API of the CaP evaluation has no speech).
BUILTINS = {
    "humanoid": ("say", "ask", "wait_for_trigger", "learn_from_interaction", "forget_learned"),
    "tabletop": ("wait_for_trigger", "learn_from_interaction"),
}


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


def robot_api(api: ApiName, robot, options: Mapping[str, Any] | None = None) -> list[Callable]:
    """The robot functions of an API set, bound to a robot (world or ROS robot); ``options``
    go to the API class (the humanoid's ``min_speed``/``max_speed``)."""
    if api == "humanoid":
        return public_functions(HumanoidApi(robot, **(options or {})))
    if api == "tabletop":
        return public_functions(TabletopApi(robot, **(options or {})))
    raise ValueError(f"unknown API set {api!r}; use one of {API_NAMES}")


def build_console(api: ApiName, robot, channel: UserChannel,
                  speak: Callable[[str], None] = lambda text: None,
                  learner: Callable[[], str | None] | None = None,
                  statement_timeout_s: float = AgentSettings.statement_timeout_s,
                  api_options: Mapping[str, Any] | None = None) -> ConsoleSession:
    """The console alone (replay and tests; agents get theirs from :func:`build_session`)."""
    builtins = InteractionBuiltins(channel, speak=speak, learner=learner)
    registry = ApiRegistry(robot_api(api, robot, api_options))
    registry.extend(getattr(builtins, name) for name in BUILTINS[api])
    # the tabletop console has shapely's geometry names, as the reference's
    return ConsoleSession(registry, builtins, Sandbox(timeout_s=statement_timeout_s,
                                                      geometry=api == "tabletop"))


def load_examples(api: ApiName, directory: str | Path | None = None) -> list[str]:
    """Example transcripts (one ``*.txt`` file each) as prompt text, sorted by file name."""
    folder = Path(directory) if directory else config_path("transcripts", api)
    return [Transcript.parse(p.read_text(encoding="utf-8")).render()
            for p in sorted(folder.glob("*.txt"))]




def open_memory(api: ApiName, config=None, seed: bool = True):
    """The example memory of an API set (``config``: a MemoryConfig such as
    ``settings.memory``, or its fields as a dict), with the seed examples of
    ``config/transcripts/<api>`` added if missing."""
    from .core.memory.store import ExampleMemory, MemoryConfig
    if not isinstance(config, MemoryConfig):
        config = MemoryConfig.from_dict(config)
    memory = ExampleMemory(api, config)
    if seed:
        memory.seed_from(config_path("transcripts", api))
    return memory


MEMORY_OUTAGE = ("My memory is not reachable right now, so I will go on with what I knew "
                 "from the start; what I learn meanwhile is kept until it is back.")
MEMORY_BACK = "My memory is back: I stored the {n} thing(s) I learned while it was away."


def memory_examples(memory, k: int | None = None, retrieval: bool = True,
                    on_outage: Callable[[Exception], None] = lambda exc: None,
                    on_back: Callable[[], None] = lambda: None,
                    ) -> Callable[[Sequence[str]], list[str]]:
    """The agent's example source: top-k (default: the memory's configured k) retrieved for
    the latest utterances, in the memory's prompt order (``memory.order``: stable, or most
    similar last); with retrieval off every example in memory, oldest first. With no
    utterance yet: the examples known before the user speaks (for prefilling a local model).

    A memory that cannot be reached (ConnectionError, the store's MemoryServerUnreachable)
    does not end the turn: the seed examples read at start (cached here, in their stable
    order) stand in, ``on_outage`` is called once per outage and ``on_back`` when the memory
    answers again."""
    from .core.memory.store import stable_order
    k_seeds = memory.config.k if k is None else int(k)
    try:
        seeds = [e.transcript for e in stable_order(memory.list("seed"),
                                                    memory.seed_centrality())][:k_seeds]
    except ConnectionError as exc:
        log.warning("cannot cache the seed examples: %s", exc)
        seeds = []
    down = False

    def examples(utterances: Sequence[str]) -> list[str]:
        nonlocal down
        try:
            if not retrieval:
                found = [e.transcript for e in memory.list()]
            else:
                found = [e.transcript for e in memory.prompt_examples(utterances, k)]
        except ConnectionError as exc:
            log.warning("the example memory is unreachable; going on with the %d seed "
                        "examples cached at start: %s", len(seeds), exc)
            if not down:
                down = True
                on_outage(exc)
            return list(seeds)
        if down:
            down = False
            log.info("the example memory answers again")
            on_back()
        return found
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


@dataclass
class Session:
    """One assembled agent (see :func:`build_session`)."""

    api: ApiName
    settings: Settings
    robot: Any
    console: ConsoleSession
    llm: LLMClient
    agent: Agent
    ledger: TokenLedger
    stop: StopSignal
    memory: Any = None                 # ExampleMemory, None with fixed examples
    learner: Learner | None = None

    @property
    def memory_note(self) -> str:
        if self.memory is None:
            return "no memory (fixed examples, no learning)"
        return f"{self.memory.count()} examples in {self.memory.location}"


def build_session(api: ApiName, robot, channel: UserChannel, settings: Settings | None = None, *,
                  llm: LLMClient | None = None, speak: Callable[[str], None] = lambda text: None,
                  memory=None, examples_dir: str | Path | None = None,
                  stop: StopSignal | None = None, ledger: TokenLedger | None = None,
                  api_options: Mapping[str, Any] | None = None) -> Session:
    """The agent for ``robot`` (a world or a ROS robot) of API set ``api``.

    ``channel``: where user utterances come from; ``speak``: where ``say()`` goes; ``llm``:
    default ``make_client(settings.llm)``; ``memory``: an open ExampleMemory to use (default:
    ``open_memory`` of ``settings.memory`` when ``memory.enabled``, else the fixed examples
    of ``examples_dir``); ``stop``: a StopSignal shared with the robot's skills.
    """
    settings = settings or Settings()
    console = build_console(api, robot, channel, speak=speak,
                            statement_timeout_s=settings.agent.statement_timeout_s,
                            api_options=api_options)
    llm = llm if llm is not None else make_client(settings.llm)
    ledger = ledger or TokenLedger()
    stop = stop or StopSignal()
    learner = None
    if settings.memory.enabled:
        memory = memory if memory is not None else open_memory(api, settings.memory)
        if settings.learning.mode != "off":
            learner = attach_learning(console, llm, memory, settings.learning.mode, ledger)

        def memory_back() -> None:
            stored = learner.retry_pending() if learner is not None else 0
            if stored:
                speak(MEMORY_BACK.format(n=stored))
        examples = memory_examples(memory, settings.memory.k, settings.learning.retrieval,
                                   on_outage=lambda exc: speak(MEMORY_OUTAGE),
                                   on_back=memory_back)
    else:
        memory, examples = None, load_examples(api, examples_dir)
    agent = build_agent(api, llm, console, examples, config=settings.agent_config(),
                        ledger=ledger, stop=stop)
    return Session(api, settings, robot, console, llm, agent, ledger, stop, memory, learner)

"""Assemble an agent session: API set + robot + user channel + speech + console + sandbox +
memory (or fixed examples) + learner + agent + token ledger + stop signal.

:func:`build_session` is the one assembly; the terminal chat, the ROS interaction node and
the benchmark's systems call it with what is genuinely theirs (the robot, where user input
comes from, where speech goes) and a :class:`~.settings.Settings`. What makes up each API
set is its :class:`~.core.apis.sets.ApiSet` (an API set or its name is accepted everywhere).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Sequence

from .core.agent import Agent, AgentConfig
from .core.apis.sets import API_NAMES, ApiSet, api_set  # noqa: F401 - API_NAMES: --api choices
from .core.builtins import InteractionBuiltins
from .core.console import ConsoleSession
from .core.errors import EndOfInteraction
from .core.interrupt import StopSignal
from .core.learning.learner import Learner
from .core.learning.replay_check import ReplayCheck, Replayed, mismatch_sentence
from .core.llm import LLMClient, TokenLedger, make_client
from .core.prompt import PromptBuilder
from .core.registry import ApiRegistry
from .core.sandbox import Sandbox
from .core.transcript import Entry, Transcript
from .core.user import EventQueue, UserChannel
from .paths import config_path
from .settings import LearningSettings, Settings

log = logging.getLogger(__name__)

ApiName = ApiSet | Literal["humanoid", "tabletop"]


def make_world(api: ApiName, world: str | None = None, seed: int = 0):
    """The in-process world for an API set (:data:`~.sims.worlds.IN_PROCESS_WORLDS`)."""
    from .sims.worlds import IN_PROCESS_WORLDS
    return IN_PROCESS_WORLDS[api_set(api)](world, seed)


def build_console(api: ApiName, robot, channel: UserChannel,
                  speak: Callable[[str], None] = lambda text: None,
                  learner: Callable[[], str | None] | None = None,
                  agent: AgentConfig | None = None,
                  api_options: Mapping[str, Any] | None = None,
                  isolated: bool = True) -> ConsoleSession:
    """The console alone (replay and tests; agents get theirs from :func:`build_session`);
    ``agent``: the agent settings (the statement timeout); ``isolated``: generated code runs
    in a sandbox worker process with hard limits (``core/sandbox_process.py``)."""
    api = api_set(api)
    statement_timeout_s = (agent or AgentConfig()).statement_timeout_s
    builtins = InteractionBuiltins(channel, speak=speak, learner=learner)
    registry = ApiRegistry(api.functions(robot, api_options))
    registry.extend(getattr(builtins, name) for name in api.builtins)
    return ConsoleSession(registry, builtins, Sandbox(timeout_s=statement_timeout_s,
                                                      geometry=api.geometry),
                          isolated=isolated)


def replay_transcript(api: ApiName, world, recorded: Transcript,
                      agent: AgentConfig | None = None,
                      speak: Callable[[str], None] = lambda text: None,
                      api_options: Mapping[str, Any] | None = None) -> Transcript:
    """Run a transcript's statements against ``world`` (no LLM); the user's replies come from
    the transcript itself. Replay never learns: learn_from_interaction() runs silently, as in
    the seed examples. Returns the replayed transcript (``llm-interaction replay``, the
    replay check of learned examples). ``api_options``: those the transcript's API had
    (its preset's, :meth:`~.core.apis.sets.ApiSet.options`)."""
    channel = EventQueue(recorded.user_utterances(), close=True)
    console = build_console(api, world, channel, speak=speak, learner=lambda: None, agent=agent,
                            api_options=api_options)
    for entry in recorded:
        try:
            console.execute(entry.source)
        except EndOfInteraction:
            break
    return console.transcript


def output_mismatches(recorded: Sequence[Entry], replayed: Sequence[Entry],
                      missing_ok: bool = False):
    """``(input number, recorded entry, replayed entry)`` for every output that differs; a
    final input without recorded output (the closing ``wait_for_trigger()``) is not compared,
    with ``missing_ok`` no input without recorded output is."""
    out = []
    for n, (want, got) in enumerate(zip(recorded, replayed), 1):
        last = n == len(recorded) and not want.output
        if want.output != got.output and not last and not (missing_ok and not want.output):
            out.append((n, want, got))
    return out


# -- the replay check of learned examples ---------------------------------------------------
# A "start" is taken when an interaction begins: a callable that builds a fresh world in the
# state the interaction started from (None: no world can be built, so no replay).
WorldStart = Callable[[], Any]


def household_start(world) -> WorldStart:
    """The in-process household world now: a new world of the same file, restored to it."""
    from .sims.household import HouseholdWorld
    state = world.checkpoint()
    return lambda: HouseholdWorld(world.config, source=world.source).restore(state)


def household_start_from_scene(world_file: str | Path, scene: Sequence[Any]) -> WorldStart:
    """A household world from its file and what the robot perceives now (SceneObjects:
    location, held_by, pose); the ROS node's start. The base starts at the file's start pose
    (the robot's own pose is not perceived). If the scene holds an object the file does not
    know, no world can be built: the start returns None (logged) and the learned example is
    checked for syntax and names only."""
    from .sims.household import HouseholdWorld
    perceived = {o.name: {"location": o.location, "held_by": o.held_by, "pose": list(o.pose)}
                 for o in scene}

    def start():
        try:
            world = HouseholdWorld.from_yaml(world_file)
            objects = {n: v for n, v in perceived.items() if n not in world.furniture}
            return world.restore({"objects": objects})
        except (OSError, ValueError) as exc:
            log.warning("no simulated world for the replay check (%s): learned examples are "
                        "checked for syntax and names only", exc)
            return None
    return start


def tabletop_start(robot) -> WorldStart:
    """A 2-D tabletop with the robot's objects where they are now (also for the PyBullet
    world: the same names and positions; all objects start on the table)."""
    from .sims.tabletop2d import TabletopWorld2D
    from .sims.world_end import end_of
    import numpy as np
    positions = dict(end_of(robot).objects)       # copies of the robot's object positions
    bounds = np.asarray(robot.bounds, dtype=float).copy() if hasattr(robot, "bounds") else None

    def start():
        world = TabletopWorld2D.from_names(positions)
        for name, xyz in positions.items():
            world.objects[name].position = xyz.copy()
        if bounds is not None:
            world.bounds = bounds.copy()       # denormalize_xy answers as in the robot's world
        return world
    return start


def interaction_start(robot) -> Callable[[], WorldStart] | None:
    """How to take a start for an in-process robot (None: unknown robot, no replay): the
    household world checkpoints itself, a tabletop (anything with object names and
    positions) is copied into a 2-D world."""
    from .sims.household import HouseholdWorld
    if isinstance(robot, HouseholdWorld):
        return lambda: household_start(robot)
    if hasattr(robot, "object_names") and hasattr(robot, "object_position"):
        return lambda: tabletop_start(robot)
    return None


# A live end: where the objects of the world the console drives are now (a WorldEnd of
# sims/world_end.py), read at the learn call; None: no live world, the end is not compared.
LiveEnd = Callable[[], Any]


def live_end(robot) -> LiveEnd | None:
    """How to read the live world's end for an in-process robot (the one
    :func:`interaction_start` takes starts from); None for an unknown robot (e.g. the ROS
    node's: it knows no world, so its replay check compares outputs only)."""
    if interaction_start(robot) is None:
        return None
    from .sims.world_end import end_of
    return lambda: end_of(robot)


def replay_check(api: ApiName, start: Callable[[], Any],
                 agent: AgentConfig | None = None, live: LiveEnd | None = None,
                 api_options: Mapping[str, Any] | None = None) -> ReplayCheck:
    """The concrete :class:`~.core.learning.replay_check.ReplayCheck`: replay in the world
    ``start()`` builds and compare every output the transcript shows; inputs it shows without
    output get the world's (``start()`` None: no world, no replay). With ``live``, the
    replayed world's end is compared with the live world's (``Replayed.end_differs``).
    ``api_options``: the live console's (the replay answers as it did)."""
    def check(transcript: Transcript) -> Replayed | None:
        try:
            world = start()
        except Exception:  # noqa: BLE001 - learning must go on; the fallback is logged
            log.exception("the replay world could not be built: syntax and names only")
            return None
        if world is None:
            return None
        replayed = replay_transcript(api, world, transcript, agent, api_options=api_options)
        result = Transcript([Entry(e.source, e.output, e.error) for e in replayed.entries])
        mismatch = None
        bad = output_mismatches(transcript.entries, replayed.entries, missing_ok=True)
        if bad:
            n, want, got = bad[0]
            mismatch = mismatch_sentence(n, got.source, want.output, got.output)
        elif len(replayed.entries) < len(transcript.entries):
            n = len(replayed.entries)
            mismatch = f"the replay ended after input {n}, before the transcript did"
        differs, checked = _end_differs(world, live)
        return Replayed(result, mismatch, differs, checked)
    return check


def _end_differs(world, live: LiveEnd | None) -> tuple[str | None, bool]:
    """(how the replayed ``world`` ends differently from the live one, whether it was
    compared)."""
    if live is None:
        return None, False
    from .sims.world_end import end_difference, end_of
    try:
        now, replayed = live(), end_of(world)
    except Exception:  # noqa: BLE001 - learning must go on; the fallback is logged
        log.exception("the live world's end could not be read: the end is not compared")
        return None, False
    if now is None or replayed is None or now.kind != replayed.kind:
        return None, False
    return end_difference(replayed, now), True


def load_examples(api: ApiName, directory: str | Path | None = None) -> list[str]:
    """Example transcripts (one ``*.txt`` file each) as prompt text, sorted by file name."""
    folder = Path(directory) if directory else api_set(api).examples_dir
    return [Transcript.parse(p.read_text(encoding="utf-8")).render()
            for p in sorted(folder.glob("*.txt"))]




def open_memory(api: ApiName, config=None, seed: bool = True):
    """The example memory of an API set (``config``: a MemoryConfig such as
    ``settings.memory``, or its fields as a mapping), with the seed examples of
    ``config/transcripts/<api>`` added if missing."""
    from .core.config import from_mapping
    from .core.memory.config import MemoryConfig
    from .core.memory.store import ExampleMemory
    api = api_set(api)
    if not isinstance(config, MemoryConfig):
        config = from_mapping(MemoryConfig, config, "memory")
    memory = ExampleMemory(api.name, config)
    if seed:
        memory.seed_from(api.examples_dir)
    return memory


MEMORY_OUTAGE = ("My memory is not reachable right now, so I will go on with what I knew "
                 "from the start; what I learn meanwhile is kept until it is back.")
MEMORY_BACK = "My memory is back: I stored the {n} thing(s) I learned while it was away."


def memory_examples(memory, learning: LearningSettings | None = None,
                    on_outage: Callable[[Exception], None] = lambda exc: None,
                    on_back: Callable[[], None] = lambda: None,
                    ) -> Callable[[Sequence[str]], list[str]]:
    """The agent's example source: the memory's prompt examples for the latest utterances
    (``memory.order``: by default the seed block, then the top-k learned examples, most
    similar last; k: ``memory.k``); with ``learning.retrieval`` off every example in memory,
    oldest first. With no utterance yet: the query-independent head of the layout (the seed
    block; for prefilling a local model before the user speaks; ``ExampleMemory.prompt_examples``).

    A memory that cannot be reached (ConnectionError, the store's MemoryServerUnreachable)
    does not end the turn: the seed examples read at start (cached here: the seed block, or
    the first k in the stable order) stand in, ``on_outage`` is called once per outage and
    ``on_back`` when the memory answers again."""
    from .core.memory.order import Order, stable_order
    retrieval = (learning or LearningSettings()).retrieval
    try:
        cached = memory.seed_block() if memory.config.order is Order.SEED_BLOCK else \
            stable_order(memory.list("seed"), memory.seed_centrality())[:memory.config.k]
        seeds = [e.transcript for e in cached]
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
                found = [e.transcript for e in memory.prompt_examples(utterances)]
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


def attach_learning(console: ConsoleSession, llm: LLMClient, memory,
                    learning: LearningSettings | None = None,
                    ledger: TokenLedger | None = None, *, api: ApiName | None = None,
                    start: Callable[[], WorldStart] | None = None,
                    agent: AgentConfig | None = None, live: LiveEnd | None = None,
                    api_options: Mapping[str, Any] | None = None):
    """Give the console's learn_from_interaction()/forget_learned() a memory to act on
    (``learning.mode``; ``agent``: the statement timeout of the replay check;
    ``api_options``: the console's API options, for the replay).

    ``start`` (with ``api``): takes a :data:`WorldStart` when an interaction begins (before
    its first statement runs); learned examples are then replayed from it before they are
    stored. Without it they are checked for syntax and names only. ``live``: reads the live
    world's end (:func:`live_end`); with it the replay must also end like the live world at
    the learn call (modes ``final`` and ``corrected``)."""
    builtins = console.builtins
    check = None
    if start is not None and api is not None:
        taken: dict[str, WorldStart] = {}

        def on_input(source: str) -> None:
            if not console.transcript.statements():      # the interaction's first statement
                taken["start"] = start()
        console.input_listeners.append(on_input)
        check = replay_check(api, lambda: taken["start"]() if "start" in taken else None, agent,
                             live, api_options)
    learner = Learner(llm, memory, console.api.listing(), console.api.names,
                      mode=(learning or LearningSettings()).mode,
                      say=builtins.say, ledger=ledger, interaction_id=lambda: console.task_id,
                      check=check)
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
    api = api_set(api)
    prompt = PromptBuilder(api.header, console.api.listing())
    return Agent(llm, console, prompt, examples=examples, loop_example=api.loop_example,
                 ledger=ledger, config=config, stop=stop, speaks=api.speaks)


@dataclass
class Session:
    """One assembled agent (see :func:`build_session`)."""

    api: ApiSet
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
                  api_options: Mapping[str, Any] | None = None,
                  replay_start: Callable[[], WorldStart] | None = None) -> Session:
    """The agent for ``robot`` (a world or a ROS robot) of API set ``api``.

    ``channel``: where user utterances come from; ``speak``: where ``say()`` goes; ``llm``:
    default ``make_client(settings.llm)``; ``memory``: an open ExampleMemory to use (default:
    ``open_memory`` of ``settings.memory`` when ``memory.enabled``, else the fixed examples
    of ``examples_dir``); ``stop``: a StopSignal shared with the robot's skills;
    ``replay_start``: how to take the world at an interaction's start for the replay check of
    learned examples (default :func:`interaction_start` for in-process worlds; the ROS node
    passes :func:`household_start_from_scene`). An in-process robot is also the live world
    whose end a replayed example must reach (:func:`live_end`; none for the ROS node's).
    The robot API is the one of ``settings.robot_api.preset`` (``api_options``: more options
    of the API class, the node's speed limits).
    """
    api = api_set(api)
    settings = settings or Settings()
    api_options = api.options(settings.robot_api.preset, api_options)
    console = build_console(api, robot, channel, speak=speak, agent=settings.agent,
                            api_options=api_options)
    llm = llm if llm is not None else make_client(settings.llm)
    ledger = ledger or TokenLedger()
    stop = stop or StopSignal()
    learner = None
    if settings.memory.enabled:
        memory = memory if memory is not None else open_memory(api, settings.memory)
        if settings.learning.mode != "off":
            start = replay_start if replay_start is not None else interaction_start(robot)
            if start is None:
                log.info("no simulated world for %s: learned examples are checked for syntax "
                         "and names only", type(robot).__name__)
            learner = attach_learning(console, llm, memory, settings.learning, ledger,
                                      api=api, start=start, agent=settings.agent,
                                      live=live_end(robot), api_options=api_options)

        def memory_back() -> None:
            stored = learner.retry_pending() if learner is not None else 0
            if stored:
                speak(MEMORY_BACK.format(n=stored))
        examples = memory_examples(memory, settings.learning, on_outage=lambda exc: speak(MEMORY_OUTAGE),
                                   on_back=memory_back)
    else:
        memory, examples = None, load_examples(api, examples_dir)
    agent = build_agent(api, llm, console, examples, config=settings.agent,
                        ledger=ledger, stop=stop)
    return Session(api, settings, robot, console, llm, agent, ledger, stop, memory, learner)

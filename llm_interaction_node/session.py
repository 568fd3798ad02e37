"""Assemble an agent session: API set + robot + user channel + speech + console + sandbox +
memory (or fixed examples) + learner + agent + token ledger + stop signal.

:func:`build_session` is the one assembly; the terminal chat, the ROS interaction node and
the benchmark's systems call it with what is genuinely theirs (the robot, where user input
comes from, where speech goes) and a :class:`~.settings.Settings`. What makes up each API
set is its :class:`~.core.apis.sets.ApiSet` (an API set or its name is accepted everywhere).
Each hook (learn, forget, the replay check's start) is handed to the object that calls it as
it is built (:func:`learning_console`). What is not assembly lives beside it: the console
alone (:mod:`.consoles`), the replay check (:mod:`.replay`), the example source with its
memory outage (:mod:`.core.memory.source`), the benchmark's episode store
(:mod:`.eval.systems.ours`).
"""
from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .consoles import ApiName, build_console
from .core.agent import Agent, AgentConfig
from .core.apis.sets import API_NAMES, ApiSet, api_set  # noqa: F401 - API_NAMES: --api choices
from .core.console.prompt import PromptBuilder
from .core.console.session import ConsoleSession
from .core.decoding.constraint import names_to_say
from .core.guides.habits import Habits
from .core.learning.learner import Learner
from .core.learning.outbox import Outbox
from .core.learning.outcome import LearnOutcome
from .core.llm import LLMClient, ScriptedLLM, TokenLedger, make_client
from .core.memory.fleet import Provenance, default_robot_id, lacking, taught_by
from .core.memory.source import ExampleSource
from .core.reading import Reader, Reading
from .core.reading.edit import Edit, Facts, edits_of
from .core.reading.edit_reading import MAX_TOKENS as EDIT_TOKENS
from .core.reading.edit_reading import SKILLS as EDIT_SKILLS
from .core.reading.edit_reading import STOP as EDIT_STOP
from .core.reading.edit_reading import EditReader
from .core.reading.kind_of import KindCheck, named_by_form
from .core.reading.select import reading_scene
from .core.transcript.transcript import Entry, Transcript
from .core.user.channel import UserChannel
from .core.user.interrupt import StopSignal
from .replay import (
    FirstInputStart,
    LiveEnd,
    WorldStart,
    interaction_start,
    live_end,
    replay_check,
    scenes_check,
)
from .settings import LearningSettings, Settings

log = logging.getLogger(__name__)


def make_world(api: ApiName, world: str | None = None, seed: int = 0):
    """The in-process world for an API set (:data:`~.sims.worlds.IN_PROCESS_WORLDS`)."""
    from .sims.worlds import IN_PROCESS_WORLDS
    return IN_PROCESS_WORLDS[api_set(api)](world, seed)


def load_examples(api: ApiName, directory: str | Path | None = None) -> list[str]:
    """Example transcripts (one ``*.txt`` file each) as prompt text, sorted by file name."""
    folder = Path(directory) if directory else api_set(api).examples_dir
    return [Transcript.parse(p.read_text(encoding="utf-8")).render()
            for p in sorted(folder.glob("*.txt"))]


def open_memory(api: ApiName, config=None, seed: bool = True,
                provenance: Provenance | None = None, later: bool = False):
    """The example memory of an API set (``config``: a MemoryConfig such as
    ``settings.memory``, or its fields as a mapping), with the seed examples of
    ``config/transcripts/<api>`` added if missing. ``provenance``: the robot and world its
    lessons are stamped with (:mod:`.core.memory.fleet`). ``later``: a Chroma server
    (``memory.host``) that does not answer now is an error in the log, not an exception: the
    memory connects (and seeds) at its first use after the server answers, and until then
    raises MemoryServerUnreachable, which the session goes on without (a robot of a fleet
    starts while the server is down, issue 61)."""
    from .core.memory.config import MemoryConfig
    from .core.memory.store import ExampleMemory
    from .core.settings.config import from_mapping
    api = api_set(api)
    if not isinstance(config, MemoryConfig):
        config = from_mapping(MemoryConfig, config, "memory")
    memory = ExampleMemory(api.name, config, provenance=provenance, later=later,
                           on_open=(lambda opened: opened.seed_from(api.examples_dir))
                           if seed else None)
    if not memory.connected:
        log.error("%s; the robot goes on with the seed examples of %s and uses the server "
                  "(its lessons, and the lessons learned meanwhile) once it answers",
                  memory.error, api.examples_dir)
    return memory


def learning_console(
    api: ApiName,
    robot,
    channel: UserChannel,
    llm: LLMClient,
    memory,
    learning: LearningSettings | None = None,
    ledger: TokenLedger | None = None,
    *,
    speak: Callable[[str], None] = lambda text: None,
    start: Callable[[], WorldStart] | None = None,
    agent: AgentConfig | None = None,
    live: LiveEnd | None = None,
    api_options: Mapping[str, Any] | None = None,
    input_listeners: Iterable[Callable[[str], None]] = (),
    listeners: Iterable[Callable[[Entry], None]] = (),
    reader: Reader | None = None,
    outbox: Outbox | None = None,
    facts: Callable[[], Facts] | None = None,
) -> tuple[ConsoleSession, Learner]:
    """A console (:func:`~.consoles.build_console`) whose learn_from_interaction() and
    forget_learned() act on ``memory``, and its :class:`Learner` (``learning.mode``;
    ``agent``: the statement timeout, also of the replay check; ``api_options``: the
    console's API options, also for the replay).

    ``start``: takes a :data:`~.replay.WorldStart` when an interaction begins (before its
    first statement runs); learned examples are then replayed from it before they are
    stored. Without it they are checked for syntax and names only. ``live``: reads the live
    world's end (:func:`~.replay.live_end`); with it the replay must also end like the live
    world at the learn call (modes ``final`` and ``corrected``). ``input_listeners``,
    ``listeners``: the caller's, after the replay check's own (:func:`build_console`);
    ``reader``: how the learner reads the user's utterances (the agent's reader: what it read
    is kept); ``outbox``: where lessons the memory could not take are kept on disk (the learner
    starts with those an earlier one kept). The hooks are handed to the console as it is built;
    they read the console and the learner when they are called."""
    console: ConsoleSession | None = None
    learner: Learner | None = None
    first = FirstInputStart(start, lambda: console.transcript) if start is not None else None

    def learn() -> LearnOutcome:
        return learner.learn(console.transcript, console.builtins.utterances)

    def forget(topic: str) -> str:
        removed = memory.forget(topic)
        console.builtins.say(f"I forgot {len(removed)} thing(s) I had learned about {topic}.")
        return f"removed {len(removed)} learned example(s)"

    console = build_console(api, robot, channel, speak=speak, learner=learn, forgetter=forget,
                            agent=agent, api_options=api_options,
                            input_listeners=([first] if first is not None else [])
                            + list(input_listeners), listeners=listeners)
    check = replay_check(api, first.world, agent, live, api_options) if first is not None else None
    scenes = scenes_check(api, first.world, agent, api_options) \
        if first is not None and (learning or LearningSettings()).scenes_check else None
    learner = Learner(llm, memory, console.api.listing(), console.api.names,
                      mode=(learning or LearningSettings()).mode,
                      say=console.builtins.say, ledger=ledger,
                      interaction_id=lambda: console.task_id, check=check,
                      task=lambda: console.task_id, outbox=outbox,
                      read=reading_of(reader, lambda: console.api), scenes=scenes,
                      act=console.api.call_literal, moves=console.api.moves,
                      write_move=move_call(console.api),
                      read_edit=edit_reading_of(reader, lambda: console.api, ledger)
                      if any(skill in console.api for skill in EDIT_SKILLS) else None,
                      facts=facts)
    return console, learner


def move_call(api) -> Callable[[str, str], str] | None:
    """How a move of the API is written: ``bring_object_to('cup', 'handover_to_human')`` (the
    function marked as its move); None where it has none."""
    move = api.move_function()
    if move is None:
        return None
    name = move[0].name
    return lambda obj, target: f"{name}({obj!r}, {target!r})"


def reading_of(reader: Reader | None, api: Callable[[], Any],
               reply: bool = True) -> Callable[[str], Reading | None]:
    """How the learner reads an utterance: what ``reader`` read of it already (the agent read
    each utterance as it came), else a reading in the scene of ``api()`` now, as a reply (what
    the learner reads itself is the user's answer to an attempt; ``reply`` False: as a request,
    as the example source reads the task's request); None without a reader or a scene."""
    def read(utterance: str) -> Reading | None:
        if reader is None:
            return None
        known = reader.last(utterance)
        if known is not None:
            return known
        scene = _scene_now(api, f"reading of {utterance!r}")
        return reader.read(utterance, scene.vocabulary, reply=reply) if scene else None
    return read


def _scene_now(api: Callable[[], Any], what: str):
    """The scene of ``api()`` as readings see it now; None (logged: no ``what``) where its
    names are unknown."""
    try:
        return reading_scene(api())
    except Exception as exc:  # noqa: BLE001 - no scene: nothing read
        log.warning("no %s: the scene's names are unknown (%s)", what, exc)
        return None


def _short_call(reader: Reader, ledger: TokenLedger | None, max_tokens: int,
                stop: tuple[str, ...] = ("\n",)) -> Callable[[str, str], str]:
    """One short grammar-constrained call of the reader's model (its stop signal wraps it)."""
    def ask(prompt: str, grammar: str) -> str:
        completion = reader.call(reader.llm.complete, prompt, stop=stop, temperature=0.0,
                                 max_tokens=max_tokens, grammar=grammar)
        if ledger is not None:
            ledger.record(completion.usage, "read")
        return completion.text
    return ask


def edit_reading_of(reader: Reader | None, api: Callable[[], Any],
                    ledger: TokenLedger | None = None) -> Callable[[str, str], Edit | None] | None:
    """How the learner reads a habit as an edit of the program (core/reading/edit_reading.py),
    in the scene of ``api()`` now; None without a reader. (The learner gets none on an API
    with no skill an edit can anchor at: the tabletop's lessons stay the named paths'.)"""
    if reader is None:
        return None
    # what people call a thing, as far as the reading asked already (no question of its own)
    edits = EditReader(_short_call(reader, ledger, EDIT_TOKENS, EDIT_STOP),
                       names=lambda form: reader.other_names.kept().get(form, ()))

    def read(said: str, did: str) -> Edit | None:
        scene = _scene_now(api, f"edit of {said!r}")
        return edits(said, scene.vocabulary, did) if scene else None
    return read


def habit_facts(reader: Reader | None, api: Callable[[], Any],
                ledger: TokenLedger | None = None) -> Callable[[], Facts]:
    """What a habit's condition is judged on now: what the robot holds (the API's
    ``get_object_in_hand``, where it has it) and whether a thing is of a kind (the model's
    yes or no, kept per thing and kind: core/reading/kind_of.py; without a model, only a
    spoken form that names the kind)."""
    kinds = KindCheck(_short_call(reader, ledger, 2)) if reader is not None else \
        (lambda thing, kind: named_by_form(thing, kind))

    def facts() -> Facts:
        registry = api()
        held: list[str] = []
        if "get_object_in_hand" in registry:
            for hand in ("left", "right"):
                try:
                    thing = registry["get_object_in_hand"].fn(hand)
                except Exception:  # noqa: BLE001 - unknown: nothing held
                    thing = None
                if thing:
                    held.append(thing)

        def lies(thing: str) -> str | None:
            if "list_object_locations" not in registry:
                return None
            try:
                return dict(registry["list_object_locations"].fn()).get(thing)
            except Exception:  # noqa: BLE001 - the scene is not known now
                return None
        return Facts(held=held, is_a=kinds, lies=lies)
    return facts


def taught_habits(memory, known: Callable[[], Iterable[str]] | None = None
                  ) -> Callable[[], list[Edit]]:
    """The habits stored in ``memory`` (their edits, oldest first); with ``known`` (the names
    of this robot's world now) not those whose edit names a thing or place it lacks (a habit
    another robot of the fleet was taught in its world: :func:`~.core.memory.fleet.lacking`)."""
    def habits() -> list[Edit]:
        stored = memory.list("habit")
        if known is not None and any(example.needs for example in stored):
            try:
                here = list(known())
            except Exception as exc:  # noqa: BLE001 - no scene now: every habit stands
                log.debug("the habits are not checked against the world: %s", exc)
                here = None
            if here is not None:
                kept = []
                for example in stored:
                    missing = lacking(example, here)
                    if missing:
                        log.info("the habit %s (taught by %s) is not applied here: this world "
                                 "has no %s", example.id, taught_by(example) or "another robot",
                                 ", ".join(missing))
                    else:
                        kept.append(example)
                stored = kept
        return edits_of(stored)
    return habits


def session_reader(llm: LLMClient, settings: Settings, ledger: TokenLedger, stop: StopSignal,
                   reader_llm: LLMClient | None = None) -> Reader | None:
    """The reader of a session (``agent.read_utterances``): the model that drives the robot
    reads too, unless ``reader_llm`` is given; a scripted stand-in of console statements reads
    nothing (a test gives a stand-in of readings: test/reading_support.py)."""
    model = reader_llm if reader_llm is not None else llm
    if not settings.agent.read_utterances or isinstance(model, ScriptedLLM):
        return None
    return Reader(model, ledger=ledger, call=stop.call)


def build_agent(api: ApiName, llm: LLMClient, console: ConsoleSession, examples=(),
                config: AgentConfig | None = None, ledger: TokenLedger | None = None,
                stop=None, reader: Reader | None = None, habits: Habits | None = None) -> Agent:
    api = api_set(api)
    prompt = PromptBuilder(api.header, console.api.listing())
    return Agent(llm, console, prompt, examples=examples, loop_example=api.loop_example,
                 ledger=ledger, config=config, stop=stop, speaks=api.speaks, reader=reader,
                 habits=habits)


def with_taught_routes(api: ApiSet, options: Mapping[str, Any], memory) -> dict[str, Any]:
    """``options`` with the routes the user taught a speed for, where the API class takes
    them (the stored lessons' drives, :class:`~.core.learning.route.RememberedRoutes`)."""
    from .core.learning.route import RememberedRoutes
    from .core.memory.records import LESSONS

    known: list = []

    def lessons():      # a habit's edit is applied by the agent (core/guides/habits.py)
        try:
            known[:] = [e for e in memory.list() if e.source in LESSONS and e.edit is None]
        except ConnectionError as exc:     # the memory is down: the lessons read last
            log.debug("the taught routes as last read: %s", exc)
        return list(known)

    taken = inspect.signature(api.robot_api).parameters
    out = dict(options)
    if "route_speed" in taken:
        out["route_speed"] = RememberedRoutes(lambda: [e.transcript for e in lessons()])
    return out


def outbox_of(settings: Settings) -> Outbox:
    """Where the learner keeps lessons the memory could not take: ``<memory.path>/outbox``
    (on this machine also when the memory is a server, ``memory.host``)."""
    return Outbox(Path(settings.memory.path).expanduser() / "outbox")


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
    reader: Reader | None = None       # reads each user utterance (core/reading)

    def learn(self, force: bool = False) -> LearnOutcome:
        """Learn from the interaction the console holds now (``force``: asked for from outside
        the conversation, the ROS node's learn service; :meth:`Learner.learn`)."""
        return self.learner.learn(self.console.transcript, self.console.builtins.utterances,
                                  force=force)

    @property
    def memory_note(self) -> str:
        if self.memory is None:
            return "no memory (fixed examples, no learning)"
        try:
            return f"{self.memory.count()} examples in {self.memory.location}"
        except ConnectionError:
            return (f"the {self.memory.location} does not answer (the seed examples until "
                    "it does)")


def build_session(api: ApiName, robot, channel: UserChannel, settings: Settings | None = None, *,
                  llm: LLMClient | None = None, speak: Callable[[str], None] = lambda text: None,
                  memory=None, examples_dir: str | Path | None = None,
                  stop: StopSignal | None = None, ledger: TokenLedger | None = None,
                  api_options: Mapping[str, Any] | None = None,
                  replay_start: Callable[[], WorldStart] | None = None,
                  input_listeners: Iterable[Callable[[str], None]] = (),
                  listeners: Iterable[Callable[[Entry], None]] = (),
                  reader_llm: LLMClient | None = None, world: str | None = None) -> Session:
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
    of the API class, the node's speed limits). ``input_listeners``: called with each console
    input before it runs, ``listeners``: with each entry once it is recorded (the caller's
    transcript view, timing, topics); both are handed to the console as it is built.
    ``reader_llm``: the model that reads the user's utterances (:func:`session_reader`; default
    ``llm``, none for a scripted stand-in). ``world``: the name of the robot's world, recorded
    with each lesson with ``memory.robot_id`` (default: the in-process world's name); a
    Chroma server that is down at the start is waited for (:func:`open_memory` ``later``).
    """
    api = api_set(api)
    settings = settings or Settings()
    api_options = api.options(settings.robot_api.preset, api_options)
    llm = llm if llm is not None else make_client(settings.llm)
    ledger = ledger or TokenLedger()
    stop = stop or StopSignal()
    reader = session_reader(llm, settings, ledger, stop, reader_llm)
    learner = None
    console = None
    facts = habit_facts(reader, lambda: console.api, ledger)
    if settings.memory.enabled:
        if memory is None:
            provenance = Provenance(settings.memory.robot_id or default_robot_id(),
                                    world or getattr(robot, "name", None),
                                    names=lambda: names_to_say(console.api))
            memory = open_memory(api, settings.memory, provenance=provenance, later=True)
        api_options = with_taught_routes(api, api_options, memory)
    if settings.memory.enabled and settings.learning.mode != "off":
        start = replay_start if replay_start is not None else interaction_start(robot)
        if start is None:
            log.info("no simulated world for %s: learned examples are checked for syntax "
                     "and names only", type(robot).__name__)
        console, learner = learning_console(api, robot, channel, llm, memory, settings.learning,
                                            ledger, speak=speak, start=start,
                                            agent=settings.agent, live=live_end(robot),
                                            api_options=api_options,
                                            input_listeners=input_listeners,
                                            listeners=listeners, reader=reader,
                                            outbox=outbox_of(settings), facts=facts)
        if learner.pending:      # kept during an outage before this start: store them now
            stored = learner.retry_pending()
            log.info("stored %d lesson(s) kept during an earlier memory outage", stored)
    else:
        console = build_console(api, robot, channel, speak=speak, agent=settings.agent,
                                api_options=api_options, input_listeners=input_listeners,
                                listeners=listeners)
    if settings.memory.enabled:
        examples = ExampleSource(memory, settings.learning.retrieval, say=speak,
                                 retry=learner.retry_pending if learner is not None else lambda: 0,
                                 names=lambda: names_to_say(console.api),
                                 read=reading_of(reader, lambda: console.api, reply=False),
                                 fallback=lambda: load_examples(api))
    else:
        memory, examples = None, load_examples(api, examples_dir)
    habits = Habits(taught_habits(memory, lambda: names_to_say(console.api)), facts) \
        if memory is not None else None
    agent = build_agent(api, llm, console, examples, config=settings.agent,
                        ledger=ledger, stop=stop, reader=reader, habits=habits)
    if learner is not None:        # L_improve's chat: warmed up after the agent's prompts
        agent.more_warm_up = learner.warm_up_steps()
    return Session(api, settings, robot, console, llm, agent, ledger, stop, memory, learner,
                   reader)

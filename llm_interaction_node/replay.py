"""Replaying console transcripts, and the replay check of learned examples.

``llm-interaction replay`` runs a recorded transcript against a world (:func:`replay_transcript`,
:func:`output_mismatches`); the learner checks a learned example the same way
(:func:`replay_check`, the concrete :class:`~.core.learning.replay_check.ReplayCheck`) in a world
started from the state the interaction started in, and compares how it ends with the live
world. The worlds answer for themselves (:class:`ReplayWorld`: ``checkpoint()``,
``replay_world()``, ``end()``); a robot that knows no world (the ROS node's) gets its start from
what it perceives (:func:`household_start_from_scene`) and no end. ``sims`` is imported only
where a world is built or compared: the ROS node imports this module and no simulator.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .consoles import ApiName, build_console
from .core.agent import AgentConfig
from .core.learning.replay_check import ReplayCheck, Replayed, mismatch_sentence
from .core.learning.scenes_check import ScenesCheck, SceneVerdict, expected_moves, judged
from .core.reading.select import reading_scene
from .core.reading.structure import Reading
from .core.transcript.errors import EndOfInteraction
from .core.transcript.transcript import Entry, Transcript
from .core.user.channel import EventQueue

log = logging.getLogger(__name__)


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
    try:
        for entry in recorded:
            try:
                console.execute(entry.source)
            except EndOfInteraction:
                break
        return console.transcript
    finally:
        console.close()          # its sandbox worker (a replay check replays up to 24 times)


def output_mismatches(recorded: Sequence[Entry], replayed: Sequence[Entry],
                      missing_ok: bool = False):
    """``(input number, recorded entry, replayed entry)`` for every output that differs; a
    final input without recorded output (the closing ``wait_for_trigger()``) is not compared,
    with ``missing_ok`` no input without recorded output is."""
    out = []
    for n, (want, got) in enumerate(zip(recorded, replayed, strict=False), 1):
        last = n == len(recorded) and not want.output
        if want.output != got.output and not last and not (missing_ok and not want.output):
            out.append((n, want, got))
    return out


# A "start" is taken when an interaction begins: a callable that builds a fresh world in the
# state the interaction started from (None: no world can be built, so no replay).
WorldStart = Callable[[], Any]
# A live end: where the objects of the world the console drives are now (a WorldEnd of
# sims/world_end.py), read at the learn call; None: no live world, the end is not compared.
LiveEnd = Callable[[], Any]


@runtime_checkable
class ReplayWorld(Protocol):
    """An in-process world the replay check can start from and compare ends with (the
    household world, the 2-D and the PyBullet tabletop)."""

    def checkpoint(self) -> Any:
        """The state now, as :meth:`replay_world` takes it."""

    def replay_world(self, state: Any) -> Any:
        """A new world to replay in, in the checkpointed state."""

    def end(self) -> Any:
        """Where the objects are now (a :class:`~.sims.world_end.WorldEnd`)."""


def interaction_start(robot) -> Callable[[], WorldStart] | None:
    """How to take a start for an in-process robot (None: a robot that knows no world, no
    replay): its checkpoint, replayed in the world it names."""
    if not isinstance(robot, ReplayWorld):
        return None

    def take() -> WorldStart:
        state = robot.checkpoint()
        return lambda: robot.replay_world(state)
    return take


def live_end(robot) -> LiveEnd | None:
    """How to read the live world's end for an in-process robot (the one
    :func:`interaction_start` takes starts from); None for a robot that knows no world (e.g.
    the ROS node's: its replay check compares outputs only)."""
    return robot.end if isinstance(robot, ReplayWorld) else None


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


class FirstInputStart:
    """The start of the interaction a console runs: taken (``take``) when the console is about
    to run the interaction's first statement (a console input listener)."""

    def __init__(self, take: Callable[[], WorldStart], transcript: Callable[[], Transcript]):
        self._take, self._transcript = take, transcript
        self._start: WorldStart | None = None

    def __call__(self, source: str) -> None:
        if not self._transcript().statements():      # the interaction's first statement
            self._start = self._take()

    def world(self):
        """A fresh world in the state the interaction started in (None: none taken yet)."""
        return self._start() if self._start is not None else None


def replay_check(api: ApiName, start: Callable[[], Any],
                 agent: AgentConfig | None = None, live: LiveEnd | None = None,
                 api_options: Mapping[str, Any] | None = None) -> ReplayCheck:
    """The concrete :class:`~.core.learning.replay_check.ReplayCheck`: replay in the world
    ``start()`` builds and compare every output the transcript shows; inputs it shows without
    output get the world's (``start()`` None: no world, no replay). With ``live``, the
    replayed world's end is compared with the live world's (``Replayed.end_differs``).
    ``api_options``: the live console's (the replay answers as it did)."""
    def check(transcript: Transcript, ignored: frozenset[str] = frozenset(),
              heightless: frozenset[str] = frozenset(),
              placed: Mapping[str, str] | None = None) -> Replayed | None:
        try:
            world = start()
        except Exception:  # noqa: BLE001 - learning must go on; the fallback is logged
            log.exception("the replay world could not be built: syntax and names only")
            return None
        if world is None:
            return None
        begin = _end_or_none(world) if live is not None else None
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
        placed = dict(placed or {})
        differs, checked, elsewhere, kept_moved = _end_differs(
            world, live, begin, ignored | frozenset(placed), heightless)
        off, how_many = _not_at_places(world, placed)
        if off:
            differs = f"{differs}; {off}" if differs else off
            checked, elsewhere = True, elsewhere + how_many
        return Replayed(result, mismatch, differs, checked, elsewhere, kept_moved,
                        tuple(begin.objects) if begin is not None else ())
    return check


SCENE_COPIES = 2          # changed scenes a lesson is judged in (issue 43: at least 2)
TRIES_PER_COPY = 3        # a copy where the reading selects nothing is not judged: draw another


def scenes_check(api: ApiName, start: Callable[[], Any], agent: AgentConfig | None = None,
                 api_options: Mapping[str, Any] | None = None, copies: int = SCENE_COPIES,
                 seed: int = 1) -> ScenesCheck:
    """The concrete :class:`~.core.learning.scenes_check.ScenesCheck`: the lesson's statements
    run in ``copies`` copies of the interaction's start (``start()``) with the objects spawned
    anew (``moved_copy(seed + k)`` of the world, up to ``TRIES_PER_COPY`` draws per copy where
    the reading selects nothing; a world without it, e.g. the household, is not judged), the
    user's replies from the lesson itself; judged by the moves the API logged against what
    the reading selects in that copy before it runs."""
    def check(transcript: Transcript, reading: Reading) -> SceneVerdict | None:
        verdict = SceneVerdict()
        for k in range(copies * TRIES_PER_COPY):
            if verdict.tried >= copies:
                break
            try:
                world = start()
                world = world.moved_copy(seed + k) if hasattr(world, "moved_copy") else None
            except Exception:  # noqa: BLE001 - learning goes on; the lesson is not judged
                log.exception("no changed scene could be built: the lesson is not judged")
                return None
            if world is None:
                return None
            why = _run_judged(api, world, transcript, reading, agent, api_options)
            if why is False:
                continue                      # the reading selects nothing there
            verdict.tried += 1
            if why is None:
                verdict.held += 1
            else:
                verdict.why.append(why)
        return verdict if verdict.tried else None
    return check


def _run_judged(api: ApiName, world, transcript: Transcript, reading: Reading,
                agent: AgentConfig | None, api_options) -> str | None | bool:
    """None: the lesson did in ``world`` what ``reading`` says; a sentence: what it did not;
    False: the reading cannot be resolved there (not judged)."""
    channel = EventQueue(transcript.user_utterances(), close=True)
    console = build_console(api, world, channel, learner=lambda: None, agent=agent,
                            api_options=api_options)
    try:
        expected = expected_moves(reading_scene(console.api).frozen(), reading)
        if expected is None:
            return False
        for entry in transcript:
            try:
                console.execute(entry.source)
            except EndOfInteraction:
                break
        return judged(expected, console.api.moves())
    finally:
        console.close()


def _not_at_places(world, placed: Mapping[str, str]) -> tuple[str | None, int]:
    """(one sentence on where the objects the user sent to a named place end instead in the
    replayed ``world``, how many; :func:`.sims.world_end.not_at_places`): compared with the
    place, not with the live world, as the lesson may come before the robot put them there."""
    if not placed:
        return None, 0
    from .sims.world_end import joined, not_at_places
    told = not_at_places(_end_or_none(world), placed)
    return joined(told), len(told)


def _end_or_none(world):
    from .sims.world_end import end_of
    try:
        return end_of(world)
    except Exception:  # noqa: BLE001 - learning must go on; the fallback is logged
        log.exception("the replay world's start could not be read")
        return None


def _end_differs(world, live: LiveEnd | None, begin=None, ignored: frozenset[str] = frozenset(),
                 heightless: frozenset[str] = frozenset()
                 ) -> tuple[str | None, bool, int, tuple[str, ...]]:
    """(how the replayed ``world`` ends differently from the live one, the ``ignored``
    objects not compared, the ``heightless`` not by height; whether it was compared, how
    many objects end elsewhere, which of those the live interaction left where they were at
    ``begin``)."""
    if live is None:
        return None, False, 0, ()
    from .sims.world_end import end_difference, end_of, ending_elsewhere
    try:
        now, replayed = live(), end_of(world)
    except Exception:  # noqa: BLE001 - learning must go on; the fallback is logged
        log.exception("the live world's end could not be read: the end is not compared")
        return None, False, 0, ()
    if now is None or replayed is None or now.kind != replayed.kind:
        return None, False, 0, ()
    elsewhere = ending_elsewhere(replayed, now, ignored, heightless)
    kept: tuple[str, ...] = ()
    if begin is not None and begin.kind == now.kind:
        moved_live = set(ending_elsewhere(begin, now))
        kept = tuple(n for n in elsewhere if n in begin.objects and n not in moved_live)
    return end_difference(replayed, now, elsewhere), True, len(elsewhere), kept

"""The agent's reading helpers (core/reading): the scene as the readings see it, the model's
reading of an utterance, the readings of the task's request and of the reply at hand, where
they want things, the API's move log, and whether a turn answers an attempt. The guides read
them through :class:`~..guides.state.GuideState`."""
from __future__ import annotations

import logging

from ..console.session import ConsoleSession
from ..reading import Reader, Reading
from ..reading.select import Scene, reading_scene
from ..user.interrupt import StopSignal

log = logging.getLogger(__name__)


class Readings:
    """The reading part of :class:`~.loop.Agent` (its state is the agent's)."""

    console: ConsoleSession
    stop: StopSignal
    reader: Reader | None
    answered: list[str]
    attempt_moves: list[tuple[str, str | None]]
    task_moves: list[tuple[str, str | None]]
    task_utterances: list[str]
    readings: list[Reading | None]
    request_scene: Scene | None

    def scene(self) -> Scene | None:
        """The scene as the readings see it (names, spoken forms, positions); None when the
        API cannot list it."""
        try:
            return reading_scene(self.console.api)
        except Exception as exc:  # noqa: BLE001 - no scene: nothing read, nothing focused
            log.warning("the scene's names are unknown (%s): utterances are not read", exc)
            return None

    def _read(self, utterance: str) -> Reading | None:
        """The model's reading of ``utterance`` in the current scene (None without a reader
        or a scene, or when the model gave none: then nothing acts on it)."""
        if self.reader is None:
            return None
        scene = self.scene()
        if scene is None:
            return None
        reply = len(self.task_utterances) >= 2      # the task's request is read as one
        if not reply:        # its relations are meant in the scene it is said in
            self.request_scene = scene.frozen()
        # a reply answers the attempt: the reader sees what it moved (where the API logs moves)
        moved = [o for o, _ in self.attempt_moves] \
            if reply and self.console.api.move_function() else None
        reading = self.stop.call(self.reader.read, utterance, scene.vocabulary, reply, moved)
        return self._about_the_task(reading, utterance, scene, moved)

    def _about_the_task(self, reading: Reading | None, utterance: str, scene: Scene,
                        moved: list[str] | None) -> Reading | None:
        """A request to learn what comes along is about everything the task brought, not only
        the last attempt: where ``reading`` is one (``also`` with ``learn``) and the task moved
        more than the attempt, the reply is read again against all of it (the later reading is
        the one kept). Measured (section E, E1 at 4c2e1c8): after the juice, then the cup, "next
        time, can you do this both at once? You have two hands" was read against "you moved:
        coffee cup" as ``also: tumbler with coffee cup; learn`` (the lesson brought the tumbler
        too); against "you moved: mango juice and coffee cup", ``hand: both; learn``."""
        if reading is None or moved is None or not reading.asks_to_learn or \
                not reading.of_kind("also"):
            return reading
        task = list(dict.fromkeys(o for o, _ in self.task_moves))
        if not set(task) - set(moved):
            return reading
        again = self.stop.call(self.reader.read, utterance, scene.vocabulary, True, task)
        return again if again is not None else reading

    def reply_reading(self) -> Reading | None:
        """The reading of the user's last utterance of this task, if it answers an attempt."""
        return self.readings[-1] if len(self.readings) >= 2 else None

    def keep_reply_reading(self, reading: Reading) -> None:
        """Keep the reply's reading as a guide resolved it (the change of hands resolves
        "the other hand": :func:`..guides.hands.plan`), so the turn acts on that."""
        self.readings[-1] = reading

    def latest_reading(self) -> Reading | None:
        return self.readings[-1] if self.readings else None

    def wanted_targets(self) -> set[str]:
        """The names the readings of this task say things should go to."""
        out: set[str] = set()
        for reading in self.readings:
            for clause in reading.moves if reading is not None else ():
                if clause.where is not None and clause.where.name:
                    out.add(clause.where.name)
        return out

    def move_log(self) -> list[tuple[str, str | None]]:
        """The moves the API made so far (:meth:`~..apis.registry.ApiRegistry.moves`)."""
        return self.console.api.moves()

    def answers_an_attempt(self) -> bool:
        """This turn answers an attempt: the user spoke again after the robot acted."""
        return bool(self.answered) and len(self.task_utterances) >= 2


"""Where user utterances come from: one blocking interface, several sources.

The console's ``wait_for_trigger()`` and ``ask()`` block on a :class:`UserChannel`. The
terminal chat, a test, the benchmark's simulated user and the ROS node's ASR topic each
provide one, so the same session runs under all of them.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable
from typing import Literal, Protocol

from ..transcript.errors import EndOfInteraction, InteractionAborted

Purpose = Literal["trigger", "ask"]


class UserChannel(Protocol):
    def next_utterance(self, purpose: Purpose, prompt: str | None = None) -> str:
        """Block until the user says something; raise EndOfInteraction if nobody will."""


class EventQueue:
    """Thread-safe queue of utterances: producers ``put``, the console consumes.

    Utterances that arrive while the robot is busy wait here; none is dropped.
    ``close()`` makes a consumer that finds the queue empty raise EndOfInteraction.
    With a ``stop`` signal (:class:`~.interrupt.StopSignal`), a stop request ends an
    ``ask()`` that is waiting for its answer (waiting for the next request is not work
    to stop, unless the request says so: a reset).
    """

    def __init__(self, utterances: Iterable[str] = (), close: bool = False,
                 poll_s: float = 0.05, stop=None):
        self._stop = stop
        self._queue: queue.Queue[str] = queue.Queue()
        self._closed = threading.Event()
        self._poll_s = poll_s
        for text in utterances:
            self.put(text)
        if close:
            self.close()

    def put(self, text: str) -> None:
        self._queue.put(text)

    def close(self) -> None:
        self._closed.set()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def pending(self) -> int:
        return self._queue.qsize()

    def discard_pending(self) -> int:
        """Drop the utterances still waiting (a reset: they belong to the old interaction);
        how many there were."""
        dropped = 0
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                return dropped
            dropped += 1

    def next_utterance(self, purpose: Purpose = "trigger", prompt: str | None = None) -> str:
        # Poll in short slices so that a stop request (async exception) is delivered promptly.
        while True:
            try:
                return self._queue.get(timeout=self._poll_s)
            except queue.Empty:
                if self._stop is not None and self._stop.is_set() and (
                        purpose == "ask" or self._stop.interrupts_idle):
                    raise InteractionAborted(self._stop.reason or "stop requested") from None
                if self._closed.is_set() and self._queue.empty():
                    raise EndOfInteraction("no more user input") from None


class CallbackUser:
    """Asks a function for each utterance (terminal input, the benchmark's simulated user)."""

    def __init__(self, respond: Callable[[Purpose, str | None], str | None]):
        self._respond = respond

    def next_utterance(self, purpose: Purpose = "trigger", prompt: str | None = None) -> str:
        text = self._respond(purpose, prompt)
        if text is None:
            raise EndOfInteraction("the user has nothing more to say")
        return text

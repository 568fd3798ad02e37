"""Where user utterances come from: one blocking interface, several sources.

The console's ``wait_for_trigger()`` and ``ask()`` block on a :class:`UserChannel`. The
terminal chat, a test, the benchmark's simulated user and the ROS node's ASR topic each
provide one, so the same session runs under all of them.
"""
from __future__ import annotations

import threading
from collections import deque
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
    to stop, unless the request says so: a reset). ``hold()`` (a reset, before it answers)
    keeps every utterance queued until ``release()`` (the reset took effect): the wait of
    the interaction being reset must not take the first request of the next one (issue 60:
    a request sent 1-2 ms after the reset's answer was taken by it and dropped with it).
    """

    def __init__(self, utterances: Iterable[str] = (), close: bool = False,
                 poll_s: float = 0.05, stop=None):
        self._stop = stop
        self._items: deque[str] = deque()
        self._ready = threading.Condition()
        self._held = False
        self._closed = threading.Event()
        self._poll_s = poll_s
        for text in utterances:
            self.put(text)
        if close:
            self.close()

    def put(self, text: str) -> None:
        with self._ready:
            self._items.append(text)
            self._ready.notify_all()

    def close(self) -> None:
        self._closed.set()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def pending(self) -> int:
        return len(self._items)

    def hold(self) -> None:
        """Take nothing out until :meth:`release` (what arrives meanwhile stays queued)."""
        with self._ready:
            self._held = True

    def release(self) -> None:
        with self._ready:
            self._held = False
            self._ready.notify_all()

    def discard_pending(self) -> int:
        """Drop the utterances still waiting (a reset: they belong to the old interaction);
        how many there were."""
        with self._ready:
            dropped = len(self._items)
            self._items.clear()
            return dropped

    def next_utterance(self, purpose: Purpose = "trigger", prompt: str | None = None) -> str:
        # Wait in short slices so that a stop request is noticed promptly.
        with self._ready:
            while True:
                if self._items and not self._held:
                    return self._items.popleft()
                if self._stop is not None and self._stop.is_set() and (
                        purpose == "ask" or self._stop.interrupts_idle):
                    raise InteractionAborted(self._stop.reason or "stop requested")
                if self._closed.is_set() and (self._held or not self._items):
                    raise EndOfInteraction("no more user input")
                self._ready.wait(self._poll_s)


class CallbackUser:
    """Asks a function for each utterance (terminal input, the benchmark's simulated user)."""

    def __init__(self, respond: Callable[[Purpose, str | None], str | None]):
        self._respond = respond

    def next_utterance(self, purpose: Purpose = "trigger", prompt: str | None = None) -> str:
        text = self._respond(purpose, prompt)
        if text is None:
            raise EndOfInteraction("the user has nothing more to say")
        return text

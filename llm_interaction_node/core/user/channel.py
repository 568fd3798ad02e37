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

    An utterance may carry an ``origin`` (who sent it: None for a person's words, e.g. an
    action goal of the ROS node's Instruct server): such an item is a request only, never the
    answer to an ``ask()``, and :attr:`taken_origin` says whose item the consumer took last;
    :meth:`remove` takes a request back that nobody took yet. :meth:`answer` hands the
    ``ask()`` waiting now its answer, before anything queued (:meth:`drop_answer` drops an
    answer no ``ask()`` took).
    """

    def __init__(self, utterances: Iterable[str] = (), close: bool = False,
                 poll_s: float = 0.05, stop=None):
        self._stop = stop
        self._items: deque[tuple[str, object]] = deque()     # (text, origin)
        self._answer: str | None = None
        self.taken_origin: object = None         # the origin of the item taken last
        self._ready = threading.Condition()
        self._held = False
        self._closed = threading.Event()
        self._poll_s = poll_s
        for text in utterances:
            self.put(text)
        if close:
            self.close()

    def put(self, text: str, origin: object = None) -> None:
        with self._ready:
            self._items.append((text, origin))
            self._ready.notify_all()

    def answer(self, text: str) -> None:
        """The answer to the question being asked: the waiting ``ask()`` takes it first."""
        with self._ready:
            self._answer = text
            self._ready.notify_all()

    def drop_answer(self) -> None:
        with self._ready:
            self._answer = None

    def remove(self, origin: object) -> bool:
        """Take back the queued request of ``origin``; False if it was taken already."""
        with self._ready:
            for item in self._items:
                if item[1] is origin:
                    self._items.remove(item)
                    return True
            return False

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
                if purpose == "ask" and self._answer is not None:
                    text, self._answer, self.taken_origin = self._answer, None, None
                    return text
                item = self._next_item(purpose)
                if item is not None:
                    self._items.remove(item)
                    text, self.taken_origin = item
                    return text
                if self._stop is not None and self._stop.is_set() and (
                        purpose == "ask" or self._stop.interrupts_idle):
                    raise InteractionAborted(self._stop.reason or "stop requested")
                if self._closed.is_set():
                    raise EndOfInteraction("no more user input")
                self._ready.wait(self._poll_s)

    def _next_item(self, purpose: Purpose) -> tuple[str, object] | None:
        """With the lock held: the item ``purpose`` takes now (an ``ask()`` takes no
        request that came with an origin), or None."""
        if self._held:
            return None
        return next((item for item in self._items
                     if purpose != "ask" or item[1] is None), None)


class CallbackUser:
    """Asks a function for each utterance (terminal input, the benchmark's simulated user)."""

    def __init__(self, respond: Callable[[Purpose, str | None], str | None]):
        self._respond = respond

    def next_utterance(self, purpose: Purpose = "trigger", prompt: str | None = None) -> str:
        text = self._respond(purpose, prompt)
        if text is None:
            raise EndOfInteraction("the user has nothing more to say")
        return text

"""The interaction node's state machine: ``idle`` / ``busy`` / ``learning`` (+ ``warming``).

Three threads change it (the agent's worker, the executor, the services thread), so every
change happens under one condition lock and is published inside it: the state topic gets
the changes in the order they happened. The console's user channel (:class:`StateChannel`)
drives it: idle while the agent waits for a request, busy once it has one (after a running
learn call ended); the learn service takes idle -> learning in one step. While the start-up
warm-up of the model runs (core/llm/warmup.py), the idle robot is ``warming``: it listens, and a
request waits for the warm-up; for stop, speech and learning it is idle
(:attr:`InteractionState.idle`).
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

from ..core.transcript.errors import EndOfInteraction
from ..core.user.channel import EventQueue

IDLE, BUSY, LEARNING, WARMING = "idle", "busy", "learning", "warming"
RESTING = (IDLE, WARMING)                # nothing runs


class InteractionState:
    """The current state; ``publish`` is told each change (with the lock held), ``debug``
    gets a numbered line for it."""

    def __init__(self, publish: Callable[[str], None], debug: Callable[[str], None]):
        self._publish = publish
        self._debug = debug
        self._state = ""                         # guarded by _changed
        self._seq = 0
        self._warming = False                    # the start-up warm-up runs
        self._changed = threading.Condition()

    @property
    def current(self) -> str:
        with self._changed:
            return self._state

    @property
    def idle(self) -> bool:
        """Nothing runs (``idle``, or ``warming``: idle while the warm-up runs)."""
        with self._changed:
            return self._state in RESTING

    def set(self, state: str) -> None:
        with self._changed:
            self._change(state)

    def warming(self, on: bool) -> None:
        """The start-up warm-up began (``on``) or ended: an idle robot shows ``warming``
        while it runs, ``idle`` after."""
        with self._changed:
            self._warming = on
            if self._state in RESTING:
                self._change(IDLE)

    def _change(self, state: str) -> None:
        """With the lock held: record and publish a change (numbered in the debug log)."""
        if state == IDLE and self._warming:
            state = WARMING
        if state != self._state:
            self._seq += 1
            self._debug(f"state #{self._seq}: {self._state or '-'} -> {state}")
            self._state = state
            self._publish(state)
            self._changed.notify_all()

    def begin_learning(self) -> bool:
        """idle -> learning in one step; False if the robot is not idle."""
        with self._changed:
            if self._state not in RESTING:
                return False
            self._change(LEARNING)
            return True

    def become_busy(self) -> None:
        """The worker got an utterance (or an abort): busy, once a running learn ended."""
        with self._changed:
            while self._state == LEARNING:
                self._changed.wait()
            self._change(BUSY)


class Requests(Protocol):
    """Who sent what the worker takes (the Instruct server, :mod:`.instruct_server`): told when
    the robot waits for the next request (the turn before ended), which request it took, and
    each question it asks."""

    def waiting(self) -> None: ...

    def taken(self, origin: object) -> bool:
        """The worker took the queued item of ``origin`` (None: a person's words); False:
        not to be acted on (cancelled as it was taken)."""

    def asking(self, question: str | None) -> None: ...

    def asked(self) -> None: ...


class StateChannel:
    """The console's user channel: the node's queue, idle while waiting for a request;
    ``drained`` is called when the robot waits for a request and none is queued;
    ``requests`` (set once the node built it) is told what :class:`Requests` says."""

    def __init__(self, queue: EventQueue, state: InteractionState, drained: Callable[[], None]):
        self.queue = queue
        self.state = state
        self.drained = drained
        self.requests: Requests | None = None

    def hold(self) -> None:
        """A reset: what is said from now on waits for the next interaction (the queue's
        :meth:`~...core.user.channel.EventQueue.hold`)."""
        self.queue.hold()

    def release(self) -> None:
        self.queue.release()

    def next_utterance(self, purpose, prompt=None) -> str:
        requests = self.requests
        if purpose == "ask":
            if requests is not None:
                requests.asking(prompt)
            try:
                return self._take(purpose, prompt)
            finally:
                if requests is not None:
                    requests.asked()
        while True:
            self.state.set(IDLE)
            if requests is not None:
                requests.waiting()
            if not self.queue.pending():
                self.drained()
            text = self._take(purpose, prompt)
            if requests is None or requests.taken(self.queue.taken_origin):
                return text

    def _take(self, purpose, prompt) -> str:
        try:
            text = self.queue.next_utterance(purpose, prompt)
        except EndOfInteraction:
            raise                   # the node shuts down: it did not turn busy (issue 44)
        except BaseException:
            self.state.become_busy()     # an abort (stop, reset): the agent acts on it
            raise
        self.state.become_busy()
        return text

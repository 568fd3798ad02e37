"""Stopping a running interaction from another thread (a stop button, the ROS stop topic).

The agent's worker thread blocks in three places: the LLM call, a skill, and the user
channel. A :class:`StopSignal` is shared by all of them: ``request()`` wakes an LLM call
at once (:meth:`StopSignal.call` runs it in a helper thread and stops waiting), a robot
implementation that waits for a skill checks it between short waits and cancels its goal,
and the agent checks it between statements. Each raises
:class:`~llm_interaction_node.core.transcript.errors.InteractionAborted`, which ends the turn.
A request that arrives while the agent is idle (waiting for the user) is cleared by the
agent when the next turn starts, so it never aborts work that begins later.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

from ..transcript.errors import InteractionAborted

T = TypeVar("T")


class StopSignal:
    def __init__(self) -> None:
        self._event = threading.Event()
        self._reason = ""
        self._idle = False
        self._lock = threading.Lock()

    def request(self, reason: str = "stop requested", idle: bool = False) -> None:
        """Ask the running interaction to stop (thread-safe, returns at once).

        ``idle=True`` also ends a wait for the next user request (used by reset).
        """
        with self._lock:
            self._reason = reason
            self._idle = self._idle or idle
            self._event.set()

    def clear(self) -> None:
        with self._lock:
            self._event.clear()
            self._reason = ""
            self._idle = False

    def is_set(self) -> bool:
        return self._event.is_set()

    @property
    def reason(self) -> str:
        return self._reason

    @property
    def interrupts_idle(self) -> bool:
        return self._event.is_set() and self._idle

    def wait(self, timeout: float | None = None) -> bool:
        """Block up to ``timeout`` s; True if a stop was requested."""
        return self._event.wait(timeout)

    def check(self) -> None:
        """Raise InteractionAborted if a stop was requested."""
        if self._event.is_set():
            raise InteractionAborted(self._reason or "stop requested")

    def call(self, fn: Callable[..., T], *args, **kwargs) -> T:
        """Run ``fn`` in a helper thread; return its result, or raise InteractionAborted as
        soon as a stop is requested (the abandoned call finishes in the background and its
        result is dropped)."""
        self.check()
        future: Future = Future()

        def run() -> None:
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                future.set_exception(exc)

        threading.Thread(target=run, name="interruptible-call", daemon=True).start()
        while not future.done():
            if self._event.wait(0.02) and not future.done():
                raise InteractionAborted(self._reason or "stop requested")
        return future.result()

"""While the user speaks, the robot starts nothing new: a spoken stop must beat the next step.

A stop is known only after the words ended, the VAD's silence passed and recognition ran
(1-1.5 s). A move that ends inside that window used to be followed at once by the next
statement of a fast LLM (``say``, then a ``grasp`` goal) before the stop arrived. The speech
recogniser reports voice activity as it happens (``speaking(True)`` when speech starts,
``speaking(False)`` when it ends) and ``handled()`` once it has judged the utterance (a stop
is sent before that). :meth:`SpeechPause.hold`, called before each statement and each skill
goal, waits while the user speaks and after the speech until it was handled, at most
``after_s`` after it ended and ``max_s`` in all; then a stop that came meanwhile raises
:class:`~..transcript.errors.InteractionAborted`, anything else goes on as before. What runs already
(a skill goal) is not held: only what would start.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from .interrupt import StopSignal

log = logging.getLogger(__name__)


class SpeechPause:
    """Thread-safe: the ROS callbacks report speech, the agent's worker holds."""

    def __init__(self, stop: StopSignal, after_s: float = 3.0, max_s: float = 30.0,
                 settle_s: float = 0.1, clock: Callable[[], float] = time.monotonic):
        """``settle_s``: after ``handled()``, the time a stop sent just before it may still
        need to arrive (another topic)."""
        self.stop = stop
        self.after_s, self.max_s, self.settle_s = after_s, max_s, settle_s
        self._clock = clock
        self._cond = threading.Condition()
        self._speaking = False
        self._started: float | None = None    # speech not yet handled began then
        self._ended: float | None = None      # ... and ended then (None: still speaking)
        self._handled: float | None = None
        self.holds = 0                         # how often something was held (tests, logs)

    def speaking(self, active: bool) -> None:
        with self._cond:
            now = self._clock()
            if active and not self._speaking:
                self._started, self._ended, self._handled = now, None, None
            elif not active and self._speaking:
                self._ended = now
            self._speaking = active
            self._cond.notify_all()

    def handled(self) -> None:
        """The recogniser judged the utterance that was spoken (sent, stop or dropped)."""
        with self._cond:
            if self._started is not None and not self._speaking:
                self._handled = self._clock()
            self._cond.notify_all()

    def _until(self) -> float | None:
        """With the lock: when the current hold ends (None: nothing to hold for)."""
        if self._started is None:
            return None
        cap = self._started + self.max_s
        if self._speaking:
            return cap
        if self._handled is not None:
            return min(cap, self._handled + self.settle_s)
        return min(cap, self._ended + self.after_s)

    def hold(self) -> float:
        """Wait while the user speaks (see the module docstring); the seconds waited. Raises
        InteractionAborted if a stop came meanwhile (or was already there)."""
        started = self._clock()
        with self._cond:
            held = False
            while not self.stop.is_set():
                until = self._until()
                now = self._clock()
                if until is None or now >= until:
                    break
                if not held:
                    held = True
                    self.holds += 1
                    log.info("the user is speaking: the next step waits")
                self._cond.wait(min(until - now, 0.05))
            if self._started is not None and not self._speaking and (
                    self._handled is not None or self._clock() >= self._until()):
                self._started = None               # this speech is done with
        waited = self._clock() - started
        if held:
            log.info("held %.2f s for the user's speech", waited)
        self.stop.check()
        return waited

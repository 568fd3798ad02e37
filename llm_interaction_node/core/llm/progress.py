"""Progress of a running LLM call, for a person waiting on it.

A first console prompt holds 4-4.6k tokens; on 2 CPU cores a llama.cpp server evaluates it in
113-147 s before the first token comes. A client that knows how far it is (the embedded model
evaluates the prompt in batches; a llama.cpp server streams ``prompt_progress`` when asked)
calls its ``progress`` sink (an attribute, ``None`` = nobody listens) with an
:class:`LLMProgress`; the clients that cannot tell say nothing. :class:`ProgressReporter`
turns those events into a few lines for a terminal or a log: nothing for a call that is over
quickly, then one line every few seconds, and a last line when a reported call ends.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

PROMPT, GENERATE, DONE = "prompt", "generate", "done"


@dataclass(frozen=True)
class LLMProgress:
    """Where one call is: ``prompt`` (``done`` of ``total`` prompt tokens evaluated; ``total``
    None when unknown), ``generate`` (``done`` tokens generated) or ``done`` (the call ended,
    ``failed`` when it ended in an error)."""

    phase: str
    done: int = 0
    total: int | None = None
    elapsed_s: float = 0.0
    failed: bool = False

    def describe(self) -> str:
        took = f"{self.elapsed_s:.0f} s"
        if self.phase == PROMPT:
            of = f" of {self.total}" if self.total else ""
            return f"the model is reading the prompt: {self.done}{of} tokens, {took}"
        if self.phase == GENERATE:
            return f"the model is writing: {self.done} tokens, {took}"
        return f"the model {'gave up' if self.failed else 'answered'} after {took}"


ProgressSink = Callable[[LLMProgress], None]


def report(sink: ProgressSink | None, event: LLMProgress) -> None:
    """Hand ``event`` to ``sink``; a listener that fails never breaks the LLM call."""
    if sink is None:
        return
    try:
        sink(event)
    except Exception:  # noqa: BLE001 - display only
        import logging
        logging.getLogger(__name__).debug("progress listener failed", exc_info=True)


class ProgressReporter:
    """A :data:`ProgressSink` that writes lines for a person (``write(line)``).

    Nothing while a call is younger than ``after_s`` (most statements are quick), then at most
    one line every ``every_s``; when a call that was reported ends, one closing line. Thread-safe.
    """

    def __init__(self, write: Callable[[str], None], after_s: float = 3.0, every_s: float = 5.0,
                 clock: Callable[[], float] = time.monotonic):
        self.write = write
        self.after_s = after_s
        self.every_s = every_s
        self._clock = clock
        self._last: float | None = None      # when the current call last wrote a line
        self._lock = threading.Lock()

    def __call__(self, event: LLMProgress) -> None:
        with self._lock:
            if event.phase == DONE:
                if self._last is not None:
                    self.write(event.describe())
                self._last = None
                return
            if event.elapsed_s < self.after_s:
                return
            now = self._clock()
            if self._last is not None and now - self._last < self.every_s:
                return
            self._last = now
            self.write(event.describe())

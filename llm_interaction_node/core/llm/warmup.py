"""The start-up warm-up of a stateful LLM (the embedded model), in the background.

A stateful model evaluates the stable part of its prompts once (the agent's console prefix:
header, API listing, the seed block; the reading prompts' examples) and keeps the state, in RAM
and on disk for the next start (:meth:`~..agent.Agent.warm_up_steps`). On a fresh install no
state is on disk: the console prefix alone is ~4.5k tokens, 90-100 s on 2 CPU cores (issue 44:
the first request after install waited 102 s for it). :class:`Warmup` runs those prefills in a
thread of its own as soon as the robot starts, so the robot listens at once:

* it writes a line when it starts, a line with the percentage every ``every_s`` while a
  prefill evaluates, and one when it is done (how long, tokens evaluated and restored);
* a request that comes meanwhile WAITS for it (:meth:`wait`, called by the agent before it
  reads or answers a request): the request's prompt starts with the very tokens being
  evaluated, so no answer could come sooner, and a model runs one evaluation at a time. The
  wait ends at once on a stop or a reset (``InteractionAborted``), the warm-up goes on;
* nothing stops it but the end of the process: a stop or reset of a request never cuts it
  (its prefills are not run through the stop signal), so the next request finds the state.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

from ..user.interrupt import StopSignal
from .progress import PROMPT, LLMProgress, ProgressSink
from .usage import Usage

log = logging.getLogger(__name__)

# one step: what it evaluates (for the lines) and the call that does it (returns its Usage)
Step = tuple[str, Callable[[], Usage | None]]


class Warmup:
    """Runs ``steps`` once, in order, in a background thread (:meth:`start`). ``write`` gets
    the lines for a person (log, progress topic); ``on_done`` is called once at the end
    (also after a step failed: the robot then works without the saved state)."""

    def __init__(self, steps: Sequence[Step], write: Callable[[str], None] = log.info,
                 on_done: Callable[[], None] | None = None, every_s: float = 5.0,
                 clock: Callable[[], float] = time.monotonic):
        self.steps = list(steps)
        self.write = write
        self.on_done = on_done
        self.every_s = every_s
        self._clock = clock
        self._done = threading.Event()
        self._step = ""                       # what is being evaluated now
        self._last_line: float | None = None
        self.percent: int | None = None       # of the step that runs (None: not told yet)
        self.usage = Usage()
        self.failed: list[str] = []
        self.wall_s: float | None = None
        self._thread: threading.Thread | None = None

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def running(self) -> bool:
        return self._thread is not None and not self.done

    def start(self) -> None:
        """Start the warm-up thread (once)."""
        if self._thread is not None:
            raise RuntimeError("the warm-up was started already")
        self._thread = threading.Thread(target=self._run, name="warm-up", daemon=True)
        self._thread.start()

    def wait(self, stop: StopSignal, timeout: float | None = None) -> bool:
        """Block until the warm-up is done (True) or ``timeout`` passed (False); a stop or
        reset requested meanwhile raises ``InteractionAborted`` (the warm-up goes on)."""
        deadline = None if timeout is None else self._clock() + timeout
        while not self._done.wait(0.05):
            stop.check()
            if deadline is not None and self._clock() >= deadline:
                return False
        return True

    def route(self, other: ProgressSink | None) -> ProgressSink:
        """A progress sink for the model: its events go to the warm-up's lines while the
        warm-up runs (a model evaluates one prompt at a time, and requests wait for the
        warm-up), else to ``other``."""
        def sink(event: LLMProgress) -> None:
            if self.running:
                self.progress(event)
            elif other is not None:
                other(event)
        return sink

    def progress(self, event: LLMProgress) -> None:
        """A prefill's progress: a line with the percentage, at most every ``every_s``."""
        if event.phase != PROMPT or not event.total:
            return
        self.percent = min(100, int(100 * event.done / event.total))
        now = self._clock()
        if self._last_line is not None and now - self._last_line < self.every_s:
            return
        self._last_line = now
        self.write(f"warming up the language model ({self._step}): {self.percent} % of "
                   f"{event.total} tokens, {event.elapsed_s:.0f} s")

    def describe(self) -> str:
        """Where the warm-up is, for a person (a request that waits is told this)."""
        if self.done:
            return "the language model is warmed up"
        at = f", {self.percent} %" if self.percent is not None else ""
        return f"the language model is warming up ({self._step}{at})"

    def _run(self) -> None:
        start = self._clock()
        self.write("warming up the language model: evaluating the start of its prompts once "
                   "(a request waits for it; kept on disk for the next start)")
        try:
            for what, step in self.steps:
                self._step, self.percent, self._last_line = what, None, None
                try:
                    usage = step()
                except Exception as exc:  # noqa: BLE001 - the robot works without the state
                    log.warning("warming up %s failed: %s", what, exc)
                    self.failed.append(f"{what}: {exc}")
                    continue
                if usage is not None:
                    self.usage = self.usage + usage
        finally:
            self.wall_s = self._clock() - start
            self.write(self._summary())
            self._done.set()
            if self.on_done is not None:
                self.on_done()

    def _summary(self) -> str:
        u = self.usage
        restored = u.cached_tokens
        text = (f"warm-up done in {self.wall_s:.1f} s: {u.evaluated_tokens} tokens evaluated, "
                f"{restored} restored from a saved state")
        if self.failed:
            text += "; failed: " + "; ".join(self.failed)
        return text


def route_progress(llm, warmup: Warmup) -> None:
    """Let ``llm``'s progress events (if it reports any) reach ``warmup`` while it runs."""
    if hasattr(llm, "progress"):
        llm.progress = warmup.route(llm.progress)



"""How many threads the embedded model may use now: the cores other processes leave free.

llama.cpp's threads meet at a barrier after every layer, so one thread that shares its core
with a busy process holds all of them back. Measured (issue 45, 2 cores, one CPU hog beside the
suite): the embedded-model tests ran 836 s instead of 161 s with 2 threads, and two of them hit
their 300 s timeout (docs/benchmarks.md has one thread against two under that load). So before
each call the client asks :class:`CpuShare` how many cores other processes kept busy since the
last call (the machine's CPU time from ``/proc/stat`` less this process's own, no waiting) and
uses the cores left, at least one, at most its maximum.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Callable

log = logging.getLogger(__name__)

MIN_WINDOW_S = 0.2      # a shorter interval since the last look says nothing: keep the answer


def cpu_times(path: str = "/proc/stat") -> tuple[float, float] | None:
    """(busy, total) CPU seconds of all cores since boot; None where they cannot be read."""
    try:
        with open(path) as f:
            fields = [float(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    if len(fields) < 4:
        return None
    hz = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)      # idle + iowait
    total = sum(fields[:8])                                          # guest is in user
    return (total - idle) / hz, total / hz


def own_cpu() -> float:
    """CPU seconds this process used (every thread)."""
    t = os.times()
    return t.user + t.system


class CpuShare:
    """The threads for the next call (see the module docstring). ``times``: the machine's
    (busy, total) CPU seconds now (default :func:`cpu_times`); ``own``: this process's CPU
    seconds; ``cores``: the machine's cores."""

    def __init__(self, most: int, cores: int | None = None,
                 times: Callable[[], tuple[float, float] | None] = cpu_times,
                 own: Callable[[], float] = own_cpu):
        self.most = max(1, int(most))
        self.cores = cores or os.cpu_count() or 1
        self.times, self.own = times, own
        self.current = self.most
        self.busy_elsewhere: float | None = None    # cores the others kept busy, last window
        self._last: tuple[float, float, float] | None = None

    def threads(self) -> int:
        """The threads for the next call: the cores the others left free since the last look
        (rounded), 1..most; the last answer where the window is too short or unreadable."""
        machine, own = self.times(), self.own()
        if machine is None:
            return self.current
        if self._last is None:
            self._last = (*machine, own)
            return self.current
        busy0, total0, own0 = self._last
        window = (machine[1] - total0) / self.cores            # wall seconds, about
        if window < MIN_WINDOW_S:
            return self.current
        self._last = (*machine, own)
        elsewhere = max(0.0, (machine[0] - busy0) - (own - own0)) / window
        self.busy_elsewhere = elsewhere
        chosen = max(1, min(self.most, round(self.cores - elsewhere)))
        if chosen != self.current:
            log.info("the embedded model now uses %d thread(s): other processes kept %.1f of "
                     "%d cores busy", chosen, elsewhere, self.cores)
        self.current = chosen
        return chosen


__all__ = ["CpuShare", "cpu_times", "own_cpu"]

"""The embedded model's threads follow the cores other processes leave free (issue 45: with a
CPU hog beside it, two llama.cpp threads on two cores ran the embedded-model tests 5x slower and
two timed out). The machine's and the process's CPU times are given; the rule is the code's."""
from __future__ import annotations

from llm_interaction_node.core.llm.threads import CpuShare, cpu_times, own_cpu


class Clock:
    """The machine's (busy, total) CPU seconds on 2 cores and this process's own."""

    def __init__(self):
        self.busy = self.total = self.mine = 0.0

    def run(self, seconds: float, elsewhere: float, mine: float = 0.0):
        self.busy += (elsewhere + mine) * seconds
        self.total += 2 * seconds
        self.mine += mine * seconds


def test_a_busy_core_elsewhere_leaves_one_thread_and_its_end_gives_two_back():
    clock = Clock()
    share = CpuShare(2, cores=2, times=lambda: (clock.busy, clock.total), own=lambda: clock.mine)
    assert share.threads() == 2                                  # nothing known yet
    clock.run(3.0, elsewhere=1.0)                                # a hog on one core
    assert share.threads() == 1 and share.busy_elsewhere == 1.0
    clock.run(0.05, elsewhere=0.0)                               # too short to tell
    assert share.threads() == 1
    clock.run(10.0, elsewhere=0.0, mine=2.0)                     # only the model itself works
    assert share.threads() == 2
    clock.run(5.0, elsewhere=0.3)                                # a few ROS nodes: still two
    assert share.threads() == 2
    clock.run(5.0, elsewhere=1.8)
    assert share.threads() == 1                                  # never fewer than one


def test_unreadable_times_keep_the_threads_and_the_real_ones_read():
    share = CpuShare(2, cores=2, times=lambda: None, own=lambda: 0.0)
    assert share.threads() == 2 and share.threads() == 2
    busy, total = cpu_times()
    assert 0 <= busy <= total and own_cpu() > 0
    assert cpu_times("/nonexistent") is None

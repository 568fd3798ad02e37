"""A behaviour tree that asks the robot for two things in turn (issue 61 item 3).

Built with py_trees (pinned in requirements.txt) over the Instruct action's Python client,
``ros/instructor.py: Instructor`` (``instruct``, ``is_done``, ``feedback``, ``result``,
``cancel``)::

    Timeout "within 120 s"                         stops the whole errand on a timeout
    └── Sequence "two things in turn" (memory)
        ├── Selector "the first thing, or corrected once" (memory)
        │   ├── Instruct "first"        e.g. "bring me the juice"
        │   └── Instruct "correction"   e.g. "the juice is on the counter, bring me that one"
        └── Instruct "second"           e.g. "now bring me a glass"

:class:`Instruct` is one request: ``initialise`` sends the words (an Instruct goal),
``update`` is RUNNING while the goal runs, SUCCESS when its outcome is ``done`` and FAILURE
otherwise (``failed``, ``stopped``, ``refused``; the reason in its feedback message). The
selector tries the correction only when the first request failed, once; ``memory=True`` on
both composites keeps a finished child finished (a request is never sent twice by a tick).
When the timeout passes, py_trees stops the running branch (``stop(INVALID)``): the running
:class:`Instruct` cancels its goal, which is the robot's stop (the running skill goal
cancelled, nothing after it), and the tree ends in FAILURE.

py_trees_ros is not used: it is not on PyPI (``pip index versions py_trees_ros``: no
distribution; it ships as a ROS package), and the tree needs none of its parts (its
action-client behaviour wraps ``rclpy.action`` the way the Instructor already does, with its
own spinning); a plain py_trees behaviour over the Instructor is the smallest honest tree.

    python -m llm_interaction_node.examples.instruct_tree [--namespace /robot_a] \\
        [--first TEXT] [--correction TEXT] [--second TEXT] [--timeout S]

prints the tree with each node's status after every change and exits 0 when both things were
done, 1 otherwise (a failure after the correction, a refusal, the timeout).
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import py_trees
from py_trees.common import Status

FIRST = "bring me the juice"
CORRECTION = "the juice is the mango juice on the kitchen counter, bring me that one"
SECOND = "now bring me a glass"


class Instruct(py_trees.behaviour.Behaviour):
    """One request to the robot: what a person would say, sent as an Instruct goal through
    ``robot`` (an :class:`~llm_interaction_node.ros.instructor.Instructor`, or anything with
    its ``instruct``, ``is_done``, ``feedback``, ``result``, ``cancel``)."""

    def __init__(self, name: str, robot, text: str, result_wait_s: float = 10.0):
        super().__init__(name)
        self.robot, self.text, self.result_wait_s = robot, text, result_wait_s
        self.result = None          # the Instruct.Result of the last goal, once it ended
        self.cancelled = False      # the last goal was cancelled by the tree (a timeout)
        self._sent = False

    def initialise(self) -> None:
        self.result, self.cancelled = None, False
        self._sent = bool(self.robot.instruct(self.text))
        self.feedback_message = f"asked: {self.text!r}" if self._sent else "goal not accepted"

    def update(self) -> Status:
        if not self._sent:
            return Status.FAILURE
        if not self.robot.is_done():
            last = self.robot.feedback()
            if last is not None:
                self.feedback_message = f"{last.state}: {last.statement}".rstrip(": ")
            return Status.RUNNING
        self.result = self.robot.result(timeout_s=self.result_wait_s)
        if self.result is None:
            self.feedback_message = "no result"
            return Status.FAILURE
        self.feedback_message = f"{self.result.outcome}: {self.result.reason}"
        return Status.SUCCESS if self.result.outcome == "done" else Status.FAILURE

    def terminate(self, new_status: Status) -> None:
        # stopped while its goal runs (a timeout above it, a parent that moved on): the stop
        if new_status == Status.INVALID and self.status == Status.RUNNING and self._sent \
                and not self.robot.is_done():
            self.cancelled = bool(self.robot.cancel())
            self.feedback_message = "cancelled: " + ("the robot stopped" if self.cancelled
                                                     else "the cancel was refused")


def two_things(robot, first: str = FIRST, correction: str = CORRECTION, second: str = SECOND,
               timeout_s: float = 120.0) -> py_trees.decorators.Timeout:
    """The tree: ``first`` (or, if it failed, ``correction`` once), then ``second``, all
    within ``timeout_s``."""
    first_or_corrected = py_trees.composites.Selector(
        "the first thing, or corrected once", memory=True,
        children=[Instruct("first", robot, first), Instruct("correction", robot, correction)])
    both = py_trees.composites.Sequence("two things in turn", memory=True,
                                        children=[first_or_corrected,
                                                  Instruct("second", robot, second)])
    return py_trees.decorators.Timeout(f"within {timeout_s:g} s", both, duration=timeout_s)


def run(root: py_trees.behaviour.Behaviour, period_s: float = 0.1,
        show: Callable[[str], None] | None = None) -> Status:
    """Tick ``root`` every ``period_s`` until it is no longer RUNNING; ``show`` gets the tree
    with each node's status whenever a status changed."""
    tree = py_trees.trees.BehaviourTree(root)
    seen = None
    while True:
        tree.tick()
        now = [(node.name, node.status) for node in root.iterate()]
        if show is not None and now != seen:
            show(py_trees.display.unicode_tree(root, show_status=True))
            seen = now
        if root.status != Status.RUNNING:
            return root.status
        time.sleep(period_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--namespace", default="", help="the interaction node's namespace")
    parser.add_argument("--first", default=FIRST)
    parser.add_argument("--correction", default=CORRECTION)
    parser.add_argument("--second", default=SECOND)
    parser.add_argument("--timeout", type=float, default=120.0, metavar="S")
    args = parser.parse_args(argv)
    from ..ros.instructor import Instructor
    with Instructor(namespace=args.namespace) as robot:
        root = two_things(robot, args.first, args.correction, args.second, args.timeout)
        status = run(root, show=lambda text: print(text, flush=True))
    print(f"the errand ended: {status.value}")
    return 0 if status == Status.SUCCESS else 1


if __name__ == "__main__":
    sys.exit(main())

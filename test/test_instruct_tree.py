"""The behaviour tree example (issue 61 item 3; llm_interaction_node/examples/instruct_tree.py):
its logic over a scripted client (what each request's goal ends with, and when). The same
tree against the simulated household through the real Instruct action client:
test_ros_instruct_tree.py."""
from __future__ import annotations

import time
from dataclasses import dataclass

import py_trees
from py_trees.common import Status

from llm_interaction_node.examples.instruct_tree import Instruct, run, two_things


@dataclass
class Result:
    outcome: str
    reason: str = ""


class ScriptedClient:
    """The Instructor's calls over a script: request text -> (outcome, seconds it runs)."""

    def __init__(self, script: dict[str, tuple[str, float]]):
        self.script = script
        self.sent: list[str] = []
        self.cancelled: list[str] = []
        self._started = 0.0

    def instruct(self, text: str) -> bool:
        self.sent.append(text)
        self._started = time.monotonic()
        return True

    def _ends(self) -> bool:
        return time.monotonic() - self._started >= self.script[self.sent[-1]][1]

    def is_done(self) -> bool:
        return bool(self.cancelled and self.cancelled[-1] == self.sent[-1]) or self._ends()

    def feedback(self):
        return None

    def result(self, timeout_s=None):
        if self.cancelled and self.cancelled[-1] == self.sent[-1]:
            return Result("stopped", "cancelled")
        return Result(self.script[self.sent[-1]][0]) if self._ends() else None

    def cancel(self) -> bool:
        self.cancelled.append(self.sent[-1])
        return True


def tree(script, timeout_s=10.0):
    client = ScriptedClient(script)
    return client, two_things(client, "first", "correction", "second", timeout_s)


def test_the_first_thing_done_then_the_second_no_correction():
    client, root = tree({"first": ("done", 0.05), "correction": ("done", 0.0),
                         "second": ("done", 0.05)})
    assert run(root, period_s=0.01) == Status.SUCCESS
    assert client.sent == ["first", "second"] and client.cancelled == []


def test_a_failed_first_thing_is_corrected_once_then_the_second_is_asked():
    client, root = tree({"first": ("failed", 0.05), "correction": ("done", 0.05),
                         "second": ("done", 0.0)})
    assert run(root, period_s=0.01) == Status.SUCCESS
    assert client.sent == ["first", "correction", "second"]


def test_a_correction_that_fails_too_ends_the_errand_without_the_second_thing():
    client, root = tree({"first": ("failed", 0.0), "correction": ("refused", 0.0),
                         "second": ("done", 0.0)})
    assert run(root, period_s=0.01) == Status.FAILURE
    assert client.sent == ["first", "correction"]            # once, never the second


def test_the_timeout_cancels_the_running_request_and_sends_nothing_after_it():
    client, root = tree({"first": ("done", 30.0), "correction": ("done", 0.0),
                         "second": ("done", 0.0)}, timeout_s=0.3)
    start = time.monotonic()
    assert run(root, period_s=0.01) == Status.FAILURE
    assert time.monotonic() - start < 2.0
    assert client.sent == ["first"] and client.cancelled == ["first"]
    first = next(node for node in root.iterate() if node.name == "first")
    assert first.cancelled and first.status == Status.INVALID
    assert root.feedback_message == "timed out"


def test_the_tree_is_the_documented_shape():
    _client, root = tree({})
    shape = [(type(node).__name__, node.name, getattr(node, "memory", None))
             for node in root.iterate()]
    assert shape == [("Instruct", "first", None), ("Instruct", "correction", None),
                     ("Selector", "the first thing, or corrected once", True),
                     ("Instruct", "second", None),
                     ("Sequence", "two things in turn", True), ("Timeout", "within 10 s", None)]
    assert isinstance(root, py_trees.decorators.Timeout)
    assert isinstance(root.children[0].children[0].children[0], Instruct)

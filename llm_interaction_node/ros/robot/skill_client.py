"""One action client per robot skill, with the goal life cycle written once.

nav2_simple_commander repeats "wait for the server, send the goal, check it was accepted,
wait for the result" for every action; here :meth:`SkillClient.run` does it for all of
them: it waits for the server (bounded), sends the goal, waits for acceptance and the
result in short slices so that a stop request cancels the goal at once, cancels on a
timeout, notices a server that disappeared, and never raises for a robot problem: the
outcome is a :class:`SkillOutcome`. Only a stop request raises (``InteractionAborted``),
because it ends the whole turn.

It blocks, so it must be called from a thread the executor does not need (the agent's
worker thread), never from a callback.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from action_msgs.msg import GoalStatus
from rclpy.action import ActionClient
from rclpy.node import Node

from ...core.apis.humanoid import FAILURE, SUCCESS
from ...core.transcript.errors import InteractionAborted
from ...core.user.interrupt import StopSignal

SLICE_S = 0.02          # how often a waiting call looks at the stop signal
SETTLE_S = 0.5          # a server seen for less than this may not yet see our response reader
SERVER_WAIT_S = 5.0     # default wait for an action server (parameter timeouts.server_wait_s)
ACCEPT_S = 5.0          # default wait for a goal to be accepted (timeouts.accept_s)


@dataclass
class SkillOutcome:
    """How a skill call ended. ``status`` is exactly what the robot API promises the LLM
    ('success' or 'failure'); the reason is in ``message`` (for the node and the log)."""

    status: str                  # SUCCESS | FAILURE
    message: str = ""            # the skill's reason, or what went wrong with the server
    result: Any = None           # the action's Result message, if one arrived
    infrastructure: bool = False  # the server was missing, died, timed out or rejected
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == SUCCESS


def _done_event(future) -> threading.Event:
    event = threading.Event()
    future.add_done_callback(lambda _f: event.set())
    if future.done():
        event.set()
    return event


class SkillClient:
    """A robot skill behind an action server (``name`` is the action name)."""

    def __init__(self, node: Node, action_type, name: str, stop: StopSignal, *,
                 callback_group=None, server_wait_s: float = SERVER_WAIT_S,
                 accept_s: float = ACCEPT_S,
                 logger: logging.Logger | None = None,
                 before_goal: Callable[[], Any] | None = None):
        """``before_goal``: called before a goal is sent (the speech pause: no new goal
        while the user speaks; it raises InteractionAborted for a stop said meanwhile)."""
        self.node = node
        self.before_goal = before_goal
        self.name = name
        self.stop = stop
        self.action_type = action_type
        self.server_wait_s = server_wait_s
        self.accept_s = accept_s
        self.client = ActionClient(node, action_type, name, callback_group=callback_group)
        self._ready_since: float | None = None
        self.log = logger or node.get_logger()

    def _failure(self, message: str, started: float) -> SkillOutcome:
        self.log.error(f"skill {self.name}: {message}")
        return SkillOutcome(FAILURE, message, infrastructure=True,
                            wall_s=time.monotonic() - started)

    def _wait_for_server(self) -> bool:
        """True when the server is discovered and has been for SETTLE_S.

        Discovery is not symmetric: right after the client sees the server, the server may
        not yet see the client's response reader, and rmw_fastrtps then drops the goal
        response (the goal runs, the client never hears of it). A fresh server gets a
        moment to settle before the first goal.
        """
        deadline = time.monotonic() + self.server_wait_s
        while not self.client.server_is_ready():
            self._ready_since = None
            self.stop.check()
            if time.monotonic() > deadline:
                self._ready_since = None
                return False
            self.client.wait_for_server(timeout_sec=0.1)
        if self._ready_since is None:
            self._ready_since = time.monotonic()
        while time.monotonic() - self._ready_since < SETTLE_S:
            self.stop.check()
            time.sleep(SLICE_S)
        return True

    def _wait(self, event: threading.Event, deadline: float, on_stop: Callable[[], None],
              watch_server: bool = False) -> str | None:
        """Wait for ``event``; None when set, else 'timeout' / 'server lost'. Stop -> raise."""
        lost_since: float | None = None
        while not event.wait(SLICE_S):
            if self.stop.is_set():
                on_stop()
                raise InteractionAborted(self.stop.reason or "stop requested")
            now = time.monotonic()
            if now > deadline:
                return "timeout"
            if watch_server:
                if self.client.server_is_ready():
                    lost_since = None
                elif lost_since is None:
                    lost_since = now
                elif now - lost_since > 0.5:      # not a discovery hiccup
                    return "server lost"
        return None

    def run(self, goal, timeout_s: float,
            on_feedback: Callable[[Any], None] | None = None) -> SkillOutcome:
        """Send ``goal`` and block until the skill ends (see the module docstring)."""
        if self.before_goal is not None:
            self.before_goal()
        started = time.monotonic()
        self.stop.check()
        if not self._wait_for_server():
            return self._failure(f"no action server {self.name!r} is available "
                                 f"(waited {self.server_wait_s:g} s)", started)
        feedback = (lambda msg: on_feedback(msg.feedback)) if on_feedback else None
        send_future = self.client.send_goal_async(goal, feedback_callback=feedback)

        def cancel_when_accepted() -> None:
            send_future.add_done_callback(
                lambda f: f.result() is not None and f.result().accepted
                and f.result().cancel_goal_async())

        problem = self._wait(_done_event(send_future), started + self.accept_s,
                             cancel_when_accepted)
        if problem:
            send_future.cancel()
            return self._failure(f"the goal was not answered within {self.accept_s:g} s", started)
        handle = send_future.result()
        if handle is None or not handle.accepted:
            return self._failure("the skill server rejected the goal", started)

        result_future = handle.get_result_async()
        problem = self._wait(_done_event(result_future), started + timeout_s,
                             handle.cancel_goal_async, watch_server=True)
        if problem == "timeout":
            handle.cancel_goal_async()
            return self._failure(f"no result within the timeout of {timeout_s:g} s "
                                 "(the goal was canceled)", started)
        if problem == "server lost":
            self._ready_since = None
            return self._failure("the skill server went away while the skill was running",
                                 started)
        response = result_future.result()
        if getattr(response, "status", None) == GoalStatus.STATUS_UNKNOWN:
            # the server no longer knew the goal: its result expired before this client asked
            return self._failure("the skill server no longer had the goal's result (it keeps "
                                 "results for less time than this robot took to ask); what "
                                 "the skill did is unknown", started)
        result = getattr(response, "result", None)
        reported = getattr(result, "status", "")
        message = getattr(result, "message", "")
        if reported not in (SUCCESS, FAILURE):     # a server outside the contract
            message = f"the skill server reported status {reported!r}" + (
                f": {message}" if message else "")
        status = SUCCESS if reported == SUCCESS else FAILURE
        if status != SUCCESS:
            self.log.info(f"skill {self.name} failed: {message or 'no reason given'}")
        return SkillOutcome(status, message, result, wall_s=time.monotonic() - started)

    def destroy(self) -> None:
        self.client.destroy()

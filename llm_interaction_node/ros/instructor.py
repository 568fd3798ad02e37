"""A plain Python client of the Instruct action: a script drives the robot in five lines.

In the style of nav2_simple_commander's ``BasicNavigator``, without its node to spin: an
:class:`Instructor` starts its own rclpy context and a background executor thread, so every
call returns at once (or waits as long as it says) and feedback arrives while the script
does something else::

    from llm_interaction_node.ros.instructor import Instructor
    robot = Instructor()                      # waits for the interaction node's action server
    robot.instruct("bring me the juice")
    while not robot.is_done(0.1):             # polls ten times a second
        print(robot.feedback())               # state, statement, output, question
    print(robot.result().outcome)             # done | failed | stopped | refused

``answer(text)`` answers the question the robot asks (feedback state ``asking``: the
``Answer`` service, keyed by the goal), ``cancel()`` stops it (the stop: the running skill
cancelled, nothing after it), ``close()`` ends the client. One goal at a time per client: a
new ``instruct`` forgets the last goal's feedback (its result, if any, is gone with it).
"""
from __future__ import annotations

import atexit
import threading
import time

from . import names

DEFAULT_WAIT_S = 30.0


class Instructor:
    """Instruct the robot and follow the request; ``namespace`` is the interaction node's."""

    def __init__(self, namespace: str = "", action: str = names.INSTRUCT,
                 answer_service: str = names.ANSWER, server_wait_s: float = DEFAULT_WAIT_S,
                 node_name: str = "instructor"):
        import rclpy
        from llm_interaction_interfaces.action import Instruct
        from llm_interaction_interfaces.srv import Answer
        from rclpy.action import ActionClient
        from rclpy.executors import SingleThreadedExecutor

        self._rclpy, self._Answer = rclpy, Answer
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(node_name, namespace=namespace or None,
                                      context=self.context)
        self._client = ActionClient(self.node, Instruct, action)
        self._answer = self.node.create_client(Answer, answer_service)
        self._executor = SingleThreadedExecutor(context=self.context)
        self._executor.add_node(self.node)
        self._spinner = threading.Thread(target=self._spin, name="instructor", daemon=True)
        self._spinner.start()
        self._closed = False
        atexit.register(self.close)           # a script that never calls close() exits cleanly
        self._lock = threading.Lock()
        self._goal = None                     # the ClientGoalHandle of the last goal
        self._result_future = None
        self._token = None
        self.feedbacks: list = []             # every feedback of the last goal, in order
        if server_wait_s and not self._client.wait_for_server(timeout_sec=server_wait_s):
            self.close()
            raise TimeoutError(f"no Instruct action server on {action!r} within "
                               f"{server_wait_s} s (is the interaction node running?)")

    def _spin(self) -> None:
        try:
            while self._rclpy.ok(context=self.context):
                self._executor.spin_once(timeout_sec=0.1)
        except Exception:  # noqa: BLE001 - the context was shut down meanwhile
            if self._rclpy.ok(context=self.context):
                raise

    # -- the five calls --------------------------------------------------------------------
    def instruct(self, text: str, speaker_id: str = "", timeout_s: float = DEFAULT_WAIT_S) -> bool:
        """Send what a person would say; True once the node accepted the goal (it always
        does: a refusal comes as the result's outcome ``refused``)."""
        from llm_interaction_interfaces.action import Instruct
        token = object()                       # this goal's: a late feedback of the last is dropped
        with self._lock:
            self.feedbacks = []
            self._goal = self._result_future = None
            self._token = token
        sent = self._client.send_goal_async(
            Instruct.Goal(text=text, speaker_id=speaker_id),
            feedback_callback=lambda message: self._on_feedback(message, token))
        if not _wait(sent.done, timeout_s):
            raise TimeoutError(f"the Instruct goal was not answered within {timeout_s} s")
        goal = sent.result()
        if not goal.accepted:
            return False
        with self._lock:
            self._goal = goal
            self._result_future = goal.get_result_async()
        return True

    def is_done(self, wait_s: float = 0.0) -> bool:
        """The last goal ended (or none was sent); ``wait_s``: wait up to that long for it to
        end (``while not robot.is_done(0.1):`` polls ten times a second, as BasicNavigator's
        ``isTaskComplete`` does)."""
        future = self._result_future
        return future is None or _wait(future.done, wait_s)

    def feedback(self):
        """The latest feedback of the last goal (``Instruct.Feedback``), or None."""
        with self._lock:
            return self.feedbacks[-1] if self.feedbacks else None

    def question(self) -> str | None:
        """The question the robot waits to have answered, or None."""
        last = self.feedback()
        return last.question if last is not None and last.state == "asking" else None

    def answer(self, text: str, timeout_s: float = 10.0) -> bool:
        """Answer the robot's question about the last goal; False (and why in the log) when
        it asks nothing now."""
        goal = self._goal
        if goal is None:
            return False
        if not self._answer.wait_for_service(timeout_sec=timeout_s):
            raise TimeoutError("no Answer service (is the interaction node running?)")
        request = self._Answer.Request(goal_id=goal.goal_id, text=text)
        future = self._answer.call_async(request)
        if not _wait(future.done, timeout_s):
            raise TimeoutError(f"the Answer service did not answer within {timeout_s} s")
        response = future.result()
        if not response.success:
            self.node.get_logger().warning(f"answer not taken: {response.message}")
        return bool(response.success)

    def cancel(self, timeout_s: float = 10.0) -> bool:
        """Cancel the last goal (the stop); True if the node accepted the cancel."""
        goal = self._goal
        if goal is None or self.is_done():
            return False
        future = goal.cancel_goal_async()
        if not _wait(future.done, timeout_s):
            raise TimeoutError(f"the cancel was not answered within {timeout_s} s")
        return len(future.result().goals_canceling) > 0

    def result(self, timeout_s: float | None = None):
        """The last goal's ``Instruct.Result`` once it ended (waits up to ``timeout_s``; None:
        as long as it takes); None if it did not end in time or no goal was sent."""
        future = self._result_future
        if future is None or not _wait(future.done, timeout_s):
            return None
        return future.result().result

    def status(self) -> int | None:
        """The last goal's ``action_msgs/GoalStatus`` once it ended (SUCCEEDED, ABORTED,
        CANCELED), else None."""
        future = self._result_future
        return future.result().status if future is not None and future.done() else None

    # -- life cycle ------------------------------------------------------------------------
    def _on_feedback(self, message, token) -> None:
        with self._lock:
            if token is self._token:
                self.feedbacks.append(message.feedback)

    def close(self) -> None:
        """End the client (also at the script's exit, if it did not): the spinner stopped,
        the context shut down."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        if self._rclpy.ok(context=self.context):
            self._rclpy.shutdown(context=self.context)
        self._spinner.join(timeout=2.0)
        self._executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()

    def __enter__(self) -> Instructor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _wait(done, timeout_s: float | None) -> bool:
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while not done():
        if deadline is not None and time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


__all__ = ["Instructor"]

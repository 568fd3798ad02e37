"""Watching a running interaction node from outside: wait until its state (``interaction/state``,
latched) says ``idle``, printing its model progress lines (``interaction/llm_progress``) meanwhile.

``llm-interaction run --warm-up-only`` uses it: the node warms its model up at start (state
``warming``, core/llm/warmup.py) and turns ``idle`` when that is over (also after a warm-up
step failed: the node then works without the saved state and says why in its log).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from . import names
from .interaction_state import IDLE


def wait_until_idle(timeout_s: float, stop_when: threading.Event | None = None,
                    echo: Callable[[str], None] = print, state_topic: str = names.STATE,
                    progress_topic: str = names.LLM_PROGRESS) -> str:
    """Block until the node's state is ``idle`` ('idle'), a node of the graph exited
    (``stop_when`` set: 'exited') or ``timeout_s`` passed ('timeout'). Runs its own rclpy
    context, so it can be called in a process that has none."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from std_msgs.msg import String

    from .qos import LATCHED

    latched = LATCHED
    idle = threading.Event()
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("warm_up_watch", context=context)
    executor = SingleThreadedExecutor(context=context)
    try:
        node.create_subscription(String, state_topic,
                                 lambda msg: idle.set() if msg.data == IDLE else None, latched)
        node.create_subscription(String, progress_topic, lambda msg: echo(msg.data), 50)
        executor.add_node(node)
        spinner = threading.Thread(target=executor.spin, name="warm-up-watch", daemon=True)
        spinner.start()
        deadline = time.monotonic() + timeout_s
        while not idle.wait(0.1):
            if stop_when is not None and stop_when.is_set():
                return "exited"
            if time.monotonic() >= deadline:
                return "timeout"
        return IDLE
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.shutdown(context=context)

"""The life cycle of a small node process, written once: init, spin, stop, exit code.

SIGINT stops the node also when it was started with SIGINT ignored (a background job of a
script): then rclpy's own handler is the only one, and its wake-up was seen to get lost under
load, so the default Python handler is installed and the executor wakes up every ``period``
seconds to look at the context. Expected errors (a bad parameter, a missing model) end the
process with exit code 2 and one line naming the node, never a traceback.
"""
from __future__ import annotations

import signal
import sys
import threading
from typing import Callable

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor


def spin_node(make_node: Callable[[], object], name: str, args: list[str] | None = None, *,
              expected: tuple[type[BaseException], ...] = (ValueError,),
              keep_running: Callable[[object], bool] = lambda node: True,
              period: float = 0.5) -> int:
    """Run the node ``make_node()`` builds until Ctrl-C, shutdown or ``keep_running`` is False;
    the node's ``close()`` runs before it is destroyed."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    rclpy.init(args=args)
    node = None
    try:
        node = make_node()
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        while rclpy.ok() and keep_running(node):
            executor.spin_once(timeout_sec=period)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except expected as exc:
        print(f"{name}: {exc}", file=sys.stderr, flush=True)
        return 2
    except Exception:                    # noqa: BLE001
        if rclpy.ok():
            raise
        # SIGINT shut the context down while the executor was building its wait set (RCLError)
    finally:
        if node is not None:
            node.close()
            node.destroy_node()
        rclpy.try_shutdown()
    return 0


def spin_in_thread(executor, name: str) -> threading.Thread:
    """``executor.spin()`` in a daemon thread that ends quietly on Ctrl-C or shutdown (nodes
    whose main thread waits for something else: the interaction node, the recorder)."""
    def spin() -> None:
        try:
            executor.spin()
        except (KeyboardInterrupt, ExternalShutdownException):
            pass
    thread = threading.Thread(target=spin, name=name, daemon=True)
    thread.start()
    return thread

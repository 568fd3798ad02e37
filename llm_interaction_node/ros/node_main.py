"""The life cycle of a node process, written once for every node: init, spin, stop, exit code.

:func:`run_node` is every node's ``main()``. SIGINT and SIGTERM set a stop flag (Python
handlers in the main thread, also when the process was started with SIGINT ignored, as a
background job of a script) instead of rclpy's handlers, which shut the context down at once:
so a node ends its work first (the simulator lets the running skill's goal end and sends its
result, the agent's worker stops, the recorder flushes) while its executors still spin, and
only then is ROS shut down (a signal while the node is still being built ends the start at
once). The executors spin in threads; the main thread wakes every
``period`` seconds to look at the stop flag, the spinners and ``keep_running``.

A node may have, and :func:`run_node` then uses:

* ``start()``: called once its executors spin (the interaction node waits for a scene);
* ``close()``: called at the end while they still spin (end goals, stop workers);
* ``extra_nodes``: further nodes of the process, each spun by an executor of its own (the
  interaction node's services, so a long learn call never blocks the topics; a node with an
  ``executor_threads`` attribute > 1 by a multi-threaded one: the Instruct server's);
* ``failed``: true if the node's own work failed (exit code 1, like a failed callback).

Expected errors while the node is built (a bad parameter, a missing model) end the process
with exit code 2 and one line naming the node, never a traceback.
"""
from __future__ import annotations

import signal
import sys
import threading
import traceback
from collections.abc import Callable

import rclpy
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.signals import SignalHandlerOptions

SHUTDOWN_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def run_node(make_node: Callable[[], object], name: str, args: list[str] | None = None, *,
             expected: tuple[type[BaseException], ...] = (ValueError, OSError),
             threads: int = 1, keep_running: Callable[[object], bool] = lambda node: True,
             period: float = 0.5) -> int:
    """Run the node ``make_node()`` builds until SIGINT/SIGTERM, shutdown, a failed callback
    or ``keep_running(node)`` is False; ``threads`` > 1: a multi-threaded executor. Returns
    the exit code: 0, 1 (a callback raised, or ``node.failed``), 2 (an ``expected`` error or
    a bad ROS argument or parameter while starting)."""
    stop, built = threading.Event(), threading.Event()

    def on_signal(*_) -> None:
        stop.set()
        if not built.is_set():           # still starting (a model loading): give up at once
            raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, on_signal) for sig in SHUTDOWN_SIGNALS}
    try:
        return _run(make_node, name, args, expected, threads, keep_running, period, stop, built)
    except KeyboardInterrupt:            # during rclpy.init
        rclpy.try_shutdown()
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _run(make_node, name, args, expected, threads, keep_running, period, stop, built) -> int:
    try:
        rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    except _rclpy.RCLError as exc:           # e.g. an unparsable --ros-args value
        print(f"{name}: {exc}", file=sys.stderr, flush=True)
        return 2
    node = None
    halt, errors = threading.Event(), []
    executors, spinners = [], []
    try:
        try:
            node = make_node()
        except (*expected, ParameterException) as exc:
            print(f"{name}: {exc}", file=sys.stderr, flush=True)
            return 2
        built.set()
        for each in (node, *getattr(node, "extra_nodes", ())):
            n = threads if each is node else getattr(each, "executor_threads", 1)
            executor = MultiThreadedExecutor(num_threads=n) if n > 1 else SingleThreadedExecutor()
            executor.add_node(each)
            executors.append(executor)
            spinner = threading.Thread(target=_spin, args=(executor, halt, errors),
                                       name=f"{name}-executor-{len(spinners)}", daemon=True)
            spinner.start()
            spinners.append(spinner)
        if hasattr(node, "start"):
            node.start()
        while not stop.wait(period) and all(s.is_alive() for s in spinners) \
                and keep_running(node):
            pass
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if node is not None:
            try:
                if hasattr(node, "close"):
                    node.close()             # the executors still spin: results go out
            finally:
                halt.set()
                for spinner in spinners:
                    spinner.join()
                for executor in executors:
                    executor.shutdown(timeout_sec=1.0)
                for each in (*getattr(node, "extra_nodes", ()), node):
                    each.destroy_node()
        rclpy.try_shutdown()
    return 1 if errors or getattr(node, "failed", False) else 0


def _spin(executor, halt: threading.Event, errors: list[BaseException]) -> None:
    """Spin ``executor`` until ``halt`` (so it is not spinning when it is shut down); a
    callback that raised is printed and ends the node (exit code 1)."""
    try:
        while not halt.is_set() and executor.context.ok():
            executor.spin_once(timeout_sec=0.1)
    except ExternalShutdownException:
        pass
    except Exception as exc:  # noqa: BLE001 - a callback raised: report it, exit code 1
        if executor.context.ok():
            traceback.print_exc()
            errors.append(exc)

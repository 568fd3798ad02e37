"""The statement timeout: a watchdog thread that raises ``StatementTimeout`` in the thread
running a statement when the statement's own time (robot API calls excluded) runs out.

``Sandbox.run`` arms and disarms it around ``exec``; its ``finally`` clears a pending raise
with ``set_async_exc(ident, NO_EXCEPTION)`` inline, because a Python-level call there would be
an interruption point (see ``Watchdog``).
"""
from __future__ import annotations

import ctypes
import threading
import time
from typing import Any

from ..transcript.errors import StatementTimeout

set_async_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
NO_EXCEPTION = ctypes.py_object()  # NULL: clears a pending asynchronous exception


def _timeout_type(timeout_s: float) -> type[StatementTimeout]:
    """A StatementTimeout whose no-argument form (the async-raise form) carries the message."""
    message = f"statement interrupted after {float(timeout_s)} s"

    def __init__(self: BaseException, *args: Any) -> None:
        BaseException.__init__(self, *(args or (message,)))
    return type("StatementTimeout", (StatementTimeout,),
                {"__init__": __init__, "__module__": StatementTimeout.__module__})


class Watchdog:
    """One daemon thread that raises StatementTimeout in the thread running a statement.

    Disarming is race-free because CPython 3.11 raises asynchronous exceptions only at its
    periodic checks (function entry, backward jumps, after calls) and because the thread id is
    read inside the C call that raises (``target`` is a ctypes cell, not a Python int).
    ``Sandbox.run`` zeroes the cell, then clears a pending exception, with no check before either:
    from then on nothing can be raised in that thread. Clearing is skipped when nothing can be
    pending, because it leaves CPython's "async exception" flag set, which slows every thread
    a little until the next asynchronous exception is delivered.
    """

    REPEAT_S = 0.2  # raise again this often until the statement ends

    def __init__(self, timeout_s: float) -> None:
        self.target = ctypes.c_ulong(0)
        self.raised = 0  # StatementTimeouts raised into the current statement
        self.exc_type = _timeout_type(timeout_s)
        self._timeout_s = timeout_s
        self._cond = threading.Condition()
        self._armed = False
        self._pauses = 0
        self._deadline: float | None = None  # next raise; None while idle or paused
        self._remaining = 0.0  # running time left, kept while paused
        self._stopped = False
        threading.Thread(target=self._loop, name="sandbox-watchdog", daemon=True).start()

    def _loop(self) -> None:
        with self._cond:
            while not self._stopped:
                if self._deadline is None:
                    self._cond.wait()
                elif (delay := self._deadline - time.monotonic()) > 0:
                    self._cond.wait(delay)
                else:
                    self.raised += 1  # counted before raising: run() reads it to clear
                    set_async_exc(self.target, self.exc_type)
                    self._deadline = time.monotonic() + self.REPEAT_S

    def arm(self, ident: int) -> None:
        with self._cond:
            self.raised = 0
            self._armed = True
            self._pauses = 0
            self._deadline = time.monotonic() + self._timeout_s
            self.target.value = ident
            self._cond.notify()

    def disarm(self) -> None:
        with self._cond:
            self._armed = False
            self._deadline = None

    def pause(self) -> None:
        with self._cond:
            self._pauses += 1
            # Once fired, pauses no longer hold back the repeats: the statement must end.
            if self._pauses == 1 and self._armed and not self.raised:
                self._remaining = self._deadline - time.monotonic()
                self._deadline = None

    def resume(self) -> None:
        with self._cond:
            self._pauses = max(0, self._pauses - 1)
            if self._pauses == 0 and self._armed and self._deadline is None:
                self._deadline = time.monotonic() + self._remaining
                self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()

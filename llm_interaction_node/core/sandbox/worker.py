"""The sandbox worker process: generated code runs here, under hard limits, never in the node.

The AST allowlist and size guards (``Sandbox``) catch what they can see; one C call that
builds a huge result (``'\\t'.expandtabs(10**9)``, ``np.outer`` of two long vectors) or runs
for minutes is out of their reach. Here it meets the kernel instead: the address space is
limited (``RLIMIT_AS``: what the process held at start + ``memory_limit_mb``), so the
allocation fails with a MemoryError, and the CPU time of each statement is limited
(``RLIMIT_CPU``: SIGXCPU ends the process). The parent (:mod:`.process`) also kills
the worker when a statement's own time passes its limit, and starts a new one.

The robot API functions here are stubs: a call sends ``(call, seq, name, args, kwargs,
output so far)`` over the pipe and waits for ``(return, seq, value)`` or ``(raise, seq,
error, origin)``; the parent runs the real function. Replies are matched by ``seq``, so a
timeout raised between a call and its reply cannot mix two calls up.
"""
from __future__ import annotations

import builtins
import io
import math
import os
import pickle
import resource
import signal
from collections.abc import Callable
from multiprocessing import reduction
from typing import Any

from ..transcript.errors import StatementTimeout
from .sandbox import Sandbox
from .statement_runner import ConsoleOutput, RunOutcome, StatementRunner

# The parent starts workers through multiprocessing's forkserver with this module preloaded:
# numpy and shapely are imported once, in the server, not per worker.
GUARD_PREFIX = "refused:"   # the size guards' MemoryError (numpy_view.size_error)
ORIGIN = "_api_origin"      # set on an error the parent's API call raised: its call number
OUTPUT_CAP = 100_000        # characters of one output sent to the parent
MAX_CALL_BYTES = 1_000_000  # a robot API call's arguments, pickled (a name, a pose, a sentence)


class _TooLarge(Exception):
    pass


class _Bounded(io.BytesIO):
    """A pickle's buffer that refuses to grow past ``limit`` bytes (so a 300 MB argument is
    refused before it is copied whole)."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit

    def write(self, data) -> int:
        if self.tell() + len(data) > self.limit:
            raise _TooLarge
        return super().write(data)


def bounded_pickle(message: Any, limit: int) -> bytes:
    """``message`` pickled as the pipe does (multiprocessing's pickler); _TooLarge over
    ``limit`` bytes."""
    buffer = _Bounded(limit)
    reduction.ForkingPickler(buffer, pickle.HIGHEST_PROTOCOL).dump(message)
    return buffer.getvalue()


def pack_error(exc: BaseException) -> tuple[str, Any]:
    """An error as it can cross the pipe: ``('pickle', bytes)``, or ``('stand-in', (class
    names of its mro, message))`` when it does not survive pickling."""
    if isinstance(exc, StatementTimeout):  # the watchdog's own subclass is made at run time
        exc = StatementTimeout(*exc.args)
    try:
        data = pickle.dumps(exc)
        pickle.loads(data)
        return "pickle", data
    except Exception:  # noqa: BLE001 - any error can be described by its names and text
        return "stand-in", ([c.__name__ for c in type(exc).__mro__], str(exc),
                            getattr(exc, ORIGIN, None))


def unpack_error(packed: tuple[str, Any]) -> BaseException:
    """The error again (the same class where it pickles; else one of the same name that
    derives from the nearest builtin or console error class, with the same message)."""
    kind, data = packed
    if kind == "pickle":
        return pickle.loads(data)
    from ..transcript import errors
    names, message, origin = data
    base = next((b for n in names[1:] if isinstance(b := getattr(builtins, n, None)
                                                   or getattr(errors, n, None), type)
                 and issubclass(b, BaseException)), Exception)
    exc = type(names[0], (base,), {})(message)
    if origin is not None:
        setattr(exc, ORIGIN, origin)
    return exc


class _Calls:
    """The stubs of the API functions and the one pipe they share."""

    def __init__(self, conn, output: ConsoleOutput):
        self.conn = conn
        self.output = output
        self.seq = 0

    def stub(self, name: str) -> Callable:
        def api_call(*args: Any, **kwargs: Any) -> Any:
            self.seq += 1
            seq = self.seq
            printed = self.output.take()
            shown = clip(printed)
            try:       # the output so far rides along: its bytes are not the arguments'
                data = bounded_pickle(("call", seq, name, args, kwargs, shown),
                                      MAX_CALL_BYTES + 4 * len(shown[0]) + 1024)
            except _TooLarge:
                self.output.write(printed)
                raise ValueError(f"the arguments of {name}() are too large: a robot function "
                                 f"takes at most {MAX_CALL_BYTES:,} bytes of arguments") from None
            except (pickle.PicklingError, TypeError, AttributeError) as exc:
                self.output.write(printed)
                raise TypeError(f"the arguments of {name}() cannot be passed to the robot "
                                f"({exc})") from None
            self.conn.send_bytes(data)
            while True:
                kind, reply_seq, *rest = self.conn.recv()
                if reply_seq == seq:
                    break               # an older reply: its call was interrupted
            if kind == "return":
                return rest[0]
            error = unpack_error(rest[0])
            setattr(error, ORIGIN, rest[1])
            raise error
        api_call.__name__ = api_call.__qualname__ = name
        return api_call


def _address_space() -> int:
    """Bytes of address space this process holds now (Linux: /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _limit_cpu(seconds: float) -> None:
    """SIGXCPU after ``seconds`` more CPU time (the soft limit; the hard one stays)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = math.ceil(used + seconds)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def clip(text: str) -> tuple[str, int]:
    """What crosses the pipe of an output: its first OUTPUT_CAP characters and its length
    (the console shows a few thousand; a statement may print a gigabyte)."""
    return text[:OUTPUT_CAP], len(text)


def _names(namespace: dict) -> list[str]:
    return [n for n in namespace if n != "__builtins__"]


def main(conn, api_names: list[str], timeout_s: float, max_sequence_len: int, geometry: bool,
         memory_limit_mb: int, cpu_limit_s: float) -> None:
    """Serve ``run`` / ``reset`` / ``close`` until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sandbox = Sandbox(timeout_s=timeout_s, max_sequence_len=max_sequence_len, geometry=geometry)
    output = ConsoleOutput()
    calls = _Calls(conn, output)
    runner = StatementRunner(lambda wrap: {n: wrap(calls.stub(n)) for n in api_names}, sandbox,
                             output)
    if memory_limit_mb > 0:
        limit = _address_space() + memory_limit_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "run":
            if cpu_limit_s > 0:
                _limit_cpu(cpu_limit_s)
            try:
                outcome = runner.run(message[1])
            except MemoryError as exc:  # the error text itself did not fit
                outcome = RunOutcome("", exc)
            error = outcome.error
            over_memory = isinstance(error, MemoryError) and \
                not str(error).startswith(GUARD_PREFIX)
            packed = None if error is None else pack_error(error)
            origin = getattr(error, ORIGIN, None)
            output = outcome.output[:outcome.printed] if over_memory else outcome.output
            conn.send(("done", clip(output), packed, origin, outcome.defines_only,
                       over_memory, _names(runner.namespace)))
        elif kind == "reset":
            runner.reset()
            conn.send(("names", _names(runner.namespace)))
        elif kind == "close":
            return
        # anything else is a reply whose call was interrupted: dropped

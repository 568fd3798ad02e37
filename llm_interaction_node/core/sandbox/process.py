"""The parent's side of the sandbox worker: the console's code runs in another process.

On a robot, the process that holds the action clients, the stop path and the memory must not
be the one that runs whatever the LLM wrote: a memory bomb inside one C call would take it
down, a C call that does not return would hold it. :class:`WorkerRunner` is the console's
runner for that (``ConsoleSession(isolated=True)``, what ``build_console`` gives every
session: chat, run, eval and the replay check): the namespace and the statements live in a
worker (:mod:`.worker`, started through multiprocessing's forkserver), the robot API
calls come back over the pipe and run here, in the caller's thread.

A statement that exceeds a limit ends its worker: the address space (a MemoryError the size
guards did not raise), the CPU time (SIGXCPU), or its own time (robot API calls excluded)
``grace_s`` past the statement timeout, when the in-worker watchdog could not stop it. The
next worker starts at once; the console says so in one line as the statement's error (what
the LLM sees), the functions defined in this task are defined again (within one statement
timeout in all: those that do not fit are named as not defined), the other variables are
named as lost. A worker killed from outside (the OOM killer picks the biggest process, which
the worker is by design; an operator) is the same: during a robot API call too, whose
result is then said with the restart line; the pipe's errors never reach the caller.

Nothing large crosses the pipe: a call's arguments are refused in the worker above
:data:`~.worker.MAX_CALL_BYTES`, and a message above :data:`MAX_MESSAGE_BYTES`
ends the worker.
"""
from __future__ import annotations

import ast
import io
import logging
import math
import multiprocessing
import os
import reprlib
import signal
import threading
import time
import weakref
from multiprocessing import context, forkserver, popen_forkserver, reduction, spawn, util
from typing import Any

from ..apis.registry import ApiRegistry
from ..transcript.errors import EndOfInteraction, InteractionAborted, StatementTimeout
from .sandbox import Sandbox
from .statement_runner import DISPLAY, ConsoleOutput, RunOutcome
from .worker import MAX_CALL_BYTES, OUTPUT_CAP, pack_error, unpack_error

log = logging.getLogger(__name__)

MEMORY_LIMIT_MB = 1024      # address space a worker may add to what it holds at start
GRACE_S = 1.0               # own time past the statement timeout before the worker is killed
START_TIMEOUT_S = 60.0      # the first start also starts the forkserver (imports numpy)
# one message from the worker: a call (its arguments <= MAX_CALL_BYTES), an output
# (<= OUTPUT_CAP characters, up to 4 bytes each) and the namespace's names
MAX_MESSAGE_BYTES = MAX_CALL_BYTES + 4 * OUTPUT_CAP + 2**20

_context_lock = threading.Lock()
_context: Any = None


class _Popen(popen_forkserver.Popen):
    """multiprocessing's forkserver start, without importing the parent's main module in the
    worker (a script without a ``__name__`` guard would run again there; the worker needs
    nothing of it). The rest is ``popen_forkserver.Popen._launch`` as in Python 3.11."""

    def _launch(self, process_obj):
        prep_data = spawn.get_preparation_data(process_obj._name)
        for key in ("init_main_from_name", "init_main_from_path"):
            prep_data.pop(key, None)
        buf = io.BytesIO()
        context.set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            context.set_spawning_popen(None)
        self.sentinel, w = forkserver.connect_to_new_process(self._fds)
        _parent_w = os.dup(w)
        self.finalizer = util.Finalize(self, util.close_fds, (_parent_w, self.sentinel))
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


class _WorkerProcess(context.ForkServerProcess):
    @staticmethod
    def _Popen(process_obj):
        return _Popen(process_obj)


def _worker_context():
    """The forkserver context, with the worker module (numpy, shapely, the sandbox)
    preloaded: a worker then starts in milliseconds."""
    global _context
    with _context_lock:
        if _context is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["llm_interaction_node.core.sandbox.worker"])
            _context = ctx
        return _context


class WorkerDied(Exception):
    """The worker process ended (killed for a limit, or it crashed)."""


class _Output:
    """The current statement's output in the parent: the worker's text (sent before each API
    call and at the end) and what API calls wrote, in order; the first cap characters kept."""

    def __init__(self, cap: int):
        self.cap = cap
        self.parts: list[str] = []
        self.kept = 0
        self.total = 0

    def add(self, text: str, length: int | None = None) -> None:
        length = len(text) if length is None else length
        self.total += length
        if self.kept < self.cap and text:
            piece = text[: self.cap - self.kept]
            self.parts.append(piece)
            self.kept += len(piece)

    def outcome(self, error: BaseException | None, defines_only: bool = False) -> RunOutcome:
        text = "".join(self.parts)
        return RunOutcome(text, error, defines_only,
                          total_chars=self.total if self.total > len(text) else None)


class WorkerRunner:
    """Runs console inputs in a sandbox worker process; same interface as StatementRunner.

    ``memory_limit_mb`` / ``cpu_limit_s``: the worker's hard limits (0: none); the CPU limit
    defaults to the statement timeout + 2 s (the watchdog and the parent act first);
    ``output``: what the API functions write here, in the caller (the built-ins'
    :class:`~.statement_runner.ConsoleOutput`), taken into the input's output after each call.
    """

    def __init__(self, api: ApiRegistry, sandbox: Sandbox, memory_limit_mb: int = MEMORY_LIMIT_MB,
                 cpu_limit_s: float | None = None, grace_s: float = GRACE_S,
                 output_cap: int = 100_000, output: ConsoleOutput | None = None,
                 bind=None):
        """``bind``: how the API's functions are bound (default ``api.bind``: the console's
        own records each call)."""
        self.api = api
        self.sandbox = sandbox
        self.output = output if output is not None else ConsoleOutput()
        self.memory_limit_mb = memory_limit_mb
        self.cpu_limit_s = sandbox.timeout_s + 2.0 if cpu_limit_s is None else cpu_limit_s
        self.grace_s = grace_s
        self.restarts = 0
        self._functions = (bind or api.bind)()
        self._output_cap = output_cap
        self._out = _Output(output_cap)
        self._raised: dict[int, BaseException] = {}
        # inputs of this task that only defined functions, with the seconds each took
        # (inf: it called the robot, so it is not run again)
        self._definitions: list[tuple[str, float]] = []
        self._calling: str | None = None      # the API call being served, for a death line
        self._process = None
        self._conn = None
        self._finalizer = None
        initial = sandbox.new_globals(lambda text: None)
        self._builtins = dict.fromkeys(initial["__builtins__"])
        self._initial = [n for n in initial if n != "__builtins__"] + list(self._functions) \
            + [DISPLAY]
        self._set_names(self._initial)

    # -- the namespace as names ----------------------------------------------------------
    def _set_names(self, names: list[str]) -> None:
        namespace: dict[str, Any] = dict.fromkeys(names)
        namespace["__builtins__"] = self._builtins
        self.namespace = namespace

    def _task_names(self) -> list[str]:
        """Names this task bound (not the console's own)."""
        initial = set(self._initial)
        return [n for n in self.namespace if n not in initial and n != "__builtins__"]

    # -- the process -----------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the worker now (otherwise the first statement starts it)."""
        if self._process is not None and self._process.is_alive():
            return
        ctx = _worker_context()
        parent, child = ctx.Pipe()
        process = _WorkerProcess(
            target=_worker_main, name="sandbox-worker", daemon=True,
            args=(child, list(self._functions), self.sandbox.timeout_s,
                  self.sandbox.max_sequence_len, self.sandbox.geometry, self.memory_limit_mb,
                  self.cpu_limit_s))
        process.start()
        child.close()
        if not parent.poll(START_TIMEOUT_S):
            process.kill()
            raise RuntimeError("the sandbox worker did not start")
        parent.recv()  # ("ready", pid)
        self._process, self._conn = process, parent
        self._finalizer = weakref.finalize(self, _end, process, parent)
        log.debug("sandbox worker %d started", process.pid)

    def _kill(self) -> None:
        if self._finalizer is not None:
            self._finalizer()       # kills, joins, closes the pipe
        self._process = self._conn = self._finalizer = None

    def close(self) -> None:
        """End the worker (a new statement would start another)."""
        self._kill()

    # -- the runner interface ----------------------------------------------------------
    def reset(self) -> None:
        """A fresh namespace: the worker's (if one runs) is cleared; none is started for it."""
        self._definitions = []
        if self._process is not None:
            try:
                self._send(("reset",))
                _, names = self._recv(START_TIMEOUT_S)
            except WorkerDied as died:
                log.warning("the sandbox worker ended before a reset: %s", died)
                self._kill()        # the next statement starts a new one
                names = self._initial
            self._set_names(names)
        else:
            self._set_names(self._initial)

    def run(self, source: str) -> RunOutcome:
        self._out = _Output(self._output_cap)
        self.output.take()                   # nothing written between inputs is kept
        if self._process is not None and not self._process.is_alive():
            # ended between statements (killed from outside): say so, then run in a new one
            self._out.add(self._restart_line("the console's worker process had ended "
                                             f"(exit code {self._process.exitcode})"))
        try:
            self.start()
        except Exception as exc:  # noqa: BLE001 - the node goes on; the statement did not run
            log.error("the sandbox worker did not start: %s", exc)
            self._out.add(f"RuntimeError: the console could not start its worker ({exc})\n")
            return self._out.outcome(RuntimeError(str(exc)))
        self._raised = {}
        try:
            return self._serve(source)
        except WorkerDied as died:
            line = str(died)
            kind, _, message = line.partition(": ")
            error = {"MemoryError": MemoryError, "StatementTimeout": StatementTimeout
                     }.get(kind, RuntimeError)(message)
            self._out.add(self._restart_line(line))
            # the end of the interaction or a stop raised by the call still ends the turn
            ending = [e for e in self._raised.values()
                      if isinstance(e, (EndOfInteraction, InteractionAborted))]
            return self._out.outcome(ending[0] if ending else error)
        finally:
            self._raised = {}

    def _serve(self, source: str, limit_s: float | None = None) -> RunOutcome:
        """Send the input, run the API calls it makes, until the worker says it is done.
        ``limit_s``: its own time may not pass this (default: the timeout + the grace)."""
        self._send(("run", source))
        started = time.monotonic()
        in_api = 0.0
        calls = 0
        limit = self.sandbox.timeout_s + self.grace_s if limit_s is None else limit_s
        while True:
            own = time.monotonic() - started - in_api
            message = self._recv(limit - own, timeout_s=self.sandbox.timeout_s
                                 if limit_s is None else limit_s)
            if message[0] == "call":
                calls += 1
                call_started = time.monotonic()
                self._call(*message[1:])
                in_api += time.monotonic() - call_started
                continue
            _, (text, length), packed, origin, defines_only, over_memory, names = message
            self._out.add(text, length)
            self._set_names(names)
            error = None
            if packed is not None:
                error = self._raised.get(origin) if origin is not None else None
                if error is None:
                    error = unpack_error(packed)
            if over_memory:
                raise WorkerDied(f"MemoryError: the statement needed more than "
                                 f"{_size(self.memory_limit_mb)}")
            if defines_only:     # one that called the robot would call it again: not kept
                self._definitions.append((source, math.inf if calls
                                          else time.monotonic() - started - in_api))
            return self._out.outcome(error, defines_only)

    def _call(self, seq: int, name: str, args: tuple, kwargs: dict,
              output: tuple[str, int]) -> None:
        self._out.add(*output)
        self._calling = f"{name}()"
        try:
            value = self._functions[name](*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the code that called it
            self._out.add(self.output.take())
            self._raised[seq] = exc
            self._calling = f"{name}(), which raised {type(exc).__name__}"
            self._send(("raise", seq, pack_error(exc), seq))
            return
        self._out.add(self.output.take())   # what the function wrote, where it was called
        self._calling = f"{name}(), which returned {_short(value)}"
        try:
            data = reduction.ForkingPickler.dumps(("return", seq, value))
        except Exception as exc:  # noqa: BLE001 - a value that cannot cross the pipe
            error = TypeError(f"{name}() returned a value the console cannot hold ({exc})")
            self._send(("raise", seq, pack_error(error), None))
            return
        self._send(data)

    def _send(self, message) -> None:
        """A message (or its pickled bytes) to the worker; WorkerDied if it is gone."""
        try:
            if isinstance(message, bytes | bytearray | memoryview):
                self._conn.send_bytes(message)
            else:
                self._conn.send(message)
        except (EOFError, OSError):
            self._process.join(1.0)
            raise WorkerDied(self._death()) from None

    def _recv(self, wait_s: float, timeout_s: float | None = None):
        """The worker's next message within ``wait_s``; WorkerDied if it ended or must."""
        try:
            if wait_s > 0 and self._conn.poll(wait_s):
                self._calling = None
                return reduction.ForkingPickler.loads(self._conn.recv_bytes(MAX_MESSAGE_BYTES))
        except (EOFError, OSError):
            self._process.join(1.0)
            if self._process.is_alive():    # a message over MAX_MESSAGE_BYTES
                raise WorkerDied(f"MemoryError: the statement sent more than "
                                 f"{_size(MAX_MESSAGE_BYTES // 2**20)} to the robot") from None
            raise WorkerDied(self._death()) from None
        if not self._process.is_alive():
            raise WorkerDied(self._death())
        raise WorkerDied(f"StatementTimeout: the statement did not return within "
                         f"{timeout_s} s")

    def _death(self) -> str:
        code = self._process.exitcode
        if code == -signal.SIGXCPU:
            return f"StatementTimeout: the statement used more than {self.cpu_limit_s:g} s of CPU"
        during = f" during {self._calling}" if self._calling else ""
        if code is not None and code < 0:
            # not a limit of ours (those end as MemoryError or SIGXCPU)
            return (f"RuntimeError: the console's worker process was killed{during} "
                    f"({killed_by(-code)})")
        return f"RuntimeError: the console's worker process ended{during} (exit code {code})"

    def _restart_line(self, line: str) -> str:
        """Kill the worker, start a new one with this task's functions: ``line`` + what
        became of the task's names, one line."""
        lost = self._task_names()
        log.warning("sandbox worker restarted: %s", line)
        self._kill()
        self.restarts += 1
        redefined, not_again = self._redefine()
        lost = [n for n in lost if n not in redefined and n not in not_again]
        note = "; the console was restarted"
        if redefined:
            note += f", the functions {', '.join(redefined)} were defined again"
        if not_again:
            note += (f", the functions {', '.join(not_again)} were not defined again (it "
                     f"would take more than {self.sandbox.timeout_s:g} s or call the robot "
                     "again: define them again)")
        if lost:
            note += f", the variables {', '.join(lost)} are lost (assign them again)"
        return line + note + "\n"

    def _redefine(self) -> tuple[list[str], list[str]]:
        """Run this task's function definitions in the new worker, within one statement
        timeout in all: those that took longer the first time than what is left are not run.
        (The names they define, the functions not defined again.)"""
        definitions, self._definitions = self._definitions, []
        if not definitions:
            self._set_names(self._initial)
            return [], []
        before = set(self._initial)
        deadline = time.monotonic() + self.sandbox.timeout_s
        skipped: list[str] = []
        for source, took in definitions:
            left = deadline - time.monotonic()
            if took > left:
                skipped += _defined_names(source)
                continue
            saved = self._out
            try:
                self.start()
                self._out = _Output(self._output_cap)
                self._serve(source, limit_s=left)
                self._definitions.append((source, took))
            except Exception as exc:  # noqa: BLE001 - what is not defined again is lost
                log.warning("could not define again after a restart: %s", exc)
                self._kill()
                self._definitions = []
                self._set_names(self._initial)
                return [], [n for s, _ in definitions for n in _defined_names(s)]
            finally:
                self._out = saved
        redefined = [n for n in self.namespace if n not in before and n != "__builtins__"]
        return redefined, [n for n in skipped if n not in redefined]


CRASHES = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGABRT})


def killed_by(signum: int) -> str:
    """What the signal a worker died of tells about who ended it, no more: the kernel's
    out-of-memory killer sends SIGKILL (and picks the biggest process, which the worker is by
    design), so only SIGKILL may be it; SIGTERM is another process asking it to end (an
    operator, a supervisor); a crash signal is the worker's own fault."""
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = str(signum)
    if signum == signal.SIGKILL:
        why = "possibly the system's out-of-memory killer, or an operator"
    elif signum == signal.SIGTERM:
        why = "terminated by another process or an operator"
    elif signum in CRASHES:
        why = "the worker crashed"
    else:
        why = "sent by another process or an operator"
    return f"signal {name}: {why}"


def _size(mb: int) -> str:
    return f"{mb // 1024} GB" if mb % 1024 == 0 else f"{mb} MB"


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60


def _short(value: Any) -> str:
    """A value in a few words, for a line that says what a call returned."""
    return _SHORT.repr(value)


def _defined_names(source: str) -> list[str]:
    """The function names a definitions-only input defines."""
    try:
        return [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
    except SyntaxError:
        return []


def _worker_main(*args) -> None:
    from .worker import main
    main(*args)


def _end(process, conn) -> None:
    """Kill a worker and reap it (also at exit and when its runner is collected)."""
    try:
        conn.close()
    except OSError:
        pass
    if process.is_alive():
        process.kill()
    process.join(2.0)

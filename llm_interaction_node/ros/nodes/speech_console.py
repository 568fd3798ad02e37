"""ROS 2 node ``speech_console``: a terminal for talking to the robot.

Each line typed is published as recognised speech (std_msgs/String on ``speech/asr_text``),
what the robot says (``speech/tts_text``) is printed as ``robot: <text>``, how far a long LLM
call is (``interaction/llm_progress``: a line every few seconds while the model reads a long
prompt) as ``(the model is reading the prompt: ...)``, and with
``--transcript`` (or the parameter ``show_transcript``) the interaction node's console
transcript (``interaction/transcript``) is shown too, dimmed on a terminal.

Commands: ``/stop`` (std_msgs/Empty on ``interaction/stop``), ``/reset`` (std_srvs/Trigger
``interaction/reset``), ``/help``, ``/quit`` (or Ctrl-D, Ctrl-C).

With ``--speech`` (speech mode, ``llm-interaction run --speech``) the microphone and the asr
node do the talking: typed text is not sent, and what the asr node heard
(``speech/asr_result``) is printed as ``you: <text>  (<confidence>)``, or why it was dropped.

    python -m llm_interaction_node.ros.nodes.speech_console [--transcript] [--speech] [--ros-args \
...]

All names are relative, so ``--ros-args -r __ns:=/robot1`` or ``-r speech/asr_text:=/asr``
point the console elsewhere. ``llm-interaction run`` calls :func:`run_console` in-process.
"""
from __future__ import annotations

import argparse
import codecs
import os
import select
import signal
import sys
import threading
import time
import unicodedata
from dataclasses import dataclass
from typing import TextIO

import rclpy
from llm_interaction_interfaces.msg import AsrResult, ConsoleEntry
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.utilities import remove_ros_args
from std_msgs.msg import Empty, String
from std_srvs.srv import Trigger

from ...core.settings.config import setting
from .. import names
from ..node_parameters import declare_section

HINT = ("speech console: type what you say to the robot and press Enter; "
        "/stop, /reset, /help, /quit (or Ctrl-D)")
HELP = """\
  <text>   say <text> to the robot (published on {asr})
  /stop    stop what the robot is doing (std_msgs/Empty on {stop})
  /reset   forget the current task (calls {reset})
  /help    this list
  /quit    leave the console (also Ctrl-D or Ctrl-C)"""
SPEECH_HINT = ("speech console (speech mode): speak to the robot; what it heard and says is "
               "shown here; /stop, /reset, /help, /quit (or Ctrl-D)")
DIM, PLAIN = "\x1b[2m", "\x1b[0m"


def printable(text: str) -> str:
    """Text safe to print on a terminal: control characters (escape sequences) removed,
    newlines and tabs kept."""
    return "".join(c for c in text if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cs"))


def render_entry(kind: str, text: str) -> str:
    """A ConsoleEntry as the console shows it: input as ``>>> `` / ``... `` lines."""
    text = text.rstrip("\n")
    if kind == "input":
        lines = text.split("\n")
        return "\n".join([f">>> {lines[0]}"] + [f"... {ln}" for ln in lines[1:]])
    return text


def render_heard(outcome: str, text: str, confidence: float) -> str:
    """An AsrResult as the console shows it in speech mode ('' for the robot's own voice)."""
    if outcome == AsrResult.OUTCOME_SENT:
        return f"you: {text}  ({confidence:.2f})"
    if outcome == AsrResult.OUTCOME_STOP:
        return f"you: {text}  ({confidence:.2f}) -> stop"
    if outcome == AsrResult.OUTCOME_LOW_CONFIDENCE:
        return f"(not understood: {text!r}, confidence {confidence:.2f})"
    if outcome == AsrResult.OUTCOME_EMPTY:
        return "(heard something, recognised nothing)"
    return ""


class _LineReader(threading.Thread):
    """Reads lines from ``stdin`` and hands each to ``on_line`` (False from it: stop).

    A real file descriptor is polled with select() so the thread can be stopped (a daemon
    thread blocked in ``readline()`` on sys.stdin can hang the interpreter's exit); other
    streams (io.StringIO) are read with ``readline()``."""

    def __init__(self, stdin: TextIO, on_line, on_end):
        super().__init__(name="speech-console-stdin", daemon=True)
        self._stdin, self._on_line, self._on_end = stdin, on_line, on_end
        self._halt = threading.Event()

    def stop(self) -> None:
        self._halt.set()

    def run(self) -> None:
        try:
            try:
                fd = self._stdin.fileno()
            except (AttributeError, OSError, ValueError):
                fd = None
            lines = self._fd_lines(fd) if fd is not None else iter(self._stdin.readline, "")
            for line in lines:
                if self._halt.is_set() or not self._on_line(line.rstrip("\r\n")):
                    break
        except (OSError, ValueError):       # stdin closed under us
            pass
        finally:
            self._on_end()

    def _fd_lines(self, fd: int):
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while not self._halt.is_set():
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:                    # EOF (Ctrl-D, closed pipe)
                if pending:
                    yield pending
                return
            pending += decoder.decode(chunk)
            *complete, pending = pending.split("\n")
            yield from complete


@dataclass
class SpeechConsoleSettings:
    """The console's parameters (``-p name:=value``; ``--transcript`` / ``--speech`` also
    switch the first two on)."""

    show_transcript: bool = setting(False, "print the interaction node's transcript")
    speech: bool = setting(False, "speech mode: the microphone and the asr node talk, typed "
                           "text is not sent (only commands)")
    recorded: bool = setting(False, "`run --record`: a typed line also waits for the recorder, "
                             "so the bag holds it")
    listener_timeout: float = setting(5.0, "seconds a typed line waits for a listener on "
                                      "asr_text (discovery, start-up)", minimum=0.0)
    service_timeout: float = setting(3.0, "seconds /reset waits for its service to appear",
                                     minimum=0.0)
    reset_timeout: float = setting(10.0, "seconds /reset waits for the answer", minimum=0.0)


class SpeechConsoleNode(Node):
    """The console's ROS side: publishes typed lines, prints what the robot says, its
    transcript and (speech mode) what the asr node heard; ``handle_line`` takes one line."""

    def __init__(self, stdout: TextIO, show_transcript: bool = False, speech: bool = False,
                 context=None):
        super().__init__("speech_console", context=context)
        self.config = config = declare_section(self, SpeechConsoleSettings)
        self.show_transcript = config.show_transcript or show_transcript
        self.speech = config.speech or speech
        self.recorded = config.recorded
        self.listener_timeout = config.listener_timeout
        self.service_timeout = config.service_timeout
        self.reset_timeout = config.reset_timeout
        self._out = stdout
        self._lock = threading.Lock()
        try:
            self._tty = stdout.isatty()
        except (AttributeError, ValueError):
            self._tty = False
        self.closed = threading.Event()
        self.asr = self.create_publisher(String, names.ASR_TEXT, 10)
        self.stop_pub = self.create_publisher(Empty, names.STOP, 10)
        self.reset_client = self.create_client(Trigger, names.RESET)
        self.create_subscription(String, names.TTS_TEXT, self._on_tts, 50)
        self.create_subscription(String, names.LLM_PROGRESS, self._on_llm_progress, 10)
        if self.show_transcript:
            self.create_subscription(ConsoleEntry, names.TRANSCRIPT, self._on_entry, 100)
        if self.speech:
            self.create_subscription(AsrResult, names.ASR_RESULT, self._on_heard, 50)

    # output ---------------------------------------------------------------------------
    def write(self, text: str, dim: bool = False) -> None:
        text = printable(text)
        if dim and self._tty:
            text = "\n".join(f"{DIM}{ln}{PLAIN}" for ln in text.split("\n"))
        with self._lock:
            try:
                self._out.write(text + "\n")
                self._out.flush()
            except (OSError, ValueError):   # stdout gone (closed pipe)
                pass

    def _on_tts(self, msg) -> None:
        self.write(f"robot: {msg.data}")

    def _on_llm_progress(self, msg) -> None:
        self.write(f"({msg.data})", dim=True)

    def _on_entry(self, msg) -> None:
        text = render_entry(msg.kind, msg.text)
        if text:
            self.write(text, dim=True)

    def _on_heard(self, msg) -> None:
        text = render_heard(msg.outcome, msg.text, msg.confidence)
        if text:
            self.write(text)

    # input ----------------------------------------------------------------------------
    def handle_line(self, line: str) -> bool:
        """One typed line; False ends the console."""
        line = line.strip()
        if not line:
            return True
        if self.closed.is_set():
            return False
        try:
            if line.startswith("/"):
                command = line.split()[0].lower()
                if command in ("/quit", "/exit"):
                    return False
                if command == "/stop":
                    self._publish(self.stop_pub, Empty(), wait=1.0)
                    self.write("(stop sent)")
                elif command == "/reset":
                    self.reset()
                elif command in ("/help", "/?"):
                    self.write(HELP.format(asr=self.asr.topic_name,
                                           stop=self.stop_pub.topic_name,
                                           reset=self.reset_client.service_name))
                else:
                    self.write(f"unknown command {command}; /help lists the commands")
                return True
            if self.speech:
                self.write("(speech mode: speak into the microphone; /help lists the commands)")
                return True
            self._publish(self.asr, String(data=line), wait=self.listener_timeout)
        except Exception as exc:  # noqa: BLE001 - the console keeps going
            if self.closed.is_set():
                return False
            self.write(f"error: {exc}")
        return True

    def _publish(self, publisher, msg, wait: float) -> None:
        """Publish once somebody listens (up to ``wait`` s: discovery takes a moment after
        start); say so if nobody does."""
        if not self._listened(publisher):
            start = time.monotonic()
            told = False
            while (not self._listened(publisher)
                   and time.monotonic() < start + wait and not self.closed.is_set()):
                if not told and time.monotonic() > start + 1.0:
                    told = True
                    self.write(f"(waiting up to {wait:g} s for a node listening on "
                               f"{publisher.topic_name} ...)")
                time.sleep(0.02)
            if not self._listened(publisher):
                self.write(f"(nobody listens on {publisher.topic_name}; "
                           "is interaction_node running?)")
        publisher.publish(msg)

    def _listened(self, publisher) -> bool:
        """Somebody besides a recorder (``--record``: it listens, never answers) subscribes,
        the recorder too when ``recorded``, and every subscriber seen is matched."""
        subscribers = self.get_subscriptions_info_by_topic(publisher.topic_name)
        nodes = {info.node_name for info in subscribers}
        # a node's name is discovered after its subscription: '_NODE_NAME_UNKNOWN_' until then
        return (bool(nodes - {names.RECORDER_NODE, "_NODE_NAME_UNKNOWN_"})
                and (not self.recorded or names.RECORDER_NODE in nodes)
                and publisher.get_subscription_count() >= len(subscribers))

    def reset(self) -> None:
        name = self.reset_client.service_name
        if not self.reset_client.wait_for_service(timeout_sec=self.service_timeout):
            self.write(f"reset: no node serves {name} (is interaction_node running?)")
            return
        future = self.reset_client.call_async(Trigger.Request())
        answered = threading.Event()
        future.add_done_callback(lambda _f: answered.set())
        if not answered.wait(self.reset_timeout):
            self.reset_client.remove_pending_request(future)
            self.write(f"reset: no answer from {name} within {self.reset_timeout:g} s")
            return
        result = future.result()
        if result is None:
            self.write(f"reset: the call to {name} failed")
        elif result.success:
            self.write(f"reset: {result.message or 'done'}")
        else:
            self.write(f"reset failed: {result.message or 'no reason given'}")


def build_arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="speech_console", description="Talk to the robot: typed lines are published as "
        "recognised speech, what the robot says is printed.",
        epilog="ROS arguments follow --ros-args (e.g. -r __ns:=/robot1, -p show_transcript:=true).")
    parser.add_argument("--transcript", action="store_true",
                        help="also print the interaction node's console transcript")
    parser.add_argument("--speech", action="store_true",
                        help="speech mode: the microphone and the asr node talk to the robot; "
                        "show what was heard, take commands only")
    return parser


def run_console(args: list[str] | None = None, stdin: TextIO | None = None,
                stdout: TextIO | None = None,
                stop_when: threading.Event | None = None) -> int:
    """Run the console until /quit, end of input, Ctrl-C or ``stop_when`` is set (``run``:
    a node of its graph exited: typing on to dead nodes helps nobody); returns 0.

    ``args``: command-line arguments (default ``sys.argv[1:]``), ROS arguments after
    ``--ros-args``; ``stdin`` / ``stdout`` default to ``sys.stdin`` / ``sys.stdout``.
    The node lives in its own rclpy context, so a caller may use rclpy as well."""
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    argv = list(sys.argv[1:] if args is None else args)
    options = build_arg_parser().parse_args(remove_ros_args(["speech_console", *argv])[1:])

    context = rclpy.Context()
    rclpy.init(args=["speech_console", *argv], context=context)
    node = executor = reader = None
    try:
        node = SpeechConsoleNode(stdout, options.transcript, options.speech, context=context)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        ended = threading.Event()
        reader = _LineReader(stdin, node.handle_line, ended.set)
        node.write(SPEECH_HINT if node.speech else HINT)
        reader.start()
        while not ended.is_set() and context.ok() \
                and not (stop_when is not None and stop_when.is_set()):
            executor.spin_once(timeout_sec=0.1)
    except KeyboardInterrupt:
        if node is not None:
            node.write("")
    finally:
        if reader is not None:
            reader.stop()
        if node is not None:
            node.closed.set()
        if reader is not None:
            reader.join(0.5)
        if executor is not None:
            executor.shutdown(timeout_sec=1.0)
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown(context=context)
    return 0


def main(args: list[str] | None = None) -> int:
    # Ctrl-C / SIGINT ends the console like any ROS node, also when started with SIGINT ignored
    # (a background job of a script)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return run_console(args)
    except KeyboardInterrupt:            # Ctrl-C while starting up
        return 130
    except ValueError as exc:            # a bad parameter
        print(f"speech_console: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""The Instruct action: other nodes instruct the robot and get its answer (issue 61).

A thin ROS layer over the interaction node's queue and agent, nothing of the agent changed:

* a goal's words go into the node's one utterance queue (:class:`~..core.user.channel.
  EventQueue`, with the goal's :class:`~.instruction.Instruction` as their origin), behind
  what was said before it; with ``instruct.when_busy: reject`` a goal that comes while the
  robot acts on a request is refused at once instead. Empty words or words without a letter
  are refused (the result says why);
* when the agent's worker takes them (the channel's :class:`~.interaction_state.Requests`
  hooks) the goal executes; each console input is feedback as it starts and again with its
  output; a question (``ask()``) is feedback with state ``asking`` and is answered through
  the ``Answer`` service (keyed by goal id) or by speech; when the robot waits for the next
  request the turn is over and the goal ends with the way the turn ended
  (:func:`~.instruction.outcome_of`), what the robot said, the turn's transcript, the lessons
  in its prompt and the lesson stored;
* a cancel is the stop (the node's ``request_stop``: the running skill goal cancelled, the
  LLM call abandoned, nothing after it; a stop that came just as the turn began is applied
  before its first statement); a queued goal is taken out of the queue. A spoken "stop" (or
  the stop topic) ends the goal the same way, as ``stopped``.

The server lives on a node of its own (``<name>_instruct``) spun by a multi-threaded executor:
the goal being executed blocks one thread until its turn ends, cancels and answers take the
others; the interaction node's own single-threaded executor never waits for it.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from llm_interaction_interfaces.action import Instruct
from llm_interaction_interfaces.srv import Answer
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from ..core.transcript.errors import InteractionAborted
from ..core.transcript.notes import STOPPED as STOPPED_NOTE
from ..core.transcript.transcript import Entry
from ..core.user.channel import EventQueue
from ..core.user.interrupt import StopSignal
from .instruction import (
    ACTING,
    ASKING,
    BUSY,
    CANCELLED_QUEUED,
    DONE,
    FAILED,
    LEARNING,
    READING,
    REFUSED,
    SHUTDOWN,
    STOPPED,
    Instruction,
    InstructSettings,
    outcome_of,
    refusal,
)
from .interaction_state import InteractionState

CANCEL_REASON = "the Instruct goal was cancelled"
CANCEL_SETTLE_S = 1.0       # a cancelled goal's result waits this long for its CANCELING state


class InstructNode(Node):
    """The node the server lives on; :func:`~.node_main.run_node` spins it with this many
    threads (one is blocked by the goal being executed)."""

    executor_threads = 3


class InstructServer:
    """The ``Instruct`` action server and the ``Answer`` service over the node's queue.

    ``busy()``: whether the robot acts on something now (the node's state); ``request_stop``:
    the node's stop; ``clean``: the node's cleaning of speech. :meth:`bind` hands it the
    agent and the learner once the session is built."""

    def __init__(self, owner: Node, queue: EventQueue, state: InteractionState,
                 stop_signal: StopSignal, request_stop: Callable[[str], bool],
                 clean: Callable[[str], str], settings: InstructSettings, action_name: str,
                 answer_name: str):
        name = f"{owner.get_name()}_instruct"
        self.node = InstructNode(name, namespace=owner.get_namespace(), context=owner.context,
                                 cli_args=["--ros-args", "-r", f"__node:={name}"])
        self.queue, self.state, self.stop_signal = queue, state, stop_signal
        self.request_stop, self.clean, self.settings = request_stop, clean, settings
        self.log = owner.get_logger()
        self.agent = None
        self.learner = None
        self._lock = threading.Lock()
        self._goals: dict[bytes, Instruction] = {}     # every goal not yet ended
        self._waiting: list[Instruction] = []          # queued, not taken yet
        self._active: Instruction | None = None        # the one the robot acts on
        group = ReentrantCallbackGroup()
        self._server = ActionServer(self.node, Instruct, action_name,
                                    execute_callback=self._execute,
                                    goal_callback=lambda _goal: GoalResponse.ACCEPT,
                                    handle_accepted_callback=self._accepted,
                                    cancel_callback=self._cancel, callback_group=group)
        self.node.create_service(Answer, answer_name, self._on_answer, callback_group=group)

    def bind(self, agent, learner) -> None:
        self.agent, self.learner = agent, learner

    # -- ROS callbacks (the server node's executor threads) ------------------------------
    def _accepted(self, goal_handle) -> None:
        request = goal_handle.request
        text = self.clean(request.text)
        instruction = Instruction(bytes(goal_handle.goal_id.uuid), text,
                                  request.speaker_id.strip(), goal_handle)
        why = refusal(text)
        with self._lock:
            self._goals[instruction.key] = instruction
            if why is None:
                busy = self._busy()
                if busy and self.settings.when_busy == "reject":
                    why = BUSY
                else:
                    instruction.queued = busy
                    self._waiting.append(instruction)
                    self.queue.put(text, origin=instruction)
        who = f" from {instruction.speaker_id!r}" if instruction.speaker_id else ""
        if why is not None:
            self.log.info(f"instruct goal{who} refused: {why}")
            instruction.finish(REFUSED, why)
            goal_handle.execute()
            return
        self.log.info(f"instruct goal{who}: {text[:200]!r}"
                      + (" (queued, robot busy)" if instruction.queued else ""))

    def _busy(self) -> bool:
        """With the lock held: the robot acts on a request, or one waits."""
        return (self._active is not None or bool(self._waiting) or self.queue.pending() > 0
                or not self.state.idle)

    def _cancel(self, goal_handle) -> CancelResponse:
        instruction = self._goals.get(bytes(goal_handle.goal_id.uuid))
        if instruction is None or instruction.finished.is_set():
            return CancelResponse.REJECT
        stop = False
        with self._lock:
            instruction.cancel_requested = True
            if instruction is self._active:
                stop = True
            elif instruction in self._waiting and self.queue.remove(instruction):
                self._waiting.remove(instruction)
                instruction.finish(STOPPED, CANCELLED_QUEUED)
                goal_handle.execute()        # its result waits for the CANCELING state
            # else: the worker is taking it right now; taken() sees the cancel
        if stop:
            self.log.info("instruct goal cancelled: stopping")
            self.request_stop(CANCEL_REASON)
        return CancelResponse.ACCEPT

    def _execute(self, goal_handle) -> Instruct.Result:
        instruction = self._goals[bytes(goal_handle.goal_id.uuid)]
        instruction.finished.wait()
        result = self._result(instruction)
        if instruction.cancel_requested:        # the cancel's CANCELING state comes first
            deadline = time.monotonic() + CANCEL_SETTLE_S
            while not goal_handle.is_cancel_requested and time.monotonic() < deadline:
                time.sleep(0.005)
        if instruction.outcome == DONE:
            goal_handle.succeed()
        elif instruction.outcome == STOPPED and goal_handle.is_cancel_requested:
            goal_handle.canceled()
        else:
            goal_handle.abort()
        with self._lock:
            self._goals.pop(instruction.key, None)
        self.log.info(f"instruct goal ended: {instruction.outcome} ({instruction.reason})")
        return result

    def _on_answer(self, request, response):
        key = bytes(request.goal_id.uuid)
        text = self.clean(request.text)
        with self._lock:
            active = self._active
            if active is None or active.key != key:
                known = self._goals.get(key)
                response.success = False
                response.message = ("that goal waits in the queue; the robot asks nothing for it"
                                    if known in self._waiting else
                                    "no such goal runs now (unknown or ended)")
            elif active.asking is None:
                response.success, response.message = False, "the robot asks nothing now"
            elif refusal(text) is not None:
                response.success, response.message = False, f"no answer: {refusal(text)}"
            else:
                self.queue.answer(text)
                active.asking = None
                response.success, response.message = True, "answered"
        return response

    # -- the agent's worker (the channel's Requests hooks and the console's listeners) -----
    def waiting(self) -> None:
        """The robot waits for the next request: the active goal's turn is over."""
        with self._lock:
            active, self._active = self._active, None
        if active is None:
            return
        outcome, reason = outcome_of(self.agent.turns[active.turns_before:])
        if active.queued:
            reason += " (it waited in the queue for the requests before it)"
        if self.learner is not None:
            stored = [o.example for o in self.learner.outcomes[active.outcomes_before:]
                      if o.stored and o.example is not None]
            active.lesson_stored = str(stored[-1].id) if stored else ""
        active.finish(outcome, reason)

    def taken(self, origin: object) -> bool:
        if not isinstance(origin, Instruction):
            return True                           # a person's words
        with self._lock:
            if origin in self._waiting:
                self._waiting.remove(origin)
            if origin.cancel_requested:           # cancelled as the worker took it
                origin.finish(STOPPED, CANCELLED_QUEUED)
                origin.handle.execute()
                return False
            origin.started = True
            origin.turns_before = len(self.agent.turns)
            origin.outcomes_before = len(self.learner.outcomes) if self.learner else 0
            self._active = origin
        origin.handle.execute()
        self._feedback(origin, READING)
        return True

    def asking(self, question: str | None) -> None:
        active = self._active
        if active is not None:
            with self._lock:
                active.asking = str(question or "")
            self._feedback(active, ASKING, question=active.asking)

    def asked(self) -> None:
        with self._lock:
            if self._active is not None:
                self._active.asking = None
            self.queue.drop_answer()              # an answer that came too late

    def before_statement(self, source: str) -> None:
        """A console input is about to run: feedback; a cancel the stop missed (it came as
        the turn began, when the agent clears stops) stops the turn here."""
        active = self._active
        if active is None:
            return
        if active.cancel_requested and not active.stop_honoured:
            self.stop_signal.request(CANCEL_REASON)
            raise InteractionAborted(CANCEL_REASON)
        if self.agent is not None:
            active.lessons_used = self.agent.shown_lessons()
        if Entry(source).calls("wait_for_trigger"):
            return                                # the hand-back: the result follows
        self._feedback(active, _state_of(source), statement=source)

    def entry(self, entry: Entry) -> None:
        """A console entry was recorded: into the goal's transcript; feedback with output."""
        active = self._active
        if active is None:
            return
        active.entries.append(entry.render())
        if entry.source.startswith("# " + STOPPED_NOTE):
            active.stop_honoured = True
        if not entry.calls("wait_for_trigger"):
            self._feedback(active, _state_of(entry.source), statement=entry.source, ran=True,
                           output=entry.output, error=entry.error or "")

    def said(self, text: str) -> None:
        active = self._active
        if active is not None:
            active.said.append(text)

    # -- messages ---------------------------------------------------------------------------
    def _feedback(self, instruction: Instruction, state: str, statement: str = "",
                  ran: bool = False, output: str = "", error: str = "",
                  question: str = "") -> None:
        try:
            instruction.handle.publish_feedback(Instruct.Feedback(
                state=state, statement=statement, ran=ran, output=output, error=error,
                question=question))
        except Exception as exc:  # noqa: BLE001 - feedback must never stop the robot
            self.log.warning(f"instruct feedback not sent: {exc}")

    @staticmethod
    def _result(instruction: Instruction) -> Instruct.Result:
        return Instruct.Result(outcome=instruction.outcome, reason=instruction.reason,
                               speaker_id=instruction.speaker_id, queued=instruction.queued,
                               said=list(instruction.said), transcript=instruction.transcript,
                               lessons_used=list(instruction.lessons_used),
                               lesson_stored=instruction.lesson_stored)

    def close(self) -> None:
        """At shutdown (the executors still spin): every goal not ended ends as failed."""
        with self._lock:
            pending = [g for g in self._goals.values() if not g.finished.is_set()]
            self._waiting.clear()
            self._active = None
        for instruction in pending:
            if instruction.finish(FAILED, SHUTDOWN) and not instruction.started:
                instruction.handle.execute()
        deadline = time.monotonic() + 2.0
        while self._goals and time.monotonic() < deadline:     # their results go out
            time.sleep(0.01)


def _state_of(source: str) -> str:
    return LEARNING if Entry(source).calls("learn_from_interaction") else ACTING


__all__ = ["InstructServer", "InstructNode", "CANCEL_REASON"]

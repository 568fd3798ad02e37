"""Issue 61 item 1 without processes: the shared queue's origins and answers, the channel's
hooks, the refusals, the outcome of a turn, the ``instruct.*`` parameters."""
import threading

import pytest

from llm_interaction_node.core.agent.records import TurnRecord, TurnStatus
from llm_interaction_node.core.transcript.errors import InteractionAborted
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.core.user.interrupt import StopSignal
from llm_interaction_node.ros import interaction_parameters as parameters
from llm_interaction_node.ros import names
from llm_interaction_node.ros.instruction import (
    AGENT_FAILED,
    DONE,
    EMPTY,
    FAILED,
    STOPPED,
    Instruction,
    outcome_of,
    refusal,
)
from llm_interaction_node.ros.interaction_state import InteractionState, StateChannel


def test_a_request_with_an_origin_is_never_the_answer_to_a_question():
    queue = EventQueue()
    goal = object()
    queue.put("bring me the juice", origin=goal)      # a queued goal
    queue.put("the mango one")                        # a person's words
    assert queue.next_utterance("ask") == "the mango one" and queue.taken_origin is None
    assert queue.next_utterance("trigger") == "bring me the juice"
    assert queue.taken_origin is goal


def test_an_answer_goes_before_what_is_queued_and_a_late_one_is_dropped():
    queue = EventQueue()
    queue.put("a spoken request")
    queue.answer("the cup")
    assert queue.next_utterance("trigger") == "a spoken request"    # a request takes no answer
    assert queue.next_utterance("ask") == "the cup"
    queue.answer("too late")
    queue.drop_answer()
    queue.put("next")
    assert queue.next_utterance("ask") == "next"


def test_a_queued_request_can_be_taken_back_until_it_is_taken():
    queue = EventQueue()
    first, second = object(), object()
    queue.put("one", origin=first)
    queue.put("two", origin=second)
    assert queue.remove(second) and not queue.remove(second)
    assert queue.next_utterance("trigger") == "one"
    assert not queue.remove(first)                  # taken already
    assert queue.pending() == 0


def test_a_stop_ends_a_question_that_only_a_queued_goal_could_answer():
    stop = StopSignal()
    queue = EventQueue(stop=stop)
    queue.put("a goal's words", origin=object())
    threading.Timer(0.1, stop.request, args=("the goal was cancelled",)).start()
    with pytest.raises(InteractionAborted):
        queue.next_utterance("ask")
    assert queue.pending() == 1


class Hooks:
    """What the Instruct server hears from the channel."""

    def __init__(self, refuse=()):
        self.calls, self.refuse = [], set(refuse)

    def waiting(self):
        self.calls.append("waiting")

    def taken(self, origin):
        self.calls.append(("taken", origin))
        return origin not in self.refuse

    def asking(self, question):
        self.calls.append(("asking", question))

    def asked(self):
        self.calls.append("asked")


def test_the_channel_tells_the_server_each_turn_and_question_and_skips_a_cancelled_goal():
    queue = EventQueue()
    states = []
    channel = StateChannel(queue, InteractionState(states.append, lambda _l: None),
                           lambda: None)
    cancelled, goal = object(), object()
    channel.requests = hooks = Hooks(refuse=[cancelled])
    queue.put("cancelled as it was taken", origin=cancelled)
    queue.put("bring me the juice", origin=goal)
    assert channel.next_utterance("trigger") == "bring me the juice"
    assert hooks.calls == ["waiting", ("taken", cancelled), "waiting", ("taken", goal)]
    queue.put("the mango one")
    assert channel.next_utterance("ask", "Which juice?") == "the mango one"
    assert hooks.calls[-2:] == [("asking", "Which juice?"), "asked"]
    assert states[-1] == "busy"


@pytest.mark.parametrize("text, why", [
    ("", EMPTY), ("   ", EMPTY), ("?!? ... ***", "no words"), ("\U0001F600 !", "no words")])
def test_words_that_are_no_request_are_refused_in_words(text, why):
    assert why in refusal(text)


@pytest.mark.parametrize("text", ["bring me the juice", "7", "Hol mir den Saft!", "ok?"])
def test_any_words_are_a_request(text):
    assert refusal(text) is None


def test_the_outcome_is_the_way_the_last_turn_ended():
    assert outcome_of([TurnRecord(TurnStatus.WAITING)])[0] == DONE
    outcome, reason = outcome_of([TurnRecord(TurnStatus.WAITING),
                                  TurnRecord(TurnStatus.STOPPED, "the user said 'stop'")])
    assert outcome == STOPPED and "the user said 'stop'" in reason
    assert outcome_of([TurnRecord(TurnStatus.RESET, "reset service")])[0] == STOPPED
    outcome, reason = outcome_of([TurnRecord(TurnStatus.STATEMENT_CAP, "the limit of 15")])
    assert outcome == FAILED and "the limit of 15" in reason
    assert outcome_of([TurnRecord(TurnStatus.LOOP_RESET, "repeated")])[0] == FAILED
    assert outcome_of([TurnRecord(TurnStatus.ERROR, "LLM error: down")])[0] == FAILED
    assert outcome_of([]) == (FAILED, AGENT_FAILED)      # the agent failed: no turn recorded


def test_an_instruction_ends_once():
    instruction = Instruction(b"k", "bring me the juice")
    assert instruction.finish(DONE, "handed back") and instruction.finished.is_set()
    assert not instruction.finish(FAILED, "later")
    assert instruction.outcome == DONE


def test_the_instruct_parameters_are_declared_with_their_defaults_and_checked():
    config = parameters.read({})
    assert config.node.instruct.when_busy == "queue"
    assert config.names["servers.instruct"] == names.INSTRUCT
    assert config.names["services.answer"] == names.ANSWER
    assert parameters.read({"instruct.when_busy": "reject"}).node.instruct.when_busy == "reject"
    with pytest.raises(ValueError, match="when_busy"):
        parameters.read({"instruct.when_busy": "maybe"})

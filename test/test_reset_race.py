"""Issue 60: a reset takes effect before anything said after it is taken.

On main the reset answered at once, and a request said 1-2 ms after the answer was taken by
the old interaction's pending wait_for_trigger() and dropped with it, silently (2 of 2 tries
through ROS; here without ROS, the request put the moment request_reset() returns). The
same through the running node: test/test_ros_reset_and_speech.py.
"""
from __future__ import annotations

import threading
import time

import pytest

from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.transcript.errors import InteractionAborted
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.core.user.interrupt import StopSignal
from llm_interaction_node.session import build_agent, build_console, make_world

pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")


def test_a_held_queue_keeps_what_arrives_from_a_waiting_consumer():
    stop = StopSignal()
    queue = EventQueue(stop=stop)
    taken: list[str] = []
    errors: list[BaseException] = []

    def consume():
        try:
            taken.append(queue.next_utterance("trigger"))
        except InteractionAborted as exc:
            errors.append(exc)

    waiting = threading.Thread(target=consume)
    waiting.start()
    time.sleep(0.1)                            # blocked in next_utterance
    queue.hold()
    queue.put("the next request")              # said right after the reset answered
    stop.request("reset", idle=True)
    waiting.join(5)
    assert taken == [] and len(errors) == 1    # the old wait ends without it
    assert queue.pending() == 1
    stop.clear()
    queue.release()
    assert queue.next_utterance("trigger") == "the next request"


@pytest.mark.parametrize("attempt", range(5))
def test_a_request_said_right_after_the_reset_is_acted_on(attempt):
    stop = StopSignal()
    queue = EventQueue(["what do you see?"], stop=stop)
    llm = ScriptedLLM(["list_objects()", "wait_for_trigger()",
                       "say('on it')", "wait_for_trigger()"])
    world = make_world("humanoid", "drinks_and_cup")
    spoken: list[str] = []
    console = build_console("humanoid", world, queue, speak=spoken.append)
    agent = build_agent("humanoid", llm, console, stop=stop)
    runner = threading.Thread(target=agent.run, daemon=True)
    runner.start()
    deadline = time.monotonic() + 10
    while not agent.turns:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    time.sleep(0.1 + 0.02 * attempt)           # idle in wait_for_trigger()
    agent.request_reset("reset service")
    queue.put("bring me the juice")            # the moment the reset answered
    while "on it" not in spoken:
        assert time.monotonic() < deadline, console.transcript.render()
        time.sleep(0.01)
    queue.close()
    runner.join(10)
    console.close()
    assert not runner.is_alive()
    assert [t.status for t in agent.turns][:2] == ["waiting", "reset"]
    assert "'text': 'bring me the juice'" in console.transcript.render()
    assert agent.console.builtins.utterances == ["bring me the juice"]

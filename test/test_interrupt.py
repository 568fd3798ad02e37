"""Stopping a running interaction from another thread: LLM call, skill, ask(), idle."""
import threading
import time

import pytest

from llm_interaction_node.core.agent import STOPPED
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.transcript.errors import InteractionAborted
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.core.user.interrupt import StopSignal
from llm_interaction_node.session import build_agent, build_console, make_world

# an agent thread that dies of an exception (a script one response short) fails its test:
# it must end as the interaction ends, when the queue is closed
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")


class BlockingLLM(ScriptedLLM):
    """Scripted, but the call number ``block_at`` hangs until ``release`` is set."""

    def __init__(self, responses, block_at):
        super().__init__(responses)
        self.block_at = block_at
        self.entered = threading.Event()
        self.release = threading.Event()
        self.n = 0

    def complete(self, prompt, **kwargs):
        self.n += 1
        if self.n == self.block_at:
            self.entered.set()
            self.release.wait(30)
        return super().complete(prompt, **kwargs)


def agent_with(llm, queue, stop, world=None):
    world = world or make_world("humanoid", "drinks_and_cup")
    spoken = []
    console = build_console("humanoid", world, queue, speak=spoken.append)
    return build_agent("humanoid", llm, console, stop=stop), world, spoken


def test_stop_signal_call_returns_the_result_or_aborts_at_once():
    stop = StopSignal()
    assert stop.call(lambda x: x + 1, 1) == 2
    with pytest.raises(ValueError):
        stop.call(lambda: (_ for _ in ()).throw(ValueError("boom")))
    threading.Timer(0.1, stop.request, args=("user pressed stop",)).start()
    t0 = time.monotonic()
    with pytest.raises(InteractionAborted, match="user pressed stop"):
        stop.call(time.sleep, 5)
    assert time.monotonic() - t0 < 1.0
    stop.clear()
    assert not stop.is_set() and stop.reason == ""


def test_stop_during_generation_ends_the_turn_and_the_next_request_works():
    stop = StopSignal()
    queue = EventQueue(["bring me the juice"])
    llm = BlockingLLM(["list_objects()", "x = 1", "wait_for_trigger()"], block_at=1)
    agent, world, spoken = agent_with(llm, queue, stop)
    runner = threading.Thread(target=agent.run, daemon=True)
    runner.start()
    assert llm.entered.wait(10)
    t0 = time.monotonic()
    stop.request("stop topic")
    deadline = time.monotonic() + 5
    while not (agent.turns and agent.turns[-1].status == "stopped"):
        assert time.monotonic() < deadline, agent.console.transcript.render()
        time.sleep(0.005)
    elapsed = time.monotonic() - t0
    assert elapsed < 2.0          # behaviour, not a benchmark: far less than the 30 s hang
    assert spoken == [STOPPED]
    assert "# stopped: stop topic" in agent.console.transcript.render()
    # the abandoned call's answer is dropped; the next request starts clean
    llm.release.set()
    queue.put("what do you see?")
    queue.close()
    runner.join(10)
    assert not runner.is_alive()
    assert world.snapshot()["skill_calls"] == 0


def test_stop_while_idle_does_not_abort_the_next_request():
    stop = StopSignal()
    queue = EventQueue()
    llm = ScriptedLLM(["list_objects()", "wait_for_trigger()"])
    agent, _, spoken = agent_with(llm, queue, stop)
    runner = threading.Thread(target=agent.run, daemon=True)
    runner.start()
    time.sleep(0.2)                # the agent waits for the first request
    stop.request("stray stop")
    queue.put("what is there?")
    queue.close()
    runner.join(10)
    assert [t.status for t in agent.turns] == ["waiting"]
    assert STOPPED not in spoken


def test_stop_while_asking_ends_the_question():
    stop = StopSignal()
    queue = EventQueue(["bring something"], stop=stop)
    llm = ScriptedLLM(["ask('which one?')", "wait_for_trigger()"])
    agent, _, spoken = agent_with(llm, queue, stop)
    runner = threading.Thread(target=agent.run, daemon=True)
    runner.start()
    deadline = time.monotonic() + 5
    while "which one?" not in spoken:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    stop.request()
    while not agent.turns:
        assert time.monotonic() < deadline + 5
        time.sleep(0.01)
    assert agent.turns[-1].status == "stopped"
    queue.close()
    runner.join(10)
    assert not runner.is_alive()


def test_reset_while_waiting_starts_a_fresh_task():
    stop = StopSignal()
    queue = EventQueue(["what do you see?"], stop=stop)
    llm = ScriptedLLM(["list_objects()", "wait_for_trigger()", "x = 1", "wait_for_trigger()"])
    agent, _, _ = agent_with(llm, queue, stop)
    runner = threading.Thread(target=agent.run, daemon=True)
    runner.start()
    deadline = time.monotonic() + 5
    while not agent.turns:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    task_before = agent.console.task_id
    time.sleep(0.2)                               # idle in wait_for_trigger()
    agent.request_reset("reset service")
    while len(agent.turns) < 2:
        assert time.monotonic() < deadline + 5
        time.sleep(0.01)
    assert agent.turns[-1].status == "reset"
    assert agent.console.task_id != task_before
    assert "list_objects()" not in agent.console.transcript.render()
    queue.put("hello again")                      # the fresh task takes the next request
    queue.close()
    runner.join(10)
    assert not runner.is_alive()
    assert "hello again" in llm.prompts[-1]


def _run_reset_scenario(pending: str | None):
    """One request answered by list_objects(); a reset while idle (with ``pending`` said just
    before it); the same request again, which the scripted LLM answers the same way."""
    stop = StopSignal()
    queue = EventQueue(["what do you see?"], stop=stop)
    llm = ScriptedLLM(["list_objects()", "wait_for_trigger()",
                       "list_objects()", "wait_for_trigger()"])
    agent, _, _ = agent_with(llm, queue, stop)
    runner = threading.Thread(target=agent.run, daemon=True)
    runner.start()
    deadline = time.monotonic() + 10
    while not agent.turns:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    time.sleep(0.2)                                         # idle in wait_for_trigger()
    if pending:
        queue.put(pending)
    agent.request_reset("reset service")
    while len(agent.turns) < 2:
        assert time.monotonic() < deadline, "the reset was lost"
        time.sleep(0.01)
    queue.put("what do you see?")
    queue.close()
    runner.join(10)
    assert not runner.is_alive()
    return agent, llm


def test_reset_forgets_the_answered_attempt_and_the_turn():
    """Issue 27: after a reset the first statement of a new request was refused as a repeat
    of the attempt before the reset ("not run: ..."), and the robot did nothing."""
    agent, _ = _run_reset_scenario(pending=None)
    assert agent.config.repeat_notes >= 1                   # the default: the note is on
    assert agent.turns[1].status == "reset"
    after = list(agent.console.transcript)
    assert not any(e.source.startswith("# not run") for e in after), (
        agent.console.transcript.render()
    )
    ran = [e for e in after if e.source == "list_objects()"]
    assert ran and ran[0].output.startswith("[")            # it ran in the fresh task
    assert agent.console.builtins.utterances == ["what do you see?"]


def test_reset_drops_the_utterances_still_pending():
    """An utterance waiting in the channel when the reset came was taken as the next request
    and the reset was lost (the new turn cleared its stop)."""
    agent, llm = _run_reset_scenario(pending="and then the cup")
    assert [t.status for t in agent.turns][:2] == ["waiting", "reset"]
    assert not any("and then the cup" in prompt for prompt in llm.prompts)
    assert agent.console.builtins.utterances == ["what do you see?"]

"""Issue 44 item 6: the start-up warm-up of a stateful model runs in the background
(core/llm/warmup.py). The robot listens at once; a request that comes during the warm-up waits for
it (nothing is read or generated before the prefill is done) and is then served; a stop ends the
wait and never the warm-up; progress lines say how far it is in percent; the interaction node's
state is ``warming`` while it runs and the robot is idle.

The model is a stand-in whose prefill is observable: it reports its progress batch by batch and
waits for the test to let each batch go. The household world, console and agent are real."""
import threading
import time

import pytest

from llm_interaction_node.core.agent import AgentConfig
from llm_interaction_node.core.llm import ScriptedLLM, Usage
from llm_interaction_node.core.llm.progress import PROMPT, LLMProgress, report
from llm_interaction_node.core.llm.warmup import Warmup, route_progress
from llm_interaction_node.core.transcript.errors import EndOfInteraction, InteractionAborted
from llm_interaction_node.core.transcript.notes import STOPPED as STOPPED_NOTE
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.core.user.interrupt import StopSignal
from llm_interaction_node.ros.interaction_state import (
    BUSY,
    IDLE,
    LEARNING,
    WARMING,
    InteractionState,
    StateChannel,
)
from llm_interaction_node.session import build_agent, build_console, load_examples, make_world
from reading_support import ReadingScript, scripted_reader

REQUEST = "could I have the mango juice?"
BRING = "bring_object_to('mango-juice_0', 'handover_to_human')"
TOKENS = 4000


class GatedPrefillLLM(ScriptedLLM):
    """The scripted stand-in with the embedded model's prefill: it reports its progress in
    four batches and waits for :attr:`gate` before each (the test lets them go); it records
    when each prefill and each completion began and ended, on one timeline."""

    def __init__(self, responses, batches=4):
        super().__init__(responses)
        self.progress = None
        self.batches = batches
        self.gate = threading.Semaphore(0)
        self.timeline: list[str] = []
        self.started = threading.Event()
        self._model = threading.Lock()          # one evaluation at a time, as llama.cpp's

    def prefill(self, prefix, system=None, persist=False):
        with self._model:
            self.timeline.append("prefill start")
            self.started.set()
            start = time.monotonic()
            for n in range(1, self.batches + 1):
                assert self.gate.acquire(timeout=30), "the test never let the prefill go"
                report(self.progress, LLMProgress(PROMPT, n * TOKENS // self.batches, TOKENS,
                                                  elapsed_s=time.monotonic() - start))
            self.timeline.append("prefill end")
        return Usage(prompt_tokens=TOKENS, evaluated_tokens=TOKENS)

    def release(self, n=None):
        for _ in range(n or self.batches):
            self.gate.release()

    def execute(self, request):
        with self._model:
            self.timeline.append("complete")
            return super().execute(request)


def until(predicate, timeout=20.0, what=""):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what or predicate}"
        time.sleep(0.02)


class ListeningQueue(EventQueue):
    """The node's utterance queue; ``listening`` is set once the robot waits for a request."""

    def __init__(self):
        super().__init__()
        self.listening = threading.Event()

    def next_utterance(self, purpose, prompt=None):
        if purpose == "trigger":
            self.listening.set()
        return super().next_utterance(purpose, prompt)


def warmed_agent(responses, readings=None):
    """An agent on drinks_and_cup whose start-up prefill runs in a background Warmup (as the
    interaction node wires it); returns (agent, llm, world, queue, warmup, lines)."""
    world = make_world("humanoid", "drinks_and_cup")
    queue = ListeningQueue()
    spoken: list[str] = []
    console = build_console("humanoid", world, queue, speak=spoken.append)
    llm = GatedPrefillLLM(responses)
    agent = build_agent("humanoid", llm, console, load_examples("humanoid")[:2],
                        config=AgentConfig(function_generation=False, idle_retries=0,
                                           restate_correction=False),
                        reader=scripted_reader(readings or {REQUEST: "do: mango juice -> me"}))
    lines: list[str] = []
    warmup = Warmup(agent.warm_up_steps(), write=lines.append, every_s=0.0)
    route_progress(llm, warmup)
    agent.warmup = warmup
    return agent, llm, world, queue, warmup, lines, spoken


def run_in_thread(agent):
    def work():
        try:
            agent.run()
        except EndOfInteraction:
            pass
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def test_a_request_during_the_warm_up_waits_for_it_then_is_served():
    agent, llm, world, queue, warmup, lines, _ = warmed_agent([BRING, "wait_for_trigger()"])
    warmup.start()
    thread = run_in_thread(agent)
    assert llm.started.wait(10)
    # the robot listens while it warms up: the console waits for the request
    assert queue.listening.wait(10)
    llm.release(2)
    until(lambda: any("50 %" in line for line in lines), what="a progress line at 50 %")
    queue.put(REQUEST)
    time.sleep(0.5)
    assert llm.calls == [] and llm.timeline == ["prefill start"]      # nothing read or written
    assert world.snapshot()["objects"]["mango-juice_0"]["held_by"] is None
    assert not warmup.done and "50 %" in warmup.describe()
    llm.release(2)
    until(lambda: world.snapshot()["objects"]["mango-juice_0"]["held_by"] == "human",
          what="the juice handed over")
    assert llm.timeline[:3] == ["prefill start", "prefill end", "complete"]
    assert warmup.done and warmup.usage.evaluated_tokens == TOKENS
    progress = [line.rsplit(",", 1)[0] for line in lines if " % of " in line]
    assert progress == [
        f"warming up the language model (the console prompt): {p} % of {TOKENS} tokens"
        for p in (25, 50, 75, 100)]
    assert lines[0].startswith("warming up the language model:")
    assert lines[-1].startswith("warm-up done in ") and f"{TOKENS} tokens evaluated" in lines[-1]
    # the start-up prefix is prefilled once, by the warm-up, not again by the agent
    assert llm.timeline.count("prefill start") == 1
    queue.close()
    thread.join(10)
    assert not thread.is_alive()


def test_a_stop_ends_the_wait_not_the_warm_up_and_the_next_request_is_served():
    agent, llm, world, queue, warmup, lines, spoken = warmed_agent([BRING, "wait_for_trigger()"])
    warmup.start()
    thread = run_in_thread(agent)
    assert llm.started.wait(10)
    queue.put(REQUEST)
    until(lambda: len(agent.console.builtins.utterances) == 1, what="the request taken")
    time.sleep(0.2)
    agent.stop.request("the user said 'stop'")
    until(lambda: any(STOPPED_NOTE in e.source for e in agent.console.transcript)
          and "Okay, I stopped." in spoken, what="the turn stopped")
    assert not warmup.done and llm.calls == []            # the warm-up goes on, nothing ran
    llm.release()
    until(lambda: warmup.done, what="the warm-up done")
    assert llm.timeline == ["prefill start", "prefill end"]
    queue.put(REQUEST)
    until(lambda: world.snapshot()["objects"]["mango-juice_0"]["held_by"] == "human",
          what="the juice handed over after the warm-up")
    queue.close()
    thread.join(10)


def test_the_warm_up_steps_are_the_console_prompt_and_the_reading_prompts():
    """Both prefills of the start-up, kept on disk (persist); none for a model without state;
    without a background warm-up, run() prefills before it listens (as before)."""
    class PrefillingReader(ReadingScript):
        def __init__(self):
            super().__init__({})
            self.prefilled = []

        def prefill(self, prefix, system=None, persist=False):
            self.prefilled.append(persist)
            return Usage(prompt_tokens=10, cached_tokens=10)

    world = make_world("humanoid", "drinks_and_cup")
    console = build_console("humanoid", world, EventQueue([], close=True))
    llm = GatedPrefillLLM(["wait_for_trigger()"], batches=1)
    reader = scripted_reader({})
    reader.llm = PrefillingReader()
    agent = build_agent("humanoid", llm, console, load_examples("humanoid")[:1], reader=reader)
    steps = agent.warm_up_steps()
    assert [what for what, _ in steps] == ["the console prompt", "the reading prompts"]
    warmup = Warmup(steps, write=lambda _line: None)
    warmup.start()
    llm.release()
    assert warmup.wait(StopSignal(), timeout=10)
    # the request, the reply, the slot-check, the every-time, the request-place, the
    # request-hand, the request-name, the other-names, the habit's form, the kind said and
    # the thing's kind prompts
    assert reader.llm.prefilled == [True] * 11
    assert warmup.usage.cached_tokens == 110 and warmup.usage.evaluated_tokens == TOKENS
    assert build_agent("humanoid", ScriptedLLM([]), console).warm_up_steps() == []
    # no background warm-up: run() prefills first, then listens
    llm2 = GatedPrefillLLM(["wait_for_trigger()"], batches=1)
    console2 = build_console("humanoid", make_world("humanoid", "drinks_and_cup"),
                             EventQueue([], close=True))
    llm2.release()
    build_agent("humanoid", llm2, console2).run()           # ends with the closed queue
    assert llm2.timeline == ["prefill start", "prefill end"]


def test_a_failed_step_is_reported_and_the_warm_up_still_ends():
    def broken():
        raise RuntimeError("no memory for the state")
    lines, ended = [], []
    warmup = Warmup([("the console prompt", broken), ("the reading prompts", lambda: Usage())],
                    write=lines.append, on_done=lambda: ended.append(True))
    warmup.start()
    assert warmup.wait(StopSignal(), timeout=10) and ended == [True]
    assert "failed: the console prompt: no memory for the state" in lines[-1]
    stop = StopSignal()
    slow = Warmup([("x", lambda: time.sleep(5))], write=lambda _l: None)
    slow.start()
    stop.request("stop")
    with pytest.raises(InteractionAborted):
        slow.wait(stop)
    assert slow.running


def test_the_node_state_is_warming_while_the_warm_up_runs_and_the_robot_is_idle():
    published: list[str] = []
    state = InteractionState(published.append, lambda _line: None)
    queue = EventQueue()
    channel = StateChannel(queue, state, lambda: None)
    state.warming(True)
    assert published == []                     # nothing before the robot first listens
    queue.put("bring me the juice")
    assert channel.next_utterance("trigger") == "bring me the juice"
    assert published == [WARMING, BUSY]        # it listened while warming, then had a request
    assert not state.idle and not state.begin_learning()
    state.set(IDLE)                            # the turn ended: still warming
    assert published[-1] == WARMING and state.idle
    assert state.begin_learning() and published[-1] == LEARNING   # a learn call is allowed
    state.set(IDLE)
    assert published[-1] == WARMING
    state.warming(False)
    assert published[-1] == IDLE and state.idle
    assert published == [WARMING, BUSY, WARMING, LEARNING, WARMING, IDLE]


@pytest.mark.slow
def test_the_node_warms_up_in_the_background_and_a_request_waits_for_it(tmp_path):
    """Through ROS: the interaction node (test/drivers/warming_node.py: the node's own main
    over a stand-in model with a slow, observable prefill) says ``warming`` on its state topic
    while it warms up, progress lines with the percentage on the progress topic; a stop then
    is nothing to stop (the warm-up goes on); a request said meanwhile is answered once both
    prefills ended, and the state is ``idle`` after."""
    from std_msgs.msg import Empty, String

    from fake_llm_server import FakeLLMServer
    from llm_interaction_node.ros import names
    from ros_support import ROOT, NodeProcess, probe_node
    from test_ros_e2e import SIM, Observer, node_args

    llm = FakeLLMServer()
    llm.readings[REQUEST] = "do: mango juice -> me"
    llm.texts = [BRING, "wait_for_trigger()"]
    llm.text = "wait_for_trigger()"
    events = tmp_path / "events.txt"
    sim = NodeProcess(SIM, tmp_path / "sim.log", ros_args=["-p", "time_scale:=0.0"])
    node = NodeProcess(str(ROOT / "test" / "drivers" / "warming_node.py"), tmp_path / "node.log",
                       args=[str(events), "6"],
                       ros_args=node_args(llm.url, tmp_path / "memory"))
    try:
        with probe_node() as probe:
            user = Observer(probe, node)
            progress = probe.collect(String, names.LLM_PROGRESS, 50)
            stop = probe.node.create_publisher(Empty, names.STOP, 10)
            node.wait_for_log("interaction_node ready", 180)
            assert "warming up the model in the background" in node.log()
            probe.wait_until(lambda: user.states and user.states[-1].data == "warming", 60,
                             "state warming")
            probe.wait_until(lambda: any(" % of 4000 tokens" in m.data for m in progress), 60,
                             "a progress line")
            stop.publish(Empty())                       # nothing runs: nothing to stop
            time.sleep(1.0)              # (another topic: it might come after the request)
            assert user.states[-1].data == "warming"
            user.say(REQUEST)
            probe.wait_until(lambda: user.world().get("objects", {}).get("mango-juice_0", {})
                             .get("held_by") == "human", 120, "the juice handed over\n"
                             + node.log()[-3000:])
            probe.wait_until(lambda: user.states[-1].data == "idle", 30, "idle")
            lines = [m.data for m in progress]
            states = [m.data for m in user.states]
    finally:
        node.stop()
        sim.stop()
        llm.close()
    order = [line.split()[0] for line in events.read_text().splitlines()]
    # the prefills (the console prompt, the reading prompts of requests and of replies, the
    # slot-check prompt, the every-time, the request-place, the request-hand, the
    # request-name, the other-names, the habit's form, the kind said and the thing's kind
    # prompts) ran whole, one after the other, before any completion
    assert order[:24] == ["prefill-start", "prefill-end"] * 12 \
        and "prefill-start" not in order[24:]
    assert order[24] == "complete", order
    assert any(line.startswith("warming up the language model (the console prompt): ")
               and " % of 4000 tokens" in line for line in lines), lines
    assert any(line.startswith("warming up the language model (the reading prompts): ")
               for line in lines), lines
    assert any(line.startswith("warm-up done in ") and "48000 tokens evaluated" in line
               for line in lines), lines
    assert states[0] == "warming" and "busy" in states and states[-1] == "idle", states
    assert "stop requested" not in node.log_path.read_text()

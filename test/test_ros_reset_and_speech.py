"""Issue 60 on real DDS: the interaction node's speech bounds and its reset, with the node and
the simulator as processes and only the LLM a stand-in.

On main ``for i in range(10**6): say('d' * 9_999)`` published 21,111 messages (211 MB) on
speech/tts_text before the statement's timeout, and a request published 1-2 ms after the
``interaction/reset`` answer was taken by the old interaction's pending wait_for_trigger()
and dropped with it, silently (2 of 2 tries).
"""
import time

import pytest

from fake_llm_server import FakeLLMServer
from llm_interaction_node.ros import names
from test_ros_e2e import running_robot

pytestmark = pytest.mark.slow


@pytest.fixture
def robot(tmp_path):
    llm = FakeLLMServer()
    llm.text = "wait_for_trigger()"
    try:
        with running_robot(tmp_path, llm.url, tmp_path / "memory",
                           **{"memory.enabled": "false"}) as (user, procs):
            yield user, llm, procs
    finally:
        llm.close()


def said(messages) -> list[str]:
    return [m.data for m in messages]


def test_a_speech_flood_is_bounded_on_the_tts_topic_and_the_model_hears_the_bound(robot):
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String
    user, llm, procs = robot
    tts = user.probe.collect(String, names.TTS_TEXT,
                             QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE))
    flood = "for i in range(10**6): say('d' * 9_999)"
    many = "for i in range(10**6): say('item %d' % i)"
    llm.texts = [flood, many, "say('done')", "wait_for_trigger()"]
    user.say("tell me everything")
    user.probe.wait_until(lambda: "done" in said(tts), 60, "the robot to go on")
    user.wait_idle_after(0)
    time.sleep(0.5)                                       # nothing more comes
    assert said(tts) == [f"item {i}" for i in range(10)] + ["done"]
    errors = [e.text.splitlines()[-1] for e in user.entries if e.kind == "error"]
    assert errors == [
        "ValueError: say() was refused: speech is bounded to 2,000 characters per statement; "
        "this text has 9,999: say less",
        "ValueError: say() was refused: speech is bounded to 10 say()/ask() messages per "
        "statement; this statement sent 10: say it in fewer, shorter messages"], user.transcript()
    assert procs["node"].alive()


def test_a_request_published_right_after_the_reset_answer_is_acted_on(robot):
    """Reset, then at once (the moment the answer arrives) a request: it is the fresh
    interaction's first request and the robot acts on it; several times in a row."""
    from std_srvs.srv import Trigger
    user, llm, procs = robot
    llm.texts = ["list_objects()", "wait_for_trigger()"]
    user.say("what do you see?")
    user.wait_idle_after(0)
    reset = user.probe.node.create_client(Trigger, names.RESET)
    assert reset.wait_for_service(timeout_sec=60)
    for attempt in range(4):
        time.sleep(0.3)                                   # idle in wait_for_trigger()
        request = f"bring me the juice, try {attempt}"
        llm.texts = [f"say('acting on try {attempt}')", "wait_for_trigger()"]
        future = reset.call_async(Trigger.Request())
        deadline = time.monotonic() + 30
        while not future.done():
            assert time.monotonic() < deadline, "no answer from the reset service"
            time.sleep(0.0005)
        user.asr.publish(user.String(data=request))       # 1-2 ms after the answer
        assert future.result().success
        user.probe.wait_until(
            lambda a=attempt: f"acting on try {a}" in said(user.said), 30,
            f"try {attempt}: the request after the reset to be acted on\n{user.transcript()}")
        dialogs = [e.text for e in user.entries
                   if e.kind == "output" and f"'text': {request!r}" in e.text]
        assert len(dialogs) == 1, user.transcript()
        user.probe.wait_until(lambda: user.states[-1].data == "idle", 30, "idle")
    log = procs["node"].log()
    assert log.count("interaction reset: reset service") == 4
    assert procs["node"].alive() and "Traceback" not in log

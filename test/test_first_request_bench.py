"""The first-request benchmark (bench/first_request.py, issue 44 item 6) runs end to end: it
starts `llm-interaction run` on a fresh cache, waits until the robot is ready, says the request
on speech/asr_text and times the first skill goal (``--installed``: after the install's
`llm-interaction run --warm-up-only`). Only the LLM is a stand-in (no warm-up
then: an endpoint keeps no state); ROS, the simulator and ChromaDB are real."""
import json

import pytest

from fake_llm_server import FakeLLMServer
from llm_interaction_node.bench import first_request

pytestmark = pytest.mark.slow


def test_the_bench_times_the_first_action_after_the_request(tmp_path):
    llm = FakeLLMServer()
    llm.readings[first_request.REQUEST] = "do: mango juice -> me"
    llm.texts = ["bring_object_to('mango-juice_0', 'handover_to_human')", "wait_for_trigger()"]
    llm.text = "wait_for_trigger()"
    try:
        assert first_request.main(["--keep-models", "--installed", "--out", str(tmp_path),
                                   "--timeout", "300",
                                   "--llm-base-url", llm.url, "--llm-model", "scripted"]) == 0
    finally:
        llm.close()
    (record,) = tmp_path.glob("*-warm-installed.json")
    result = json.loads(record.read_text())
    # what `make run` does once after install ran first, in the same fresh cache and memory
    assert result["installed"] is True and 0 < result["install_s"] < 300
    assert result["first_skill"] == "move_to" and 0 < result["first_action_s"] < 60
    assert result["listening_s"] > 0 and result["states_seen"][0] == "idle"   # no warm-up
    assert "warming" not in result["states_seen"] and result["warm_up_lines"] == []
    assert result["llm"].startswith("LLM:") and "scripted" in result["llm"]
    assert result["command"].startswith("python -m llm_interaction_node.bench.first_request")
    assert [r["json"]["prompt"].endswith(">>>") for r in llm.requests][:1] == [True]

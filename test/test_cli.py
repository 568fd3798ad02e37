"""The `llm-interaction` command as a user runs it (a separate process each time)."""
import os
import re
import subprocess
import sys
from pathlib import Path

from fake_llm_server import FakeLLMServer

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def run_cli(*args, stdin="", env_extra=None, timeout=120):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LLM_INTERACTION_", "OPENAI_")) and "proxy" not in k.lower()}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "llm_interaction_node.cli", *args], input=stdin,
                          capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)


def test_replay_of_the_two_trips_interaction_prints_the_recorded_results():
    """The juice-and-cup interaction: every skill result and listing as recorded."""
    path = DATA / "juice_and_cup_two_trips.txt"
    r = run_cli("replay", str(path), "--api", "humanoid", "--check")
    assert r.returncode == 0, r.stderr
    recorded = [ln for ln in path.read_text().splitlines() if not ln.startswith("# ")]
    assert r.stdout.splitlines() == recorded
    assert r.stdout.count("'success'") == 8      # 4 moves, 2 grasps, 2 handovers
    assert "[say] Here is your mango juice." in r.stderr


def test_replay_check_reports_a_mismatch(tmp_path):
    text = (DATA / "juice_and_cup_two_trips.txt").read_text()
    changed = tmp_path / "changed.txt"
    changed.write_text(text.replace(">>> grasp('mango-juice_0')\n'success'",
                                    ">>> grasp('mango-juice_0')\n'failure'"))
    r = run_cli("replay", str(changed), "--api", "humanoid", "--check")
    assert r.returncode == 1
    assert "mismatch at input" in r.stderr and "grasp('mango-juice_0')" in r.stderr


def test_hostile_statements_through_replay_are_refused_readably(tmp_path):
    hostile = tmp_path / "hostile.txt"
    canary = tmp_path / "canary"
    hostile.write_text("\n".join([
        ">>> import os",
        f">>> open({str(canary)!r}, 'w').write('x')",
        ">>> ().__class__.__bases__[0].__subclasses__()",
        ">>> getattr(list_objects, '__glob' + 'als__')",
        ">>> eval('1+1')",
        ">>> np.save('/tmp/x.npy', np.zeros(3))",
        ">>> list_locations()",
    ]) + "\n")
    r = run_cli("replay", str(hostile), "--api", "humanoid", "--timeout", "2")
    assert r.returncode == 0, r.stderr
    blocks = r.stdout.split(">>> ")[1:]
    assert len(blocks) == 7
    for block in blocks[:6]:
        assert any(word in block for word in ("SandboxViolation", "NameError", "not available",
                                               "AttributeError")), block
    assert "inFrontOf_kitchen-counter_0" in blocks[6]       # the session went on
    assert not canary.exists()


def test_replay_reports_a_missing_world_clearly():
    r = run_cli("replay", str(DATA / "juice_and_cup_two_trips.txt"), "--api", "humanoid",
                "--world", "no_such_world")
    assert r.returncode == 2 and "no world 'no_such_world'" in r.stderr
    assert "drinks_and_cup" in r.stderr


def test_chat_without_an_endpoint_or_local_model_explains_what_to_set():
    r = run_cli("chat", "--api", "humanoid", stdin="hello\n", env_extra={"LLM_INTERACTION_LOCAL": "0"})
    assert r.returncode == 2
    assert "LLM_INTERACTION_BASE_URL" in r.stderr and "OPENAI_API_KEY" in r.stderr


def test_chat_answers_a_typed_request_through_a_configured_endpoint(tmp_path):
    server = FakeLLMServer()
    server.texts = ["list_object_locations()",
                    "move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))",
                    "grasp('coffee-cup_0')",
                    "say('I have the cup.')",
                    "wait_for_trigger()"]
    try:
        r = run_cli("chat", "--api", "humanoid", "--memory-path", str(tmp_path / "memory"),
                    stdin="bring me the cup\n",
                    env_extra={"LLM_INTERACTION_BASE_URL": server.url,
                               "LLM_INTERACTION_MODEL": "test-model",
                               "LLM_INTERACTION_MODE": "completion"})
    finally:
        server.close()
    assert r.returncode == 0, r.stderr
    assert "robot says: I have the cup." in r.stdout
    assert ">>> grasp('coffee-cup_0')\n'success'" in r.stdout
    assert len(server.requests) == 5
    prompt = server.requests[0]["json"]["prompt"]
    assert "{'type': 'dialog', 'text': 'bring me the cup'}" in prompt and prompt.endswith(">>>")
    assert "tokens used:" in r.stdout
    # examples came from the memory, seeded with the example transcripts
    n = len(list((ROOT / "config" / "transcripts" / "humanoid").glob("*.txt")))
    assert f"memory: {n} examples in" in r.stdout and f"# Example {n}:" in prompt


def test_chat_timeout_option_sets_the_statement_time_limit(tmp_path):
    server = FakeLLMServer()
    server.texts = ["while True:\n    pass", "wait_for_trigger()"]
    try:
        r = run_cli("chat", "--api", "humanoid", "--no-memory", "--timeout", "0.5",
                    stdin="spin, please\n", timeout=60,
                    env_extra={"LLM_INTERACTION_BASE_URL": server.url,
                               "LLM_INTERACTION_MODEL": "test-model"})
    finally:
        server.close()
    assert r.returncode == 0, r.stderr
    assert "statement interrupted after 0.5 s" in r.stdout, r.stdout
    assert "memory: no memory" in r.stdout


def test_chat_shows_how_far_a_long_llm_call_is(tmp_path):
    """The first request takes ~3.6 s while the server reports its prompt progress: the
    chat prints a progress line and a closing one; quick calls print none."""
    server = FakeLLMServer()
    server.texts = ["say('ready')", "wait_for_trigger()"]
    server.replies.append({"progress": [(1024, 4096), (2048, 4096), (3072, 4096), (4096, 4096)],
                           "gap": 0.9})
    try:
        r = run_cli("chat", "--api", "humanoid", "--no-memory", stdin="hello\n", timeout=60,
                    env_extra={"LLM_INTERACTION_BASE_URL": server.url,
                               "LLM_INTERACTION_MODEL": "test-model"})
    finally:
        server.close()
    assert r.returncode == 0, r.stderr
    assert re.search(r"\(the model is reading the prompt: 4096 of 4096 tokens, \d+ s\)", r.stdout), r.stdout
    assert r.stdout.count("(the model answered after") == 1           # the second call was quick
    assert r.stdout.index("(the model answered after") < r.stdout.index("robot says: ready")

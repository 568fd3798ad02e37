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


def test_replay_with_a_broken_world_file_is_one_line_not_a_traceback(tmp_path):
    """Issue 45: a world YAML with a syntax error ended in a 64-line traceback; a misspelt
    key was taken silently. Both are one line that says where now (exit code 2)."""
    world = (ROOT / "config" / "worlds" / "drinks_and_cup.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(world.replace("  base_speed: 0.5", "  base_speed: [0.5", 1))
    misspelt = tmp_path / "misspelt.yaml"
    misspelt.write_text(world.replace("{location: on_kitchen-counter_0, offset: [0.0, -0.2]",
                                      "{loaction: on_kitchen-counter_0, offset: [0.0, -0.2]"))
    for path, words in ((broken, "not valid YAML (line "),
                        (misspelt, "objects.mango-juice_0: unknown key 'loaction' (did you "
                                   "mean 'location'?)")):
        r = run_cli("replay", str(DATA / "juice_and_cup_two_trips.txt"), "--api", "humanoid",
                    "--world", str(path))
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and str(path) in lines[0], r.stderr


def test_chat_without_an_endpoint_or_local_model_explains_what_to_set():
    r = run_cli(
        "chat", "--api", "humanoid", stdin="hello\n", env_extra={"LLM_INTERACTION_LOCAL": "0"}
    )
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
    assert re.search(
        r"\(the model is reading the prompt: 4096 of 4096 tokens, \d+ s\)", r.stdout
    ), r.stdout
    assert r.stdout.count("(the model answered after") == 1           # the second call was quick
    assert r.stdout.index("(the model answered after") < r.stdout.index("robot says: ready")


def dead_url():
    """An endpoint nobody listens on: where the environment points in the precedence tests."""
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


ENV_ENDPOINT = {"LLM_INTERACTION_MODEL": "env-model", "LLM_INTERACTION_MODE": "chat",
                "LLM_INTERACTION_MAX_RETRIES": "0"}


def test_chat_llm_options_beat_the_environment_and_the_endpoint_is_printed_first(tmp_path):
    server = FakeLLMServer()
    server.texts = ["say('hello')", "wait_for_trigger()"]
    try:
        r = run_cli("chat", "--no-memory", "--llm-base-url", server.url, "--llm-model",
                    "option-model", "--llm-mode", "completion", "--llm-timeout", "20",
                    stdin="hi\n", timeout=120,
                    env_extra={**ENV_ENDPOINT, "LLM_INTERACTION_BASE_URL": dead_url()})
    finally:
        server.close()
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith("LLM: LLM completion mode, model 'option-model' at " + server.url)
    assert "timeout 20 s" in first
    assert "robot says: hello" in r.stdout
    assert {q["json"]["model"] for q in server.requests} == {"option-model"}
    assert all(q["path"] == "/v1/completions" for q in server.requests)


def test_chat_reads_the_api_key_from_the_variable_an_option_names(tmp_path):
    server = FakeLLMServer()
    server.texts = ["wait_for_trigger()"]
    try:
        r = run_cli("chat", "--no-memory", "--llm-base-url", server.url,
                    "--llm-api-key-env", "MY_KEY", stdin="hi\n",
                    env_extra={"MY_KEY": "sk-from-my-key", "LLM_INTERACTION_API_KEY": "sk-env"})
        missing = run_cli("chat", "--no-memory", "--llm-base-url", server.url,
                          "--llm-api-key-env", "NOT_SET_ANYWHERE", stdin="hi\n")
    finally:
        server.close()
    assert r.returncode == 0, r.stderr
    assert server.requests[0]["auth"] == "Bearer sk-from-my-key"
    assert "sk-from-my-key" not in r.stdout
    assert missing.returncode == 2 and "NOT_SET_ANYWHERE" in missing.stderr


def test_eval_llm_options_beat_the_environment(tmp_path):
    server = FakeLLMServer()
    server.text = "wait_for_trigger()"
    try:
        r = run_cli("eval", "--system", "ours_no_learning", "--split", "sa_si", "--templates",
                    "block_in_bowl", "--runs", "1", "--world", "2d", "--max-rounds", "1",
                    "--llm-base-url", server.url, "--llm-model", "option-model",
                    "--llm-mode", "completion", "--out", str(tmp_path / "out"), "-q",
                    timeout=300, env_extra={**ENV_ENDPOINT, "LLM_INTERACTION_BASE_URL": dead_url()})
    finally:
        server.close()
    assert r.returncode == 0, r.stderr
    assert f"model 'option-model' at {server.url}" in r.stdout
    assert server.requests and {q["json"]["model"] for q in server.requests} == {"option-model"}

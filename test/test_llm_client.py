"""LLM client layer: config, OpenAIClient against an in-test OpenAI-compatible server,
ScriptedLLM and TokenLedger. No internet, no API key: the server below stands in for the LLM."""
from __future__ import annotations

import socket
import sys
import threading
import time

import pytest

from fake_llm_server import FakeLLMServer
from llm_interaction_node.core.llm import (
    Completion,
    LLMClient,
    LLMConfig,
    LLMError,
    LLMNotConfigured,
    OpenAIClient,
    ScriptedLLM,
    ScriptExhausted,
    TokenLedger,
    Usage,
    estimate_tokens,
    make_client,
)
from llm_interaction_node.core.settings.config import load_section


def llm_section(values=None, env=None, overrides=None):
    """The ``llm`` section from a file's values, the environment and options (one parser)."""
    return load_section(LLMConfig, values, "llm", {} if env is None else env, overrides)

pytestmark = pytest.mark.timeout(30)


# ---------------------------------------------------------------------------------------
# A tiny OpenAI-compatible server
# ---------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    """Proxies would divert 127.0.0.1 traffic; openai reads a few OPENAI_* variables itself."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "OPENAI_CUSTOM_HEADERS", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    s = FakeLLMServer()
    yield s
    s.close()


def client_for(server: FakeLLMServer, **overrides) -> OpenAIClient:
    values = {"base_url": server.url, "model": "test-model", "api_key": "sk-test",
              "timeout_s": 5.0, "max_retries": 0, **overrides}
    return OpenAIClient(LLMConfig(**values))


def error_body(message: str, code: str | None = None) -> dict:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


# ---------------------------------------------------------------------------------------
# LLMConfig
# ---------------------------------------------------------------------------------------


def test_config_from_file_values():
    cfg = llm_section({"base_url": "http://localhost:8000/v1", "model": "qwen", "mode": "chat",
         "temperature": 0.3, "max_tokens": 100, "timeout_s": 10, "max_retries": 1},
        env={},
    )
    assert (cfg.base_url, cfg.model, cfg.mode, cfg.temperature, cfg.max_tokens) == (
        "http://localhost:8000/v1", "qwen", "chat", 0.3, 100)
    assert (cfg.timeout_s, cfg.max_retries) == (10.0, 1)
    assert cfg.api_key is None and cfg.is_configured


def test_config_defaults_and_none_values():
    cfg = llm_section({"base_url": None, "model": None}, env={})
    assert cfg == LLMConfig()
    assert not cfg.is_configured


def test_config_env_overrides_file():
    env = {
        "LLM_INTERACTION_BASE_URL": "http://gpu:8080/v1",
        "LLM_INTERACTION_MODEL": "llama",
        "LLM_INTERACTION_API_KEY": "k-env",
        "LLM_INTERACTION_MODE": "CHAT",
        "LLM_INTERACTION_TEMPERATURE": "0.7",
        "LLM_INTERACTION_MAX_TOKENS": "64",
        "OPENAI_BASE_URL": "http://ignored/v1",
        "OPENAI_API_KEY": "ignored",
    }
    cfg = llm_section(
        {
            "base_url": "http://file/v1",
            "model": "m-file",
            "api_key": "k-file",
            "mode": "completion",
            "temperature": 0.0,
            "max_tokens": 512,
        },
        env=env,
    )
    assert (cfg.base_url, cfg.model, cfg.api_key, cfg.mode, cfg.temperature, cfg.max_tokens) == (
        "http://gpu:8080/v1", "llama", "k-env", "chat", 0.7, 64)


def test_config_openai_env_vars_are_fallbacks():
    env = {"OPENAI_BASE_URL": "http://fallback/v1", "OPENAI_API_KEY": "sk-fallback"}
    cfg = llm_section({}, env=env)
    assert (cfg.base_url, cfg.api_key) == ("http://fallback/v1", "sk-fallback")
    # the config file beats the fallbacks, an empty LLM_INTERACTION_* variable counts as unset
    cfg = llm_section({"base_url": "http://file/v1"},
                                 env={**env, "LLM_INTERACTION_BASE_URL": ""})
    assert (cfg.base_url, cfg.api_key) == ("http://file/v1", "sk-fallback")
    # only an API key: the default OpenAI endpoint
    cfg = llm_section(None, env={"OPENAI_API_KEY": "sk-x"})
    assert cfg.is_configured and cfg.base_url is None
    assert cfg.endpoint == "https://api.openai.com/v1"


@pytest.mark.parametrize(
    "values, env, fragment",
    [
        ({"mode": "chatty"}, {}, "mode"),
        ({}, {"LLM_INTERACTION_MODE": "instruct"}, "LLM_INTERACTION_MODE"),
        ({"temperature": "hot"}, {}, "temperature"),
        ({}, {"LLM_INTERACTION_TEMPERATURE": "warm"}, "LLM_INTERACTION_TEMPERATURE"),
        ({"temperature": 3.5}, {}, "0..2"),
        ({"temperature": -0.1}, {}, "temperature"),
        ({}, {"LLM_INTERACTION_MAX_TOKENS": "lots"}, "LLM_INTERACTION_MAX_TOKENS"),
        ({"max_tokens": 0}, {}, "max_tokens"),
        ({"max_tokens": 1.5}, {}, "max_tokens"),
        ({"timeout_s": 0}, {}, "timeout_s"),
        ({"max_retries": -1}, {}, "max_retries"),
        ({"base_url": "localhost:8000"}, {}, "http"),
        ({"modle": "x"}, {}, "unknown"),
    ],
)
def test_config_invalid_values_raise_clear_valueerror(values, env, fragment):
    with pytest.raises(ValueError) as info:
        llm_section(values, env=env)
    assert fragment in str(info.value)


def test_config_direct_construction_is_validated():
    with pytest.raises(ValueError, match="mode"):
        LLMConfig(mode="bogus")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="temperature"):
        LLMConfig(temperature=9)


def test_describe_and_repr_hide_the_key():
    cfg = LLMConfig(base_url="http://user:pw@host:8000/v1", api_key="sk-very-secret-123")
    line = cfg.describe()
    assert "sk-very-secret" not in line and "sk-very-secret" not in repr(cfg)
    assert "pw" not in line and "host:8000" in line
    assert "\n" not in line and "gpt-4o-mini" in line and "api key set" in line
    assert "no endpoint" in LLMConfig().describe()


def test_make_client_unconfigured_raises_with_instructions():
    with pytest.raises(LLMNotConfigured) as info:
        make_client(llm_section({}, env={}), local=False)
    msg = str(info.value)
    for needle in (
        "LLM_INTERACTION_BASE_URL",
        "OPENAI_API_KEY",
        "http://localhost:11434/v1",
        "vLLM",
        "llama.cpp",
    ):
        assert needle in msg
    assert isinstance(info.value, RuntimeError)


def test_make_client_configured_returns_openai_client():
    client = make_client(LLMConfig(base_url="http://127.0.0.1:9/v1"))
    assert isinstance(client, OpenAIClient) and isinstance(client, LLMClient)


def test_without_an_llm_a_long_running_caller_gets_nollm_that_says_what_to_set():
    from llm_interaction_node.core.llm import NoLLM
    from llm_interaction_node.core.llm.factory import make_client as factory_make_client
    assert factory_make_client is make_client              # one factory, re-exported
    client = make_client(llm_section({}, env={}), local=False, required=False)
    assert isinstance(client, NoLLM) and isinstance(client, LLMClient)
    assert "no LLM" in client.describe()
    for call in (lambda: client.complete(">>>"), lambda: client.chat([])):
        with pytest.raises(LLMError, match="llm.base_url"):
            call()


def test_options_override_the_environment_which_overrides_the_file():
    env = {"LLM_INTERACTION_MODEL": "env-model", "LLM_INTERACTION_MAX_TOKENS": "64"}
    config = llm_section({"model": "file-model", "max_tokens": 8}, env,
                                    overrides={"model": "option-model"})
    assert config.model == "option-model" and config.max_tokens == 64
    with pytest.raises(ValueError, match="LLM_INTERACTION_MAX_TOKENS"):
        llm_section({}, {"LLM_INTERACTION_MAX_TOKENS": "many"})


# ---------------------------------------------------------------------------------------
# OpenAIClient against the in-test server
# ---------------------------------------------------------------------------------------


def test_completion_mode_sends_prompt_stop_temperature_max_tokens_model(server):
    client = client_for(server, temperature=0.2, max_tokens=77)
    result = client.complete(">>> robot.pick('cup')\n", stop=["\n>>> ", "\nUser:"], temperature=0.5)
    assert isinstance(result, Completion)
    assert result.text == "print('hi')" and result.finish_reason == "stop"
    (req,) = server.requests
    assert req["path"] == "/v1/completions"
    sent = req["json"]
    assert sent["prompt"] == ">>> robot.pick('cup')\n"
    assert sent["stop"] == ["\n>>> ", "\nUser:"]
    assert sent["temperature"] == 0.5  # the call's value beats the config's
    assert sent["max_tokens"] == 77  # the config's value
    assert sent["model"] == "test-model"
    assert req["auth"] == "Bearer sk-test"


@pytest.mark.parametrize("kind, field", [("llama.cpp", "grammar"), ("vllm", "guided_grammar")])
def test_the_console_grammar_goes_in_the_field_the_server_takes(server, kind, field):
    grammar = 'root ::= "x"\n'
    client_for(server, endpoint_grammar=kind).complete(">>>", grammar=grammar)
    client_for(server).complete(">>>", grammar=grammar)             # default: none is sent
    assert server.requests[0]["json"][field] == grammar
    assert not {"grammar", "guided_grammar"} & set(server.requests[1]["json"])
    with pytest.raises(ValueError, match="endpoint_grammar"):
        llm_section({"endpoint_grammar": "tgi"}, {})


def test_completion_mode_limits_stop_to_four_and_omits_empty_stop(server):
    client = client_for(server)
    client.complete("p", stop=["a", "b", "", "c", "d", "e"])
    client.complete("p")
    assert server.requests[0]["json"]["stop"] == ["a", "b", "c", "d"]
    assert "stop" not in server.requests[1]["json"]
    assert server.requests[1]["json"]["temperature"] == 0.0


def test_empty_text_is_a_valid_result(server):
    server.text = ""
    result = client_for(server).complete("p")
    assert result.text == ""


def test_chat_mode_complete_sends_system_and_user(server):
    client = client_for(server, mode="chat")
    result = client.complete(
        "  the prompt  \n", system="You drive a robot.", stop=["\n>>>"], max_tokens=9
    )
    assert result.text == "print('hi')"
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["json"]["messages"] == [
        {"role": "system", "content": "You drive a robot."},
        {"role": "user", "content": "  the prompt  \n"},  # nothing stripped
    ]
    assert req["json"]["max_tokens"] == 9 and req["json"]["stop"] == ["\n>>>"]


def test_chat_mode_without_system_and_null_content(server):
    client = client_for(server, mode="chat", stream=False)   # a whole JSON answer
    server.replies.append({"body": {
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "length",
                     "message": {"role": "assistant", "content": None}}]}})
    result = client.complete("hello")
    assert result.text == "" and result.finish_reason == "length"
    assert server.requests[0]["json"]["messages"] == [{"role": "user", "content": "hello"}]


def test_chat_sends_messages_even_in_completion_mode(server):
    client = client_for(server, mode="completion")
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
                {"role": "assistant", "content": "a"}, {"role": "user", "content": "u2"}]
    result = client.chat(messages, temperature=0.9)
    assert result.text == "print('hi')"
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["json"]["messages"] == messages and req["json"]["temperature"] == 0.9


def test_usage_with_cached_tokens(server):
    server.usage = {"prompt_tokens": 1200, "completion_tokens": 40, "total_tokens": 1240,
                    "prompt_tokens_details": {"cached_tokens": 1024}}
    for mode in ("completion", "chat"):
        usage = client_for(server, mode=mode).complete("p").usage
        assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens) == (
            1200,
            40,
            1024,
        )
        assert usage.calls == 1 and not usage.estimated
        assert 0 < usage.wall_s < 5


def test_usage_without_details_has_zero_cached(server):
    server.usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    usage = client_for(server).complete("p").usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens) == (5, 2, 0)
    server.usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7,
                    "prompt_tokens_details": None}
    assert client_for(server).complete("p").usage.cached_tokens == 0


def test_usage_llamacpp_timings_cache_n(server):
    server.extra = {"timings": {"cache_n": 30, "prompt_n": 12, "predicted_n": 3}}
    usage = client_for(server).complete("p").usage
    assert (usage.prompt_tokens, usage.cached_tokens) == (11, 30)
    server.usage = None  # timings only
    usage = client_for(server).complete("p").usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens) == (42, 3, 30)
    assert not usage.estimated


def test_usage_deepseek_prompt_cache_hit_tokens(server):
    server.usage = {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55,
                    "prompt_cache_hit_tokens": 32, "prompt_cache_miss_tokens": 18}
    assert client_for(server).complete("p").usage.cached_tokens == 32


def test_usage_missing_entirely_is_estimated(server):
    server.usage = None
    usage = client_for(server).complete("robot.pick('cup')").usage
    assert usage.estimated and usage.prompt_tokens == estimate_tokens("robot.pick('cup')")
    assert usage.completion_tokens == estimate_tokens("print('hi')")


def test_server_error_once_then_success_via_openai_retries(server):
    server.replies.append(
        {"status": 500, "body": error_body("boom"), "headers": {"retry-after-ms": "10"}}
    )
    result = client_for(server, max_retries=2).complete("p")
    assert result.text == "print('hi')"
    assert len(server.requests) == 2


def test_server_error_exhausting_retries_is_llmerror(server):
    for _ in range(2):
        server.replies.append({"status": 503, "body": error_body("overloaded"),
                               "headers": {"retry-after-ms": "10"}})
    with pytest.raises(LLMError) as info:
        client_for(server, max_retries=1).complete("p")
    assert "503" in str(info.value) and "overloaded" in str(info.value)
    assert info.value.status_code == 503 and len(server.requests) == 2


def test_connection_refused_is_llmerror_quickly():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    client = OpenAIClient(LLMConfig(base_url=url, model="m1", max_retries=0, timeout_s=5))
    start = time.monotonic()
    with pytest.raises(LLMError) as info:
        client.complete("p")
    assert time.monotonic() - start < 3
    msg = str(info.value)
    assert url in msg and "m1" in msg and "refused" in msg.lower()
    assert info.value.__suppress_context__  # raised `from None`: one traceback, not a chain
    assert info.value.endpoint == url and info.value.model == "m1"


def test_slow_server_beyond_timeout_is_llmerror(server):
    server.replies.append({"delay": 3.0})
    client = client_for(server, timeout_s=0.4, max_retries=0)
    start = time.monotonic()
    with pytest.raises(LLMError) as info:
        client.complete("p")
    assert time.monotonic() - start < 2.5
    assert "timeout" in str(info.value).lower() and server.url in str(info.value)


def test_401_and_404_messages(server):
    server.replies.append({"status": 401, "body": error_body("Incorrect API key provided")})
    with pytest.raises(LLMError) as info:
        client_for(server).complete("p")
    assert "401" in str(info.value) and "test-model" in str(info.value)
    assert "sk-test" not in str(info.value)

    server.replies.append(
        {"status": 404, "body": error_body("The model `nope` does not exist", "model_not_found")}
    )
    with pytest.raises(LLMError) as info:
        client_for(server, model="nope").complete("p")
    assert "404" in str(info.value) and "nope" in str(info.value) and server.url in str(info.value)


def test_chat_only_model_in_completion_mode_hints_at_chat_mode(server):
    server.replies.append({"status": 404, "body": error_body(
        "This is a chat model and not supported in the v1/completions endpoint.")})
    with pytest.raises(LLMError, match="LLM_INTERACTION_MODE=chat"):
        client_for(server).complete("p")


def test_base_url_only_works_without_api_key(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    client = OpenAIClient(LLMConfig(base_url=server.url, model="local", max_retries=0))
    assert client.complete("p").text == "print('hi')"


# ---------------------------------------------------------------------------------------
# ScriptedLLM
# ---------------------------------------------------------------------------------------


def test_scripted_returns_responses_in_order_and_records_prompts():
    llm = ScriptedLLM(["first", "second", "third"])
    assert isinstance(llm, LLMClient) and llm.remaining == 3
    a = llm.complete("prompt 1", stop=["\n>>>"], temperature=0.4)
    b = llm.chat(
        [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}], max_tokens=5
    )
    c = llm.complete("prompt 3", system="be brief")
    assert [a.text, b.text, c.text] == ["first", "second", "third"]
    assert llm.prompts[0] == "prompt 1" and llm.prompts[2] == "prompt 3"
    assert "sys" in llm.prompts[1] and "hi" in llm.prompts[1]
    assert llm.calls[0]["stop"] == ("\n>>>",) and llm.calls[0]["temperature"] == 0.4
    assert llm.calls[1]["method"] == "chat" and llm.calls[1]["max_tokens"] == 5
    assert llm.calls[2]["system"] == "be brief"
    assert llm.remaining == 0


def test_scripted_usage_is_estimated():
    llm = ScriptedLLM(["x = 1"])
    usage = llm.complete("robot.pick('cup')").usage
    assert usage.estimated and usage.calls == 1
    assert usage.prompt_tokens == estimate_tokens("robot.pick('cup')") > 0
    assert usage.completion_tokens == estimate_tokens("x = 1") == 3


def test_scripted_cuts_at_stop_like_a_server():
    llm = ScriptedLLM(["a = 1\n>>> b = 2", "c\nUser: d", "keep\n>>> all"])
    assert llm.complete("p", stop=["\nUser:", "\n>>> "]).text == "a = 1"
    assert llm.complete("p", stop=["\nUser:", "\n>>> "]).text == "c"
    assert (
        ScriptedLLM(["keep\n>>> all"], apply_stop=False).complete("p", stop=["\n>>> "]).text
        == "keep\n>>> all"
    )


def test_scripted_can_script_failures():
    llm = ScriptedLLM([LLMError("endpoint down"), "ok"])
    with pytest.raises(LLMError, match="endpoint down"):
        llm.complete("p")
    assert llm.complete("p").text == "ok"


def test_scripted_exhaustion_names_count():
    llm = ScriptedLLM(["only", "two"])
    llm.complete("a")
    llm.complete("b")
    with pytest.raises(ScriptExhausted) as info:
        llm.complete("c")
    assert "2 responses" in str(info.value)
    assert isinstance(info.value, Exception)
    with pytest.raises(ScriptExhausted, match="0 responses"):
        ScriptedLLM([]).chat([{"role": "user", "content": "x"}])


# ---------------------------------------------------------------------------------------
# Usage / TokenLedger
# ---------------------------------------------------------------------------------------


def test_usage_add():
    a = Usage(prompt_tokens=10, completion_tokens=2, cached_tokens=4, calls=1, wall_s=0.5)
    b = Usage(prompt_tokens=1, completion_tokens=1, calls=1, estimated=True, wall_s=0.25)
    c = a + b
    assert (c.prompt_tokens, c.completion_tokens, c.cached_tokens, c.calls) == (11, 3, 4, 2)
    assert c.estimated and c.wall_s == 0.75 and c.total_tokens == 14
    assert sum([a, b]) == c


def test_estimate_tokens_is_deterministic():
    assert estimate_tokens("") == 0
    assert estimate_tokens("robot.pick('cup')") == 8  # robot . pick ( ' cup ' )
    assert estimate_tokens("a_very_long_identifier_name") == 5  # 27 chars: 1 + 26 // 6
    assert estimate_tokens("x  =\n\n  1") == 3  # whitespace is free


def test_ledger_per_interaction_total_and_purpose():
    ledger = TokenLedger()
    ledger.record(Usage(prompt_tokens=100, completion_tokens=10, cached_tokens=50, calls=1))
    ledger.record(Usage(prompt_tokens=20, completion_tokens=5, calls=1), purpose="learn")
    assert ledger.interaction.total_tokens == 135 and ledger.interaction.calls == 2
    ledger.new_interaction()
    assert ledger.interaction == Usage()
    ledger.record(Usage(prompt_tokens=7, completion_tokens=1, calls=1, wall_s=0.5))
    assert ledger.interaction.prompt_tokens == 7 and ledger.interaction.wall_s == 0.5
    total = ledger.total
    assert (total.prompt_tokens, total.completion_tokens, total.cached_tokens, total.calls) == (
        127,
        16,
        50,
        3,
    )
    purposes = ledger.by_purpose()
    assert purposes["interact"].prompt_tokens == 107 and purposes["learn"].prompt_tokens == 20
    assert [p for p, _ in ledger.calls] == ["interact", "learn", "interact"]
    assert [u.prompt_tokens for u in ledger.interactions] == [120, 7]
    # returned values are copies
    ledger.total.prompt_tokens = 0
    ledger.by_purpose()["learn"].prompt_tokens = 0
    assert ledger.total.prompt_tokens == 127 and ledger.by_purpose()["learn"].prompt_tokens == 20


def test_ledger_is_thread_safe():
    ledger = TokenLedger()
    n_threads, per_thread = 16, 500
    barrier = threading.Barrier(n_threads)

    def work(i: int) -> None:
        barrier.wait()
        for _ in range(per_thread):
            ledger.record(Usage(prompt_tokens=3, completion_tokens=1, cached_tokens=2, calls=1),
                          purpose=f"p{i % 2}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n_threads)]
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often, so an unlocked ledger loses updates
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old_interval)
    n = n_threads * per_thread
    total = ledger.total
    assert (total.prompt_tokens, total.completion_tokens, total.cached_tokens, total.calls) == (
        3 * n,
        n,
        2 * n,
        n,
    )
    assert ledger.interaction == total
    assert len(ledger.calls) == n
    assert sum(u.calls for u in ledger.by_purpose().values()) == n


# ---------------------------------------------------------------------------------------
# Streaming: time out on silence, not on length; progress of long calls
# ---------------------------------------------------------------------------------------

from llm_interaction_node.core.llm.progress import (  # noqa: E402
    DONE,
    GENERATE,
    PROMPT,
    LLMProgress,
    ProgressReporter,
)


def test_a_stream_is_requested_with_usage_and_progress(server):
    client_for(server).complete("p")
    sent = server.requests[0]["json"]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert sent["return_progress"] is True          # llama.cpp: prompt_progress chunks
    client_for(server, server_progress=False).complete("p")
    assert "return_progress" not in server.requests[1]["json"]
    client_for(server, stream=False).complete("p")
    assert "stream" not in server.requests[2]["json"]


def test_the_openai_api_is_never_asked_for_llamacpp_progress():
    openai_api = OpenAIClient(LLMConfig(api_key="sk-x"))
    assert openai_api.config.endpoint.startswith("https://api.openai.com")
    assert not openai_api._asks_progress()
    assert OpenAIClient(LLMConfig(base_url="http://localhost:8080/v1"))._asks_progress()


@pytest.mark.parametrize("mode", ["completion", "chat"])
def test_a_slow_answer_succeeds_while_tokens_keep_coming(server, mode):
    """1.65 s of tokens, 0.15 s apart: longer than timeout_s (1 s), never silent for 0.8 s."""
    server.text = "put_first_on_second('red block', 'blue bowl')"     # 12 chunks of 4 characters
    server.replies.append({"gap": 0.15})
    client = client_for(server, mode=mode, timeout_s=1.0, silence_timeout_s=0.8)
    start = time.monotonic()
    result = client.complete("p")
    assert time.monotonic() - start > 1.5
    assert result.text == server.text and result.finish_reason == "stop"
    assert result.usage.completion_tokens == 3 and not result.usage.estimated   # the usage chunk


def test_silence_after_the_first_tokens_fails_with_a_clear_error(server):
    server.replies.append({"stall_after": 2, "stall_s": 5.0})
    client = client_for(server, timeout_s=5.0, silence_timeout_s=0.5)
    start = time.monotonic()
    with pytest.raises(LLMError) as info:
        client.complete("p")
    assert time.monotonic() - start < 2.0
    message = str(info.value)
    assert "no token for 0.5 s" in message and "silence_timeout_s" in message
    assert server.url in message and info.value.wall_s >= 0.5


def test_no_first_token_within_timeout_s_says_what_to_raise(server):
    server.replies.append({"first_token_delay": 5.0})
    client = client_for(server, timeout_s=0.5, silence_timeout_s=10.0)
    start = time.monotonic()
    with pytest.raises(LLMError) as info:
        client.complete("p")
    assert time.monotonic() - start < 2.0
    assert "no first token within 0.5 s" in str(info.value)
    assert "LLM_INTERACTION_TIMEOUT_S" in str(info.value)


def test_prompt_progress_is_reported_and_keeps_a_long_prompt_alive(server):
    """The server evaluates for 1.6 s before the first token (timeout_s is 1 s) but reports
    every 0.4 s: the call succeeds, and the listener hears prompt, generation, done."""
    server.replies.append({"progress": [(512, 2048), (1024, 2048), (1536, 2048), (2048, 2048)],
                           "gap": 0.4})
    client = client_for(server, timeout_s=1.0, silence_timeout_s=1.0)
    heard: list[LLMProgress] = []
    client.progress = heard.append
    assert client.complete("p").text == "print('hi')"
    prompt = [e for e in heard if e.phase == PROMPT]
    assert [(e.done, e.total) for e in prompt] == [
        (512, 2048),
        (1024, 2048),
        (1536, 2048),
        (2048, 2048),
    ]
    assert prompt[-1].elapsed_s > 1.4
    assert [e.done for e in heard if e.phase == GENERATE] == [1, 2, 3]     # "print('hi')": 3 chunks
    assert heard[-1].phase == DONE and not heard[-1].failed
    assert "2048 of 2048 tokens" in prompt[-1].describe()


def test_a_failed_call_tells_the_listener_it_ended(server):
    server.replies.append({"status": 500, "body": error_body("boom")})
    client = client_for(server)
    heard: list[LLMProgress] = []
    client.progress = heard.append
    with pytest.raises(LLMError):
        client.complete("p")
    assert [e.phase for e in heard] == [DONE] and heard[0].failed


def test_a_failing_progress_listener_does_not_break_the_call(server):
    client = client_for(server)

    def broken(_event):
        raise RuntimeError("display gone")
    client.progress = broken
    assert client.complete("p").text == "print('hi')"


def test_progress_reporter_is_quiet_for_short_calls_and_throttles_long_ones():
    now = [0.0]
    lines: list[str] = []
    reporter = ProgressReporter(lines.append, after_s=3.0, every_s=5.0, clock=lambda: now[0])
    reporter(LLMProgress(PROMPT, 100, 400, elapsed_s=1.0))
    reporter(LLMProgress(DONE, elapsed_s=1.5))
    assert lines == []                                    # a quick call says nothing
    for t, done in ((3.5, 200), (6.0, 300), (9.0, 400)):
        now[0] = t
        reporter(LLMProgress(PROMPT, done, 400, elapsed_s=t))
    assert lines == ["the model is reading the prompt: 200 of 400 tokens, 4 s",
                     "the model is reading the prompt: 400 of 400 tokens, 9 s"]
    reporter(LLMProgress(DONE, elapsed_s=9.5))
    assert lines[-1] == "the model answered after 10 s"
    reporter(LLMProgress(DONE, elapsed_s=0.1))            # a new call that was not reported
    assert len(lines) == 3


def test_config_stream_and_silence_timeout(monkeypatch):
    cfg = llm_section({"stream": "false", "silence_timeout_s": "12"}, env={})
    assert cfg.stream is False and cfg.silence_timeout_s == 12.0
    cfg = llm_section({}, env={"LLM_INTERACTION_STREAM": "no",
                                          "LLM_INTERACTION_SILENCE_TIMEOUT_S": "3"})
    assert cfg.stream is False and cfg.silence_timeout_s == 3.0
    assert LLMConfig().timeout_s == 300.0 and LLMConfig().stream
    with pytest.raises(ValueError, match="silence_timeout_s"):
        LLMConfig(silence_timeout_s=0)
    with pytest.raises(ValueError, match="stream"):
        LLMConfig(stream="maybe")
    assert "30 s of silence" in LLMConfig().describe()


# ---------------------------------------------------------------------------------------
# Server errors told as what they are (issue 21 item 8)
# ---------------------------------------------------------------------------------------

LLAMA_CPP_CONTEXT = {"error": {"code": 400, "type": "exceed_context_size_error",
                               "message": "the request exceeds the available context size, "
                                          "try increasing it", "n_prompt_tokens": 4520,
                               "n_ctx": 4096}}
VLLM_CONTEXT = error_body("This model's maximum context length is 4096 tokens. However, you "
                          "requested 5032 tokens (4520 in the messages, 512 in the completion). "
                          "Please reduce the length of the messages or completion.")


def said_for(error: LLMError) -> str:
    from llm_interaction_node.core.llm.errors import spoken
    return spoken(error, "bring me the juice")


@pytest.mark.parametrize("body, size, needed", [(LLAMA_CPP_CONTEXT, 4096, 4520),
                                                (VLLM_CONTEXT, 4096, 5032)])
def test_a_context_length_refusal_says_the_prompt_is_too_long_and_what_size_is_needed(
        server, body, size, needed):
    from llm_interaction_node.core.llm.errors import Failure
    server.replies.append({"status": 400, "body": body})
    with pytest.raises(LLMError) as info:
        client_for(server).complete("p")
    error = info.value
    assert error.failure is Failure.CONTEXT_LENGTH
    assert (error.context_size, error.needed_tokens) == (size, needed)
    assert "too long for the server's context of 4096 tokens" in str(error)
    assert "at least" in str(error) and "-c 6144" in str(error)
    sentence = said_for(error)
    assert "cannot reach" not in sentence
    assert "too long" in sentence and "4096 tokens" in sentence and str(needed) in sentence


@pytest.mark.parametrize("status, body, model, failure, words", [
    (401, error_body("Incorrect API key provided"), "test-model", "auth", "refused my API key"),
    (403, error_body("not allowed"), "test-model", "auth", "refused my API key"),
    (404, error_body("The model `nope` does not exist", "model_not_found"), "nope",
     "model_not_found", "does not have the model 'nope'"),
    (429, error_body("slow down"), "test-model", "rate_limited", "rate-limiting"),
    (500, error_body("boom"), "test-model", "server_error", "internal error"),
])
def test_each_server_error_has_its_own_sentence(server, status, body, model, failure, words):
    server.replies.append({"status": status, "body": body})
    with pytest.raises(LLMError) as info:
        client_for(server, model=model).complete("p")
    assert info.value.failure == failure
    sentence = said_for(info.value)
    assert words in sentence and "cannot reach" not in sentence
    assert 'did not act on "bring me the juice"' in sentence


def test_a_timeout_and_an_unreachable_server_are_told_apart(server):
    server.replies.append({"first_token_delay": 3})
    with pytest.raises(LLMError) as info:
        client_for(server, timeout_s=0.5).complete("p")
    assert info.value.failure == "timeout" and "llm.timeout_s" in str(info.value)
    assert "did not answer in time" in said_for(info.value)
    with socket.socket() as sock:                 # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(LLMError) as info:
        OpenAIClient(LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", api_key="k",
                               max_retries=0, timeout_s=2)).complete("p")
    assert info.value.failure == "unreachable"
    assert "cannot reach my language model" in said_for(info.value)

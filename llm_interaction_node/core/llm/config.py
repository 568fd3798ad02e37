"""LLMConfig: where the LLM is and how to call it (the ``llm`` settings section).

Read like every section by :mod:`..config` (``load_section``): defaults < OPENAI_BASE_URL /
OPENAI_API_KEY < the file or ROS parameters < the ``LLM_INTERACTION_*`` variable of each
field (its ``env`` metadata) < command-line options."""
from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from ..settings.config import check_section, environment_variables, setting

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
Mode = Literal["completion", "chat"]
MODES = typing.get_args(Mode)
EndpointGrammar = Literal["none", "llama.cpp", "vllm"]
# how an endpoint takes the console grammar (GBNF) in the request body, per server kind
ENDPOINT_GRAMMAR_FIELDS = {"llama.cpp": "grammar", "vllm": "guided_grammar"}


def _http_url(value: str) -> str | None:
    if not value.startswith(("http://", "https://")):
        return "must be an http(s) URL, e.g. http://localhost:8000/v1"
    return None


def _model_name(value: str) -> str | None:
    return None if value.strip() else "must be a non-empty model name"


def _embedded_model(value: str) -> str | None:
    from .models import MODELS  # the embedded models (no llama.cpp import)
    return None if value in MODELS else f"is not an embedded model; use one of {', '.join(MODELS)}"


@dataclass
class LLMConfig:
    """The ``llm`` section of the settings (a field: one line with default and description)."""

    base_url: str | None = setting(
        None,
        "OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (none: the embedded model)",
        env="LLM_INTERACTION_BASE_URL",
        fallback_env="OPENAI_BASE_URL",
        check=_http_url,
    )
    model: str = setting("gpt-4o-mini", "model name at the endpoint", env="LLM_INTERACTION_MODEL",
                         check=_model_name)
    api_key: str | None = setting(None, "API key (better: LLM_INTERACTION_API_KEY)", secret=True,
                                  env="LLM_INTERACTION_API_KEY", fallback_env="OPENAI_API_KEY",
                                  repr=False)   # never in repr / logs / ROS parameters
    mode: Mode = setting(
        "completion", "'completion' (raw console continuation, base models and the embedded "
        "one; needs a /completions endpoint) or 'chat' (chat-only models)",
        env="LLM_INTERACTION_MODE")
    temperature: float = setting(0.0, "sampling temperature", env="LLM_INTERACTION_TEMPERATURE",
                                 minimum=0.0, maximum=2.0)
    max_tokens: int = setting(512, "completion token limit per call (the server's context must "
                              "hold the prompt and this many tokens)",
                              env="LLM_INTERACTION_MAX_TOKENS", minimum=1)
    # A first console prompt (4-4.6k tokens) took 113-147 s on a 2-core llama.cpp server before
    # its first token: 300 s leaves room for half that speed (docs/benchmarks.md "Long LLM calls").
    timeout_s: float = setting(300.0, "longest wait for the first token of an answer (the server "
                               "evaluates the prompt); without streaming: for the whole answer",
                               env="LLM_INTERACTION_TIMEOUT_S", above=0.0)
    stream: bool = setting(True, "stream answers from an endpoint: once tokens come, the call "
                           "fails only on silence (silence_timeout_s), not on its length",
                           env="LLM_INTERACTION_STREAM")
    silence_timeout_s: float = setting(30.0, "streaming: longest gap between two tokens once "
                                       "the answer has started",
                                       env="LLM_INTERACTION_SILENCE_TIMEOUT_S", above=0.0)
    server_progress: bool = setting(True, "ask the endpoint for prompt progress while it "
                                    "evaluates (llama.cpp's return_progress; never sent to "
                                    "api.openai.com); off for servers that refuse unknown fields")
    max_retries: int = setting(2, "retries of failed LLM calls (the openai client's)",
                               env="LLM_INTERACTION_MAX_RETRIES", minimum=0)
    local: bool = setting(True, "with no endpoint, the embedded model answers (false: no LLM, "
                          "the command says what to set)", env="LLM_INTERACTION_LOCAL")
    local_model: str = setting("qwen2.5-coder-1.5b", "embedded model when no endpoint is set: "
                               "qwen2.5-coder-1.5b (default) or gemma-3-270m (tiny, plumbing)",
                               env="LLM_INTERACTION_LOCAL_MODEL", check=_embedded_model)
    local_mode: Literal["", "completion", "chat"] = setting(
        "", "prompt mode of the embedded model: completion or chat ('' = the mode measured "
        "best for that model)", env="LLM_INTERACTION_LOCAL_MODE")
    local_draft: int = setting(4, "prompt-lookup draft tokens per step of the embedded model "
                               "(greedy decoding, same output; 0 = off)",
                               env="LLM_INTERACTION_LOCAL_DRAFT", minimum=0)
    local_grammar: bool = setting(True, "the embedded model decodes console inputs with the "
                                  "console grammar (known names, scene objects)",
                                  env="LLM_INTERACTION_LOCAL_GRAMMAR")
    endpoint_grammar: EndpointGrammar = setting(
        "none", "pass the console grammar to the endpoint: 'llama.cpp' (llama-server, "
        "'grammar'), 'vllm' ('guided_grammar'), 'none' (inputs are checked before they run "
        "and asked again)", env="LLM_INTERACTION_ENDPOINT_GRAMMAR")

    def __post_init__(self) -> None:
        check_section(self, "llm")

    @property
    def is_configured(self) -> bool:
        """An endpoint is known: base_url set, or an api key set (then the default OpenAI \
endpoint)."""
        return bool(self.base_url) or bool(self.api_key)

    @property
    def endpoint(self) -> str:
        """The URL requests go to (the OpenAI default when base_url is unset)."""
        return self.base_url or OPENAI_DEFAULT_BASE_URL

    def describe(self) -> str:
        """One line for logs, never printing the key (nor user:password in the URL)."""
        where = _redact_url(self.endpoint) if self.is_configured else "no endpoint configured"
        key = "api key set" if self.api_key else "no api key"
        return (
            f"LLM {self.mode} mode, model {self.model!r} at {where} ({key}); "
            f"temperature {self.temperature:g}, max_tokens {self.max_tokens}, "
            f"timeout {self.timeout_s:g} s"
            + (f" to the first token, {self.silence_timeout_s:g} s of silence (streaming)"
               if self.stream else "")
            + f", max_retries {self.max_retries}"
        )


def _redact_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, f"***@{host}", parts.path, parts.query, parts.fragment))


# field name -> the environment variable that sets it (from the fields' metadata)
ENV_VARS: dict[str, str] = environment_variables(LLMConfig)

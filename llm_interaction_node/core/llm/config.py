"""LLMConfig: where the LLM is and how to call it (config file + environment)."""
from __future__ import annotations

import math
import os
import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from ..config import coerce, setting

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
MODES = ("completion", "chat")

# field name -> environment variable that overrides the config-file value.
# LLM_INTERACTION_TIMEOUT_S and LLM_INTERACTION_MAX_RETRIES are additions to the brief.
ENV_VARS: dict[str, str] = {
    "base_url": "LLM_INTERACTION_BASE_URL",
    "model": "LLM_INTERACTION_MODEL",
    "api_key": "LLM_INTERACTION_API_KEY",
    "mode": "LLM_INTERACTION_MODE",
    "temperature": "LLM_INTERACTION_TEMPERATURE",
    "max_tokens": "LLM_INTERACTION_MAX_TOKENS",
    "timeout_s": "LLM_INTERACTION_TIMEOUT_S",
    "max_retries": "LLM_INTERACTION_MAX_RETRIES",
    "stream": "LLM_INTERACTION_STREAM",
    "silence_timeout_s": "LLM_INTERACTION_SILENCE_TIMEOUT_S",
    "local_model": "LLM_INTERACTION_LOCAL_MODEL",
    "local_mode": "LLM_INTERACTION_LOCAL_MODE",
    "local_draft": "LLM_INTERACTION_LOCAL_DRAFT",
    "local_grammar": "LLM_INTERACTION_LOCAL_GRAMMAR",
    "endpoint_grammar": "LLM_INTERACTION_ENDPOINT_GRAMMAR",
}
# how an endpoint takes the console grammar (GBNF) in the request body, per server kind
ENDPOINT_GRAMMAR_FIELDS = {"llama.cpp": "grammar", "vllm": "guided_grammar"}
# Lowest priority: used only when neither the LLM_INTERACTION_* variable nor the file sets the field.
FALLBACK_ENV_VARS: dict[str, str] = {
    "base_url": "OPENAI_BASE_URL",
    "api_key": "OPENAI_API_KEY",
}


@dataclass
class LLMConfig:
    """The ``llm`` section of the settings (a field: one line with default and description)."""

    base_url: str | None = setting(None, "OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 "
                                   "(none: the embedded model)")
    model: str = setting("gpt-4o-mini", "model name at the endpoint")
    api_key: str | None = setting(None, "API key (better: LLM_INTERACTION_API_KEY)", secret=True,
                                  repr=False)   # never in repr / logs / ROS parameters
    mode: Literal["completion", "chat"] = setting(
        "completion", "'completion' (raw console continuation, base models and the embedded "
        "one) or 'chat' (chat-only models)")
    temperature: float = setting(0.0, "sampling temperature")
    max_tokens: int = setting(512, "completion token limit per call")
    # A first console prompt (4-4.6k tokens) took 113-147 s on a 2-core llama.cpp server before
    # its first token: 300 s leaves room for half that speed (docs/benchmarks.md "Long LLM calls").
    timeout_s: float = setting(300.0, "longest wait for the first token of an answer (the server "
                               "evaluates the prompt); without streaming: for the whole answer")
    stream: bool = setting(True, "stream answers from an endpoint: once tokens come, the call "
                           "fails only on silence (silence_timeout_s), not on its length")
    silence_timeout_s: float = setting(30.0, "streaming: longest gap between two tokens once "
                                       "the answer has started")
    server_progress: bool = setting(True, "ask the endpoint for prompt progress while it "
                                    "evaluates (llama.cpp's return_progress; never sent to "
                                    "api.openai.com); off for servers that refuse unknown fields")
    max_retries: int = setting(2, "retries of failed LLM calls (the openai client's)")
    local_model: str = setting("qwen2.5-coder-1.5b", "embedded model when no endpoint is set: "
                               "qwen2.5-coder-1.5b (default) or gemma-3-270m (tiny, plumbing)")
    local_mode: str = setting("", "prompt mode of the embedded model: completion or chat "
                              "('' = the mode measured best for that model)")
    local_draft: int = setting(4, "prompt-lookup draft tokens per step of the embedded model "
                               "(greedy decoding, same output; 0 = off)")
    local_grammar: bool = setting(True, "the embedded model decodes console inputs with the "
                                  "console grammar (known names, scene objects)")
    endpoint_grammar: Literal["none", "llama.cpp", "vllm"] = setting(
        "none", "pass the console grammar to the endpoint: 'llama.cpp' (llama-server, "
        "'grammar'), 'vllm' ('guided_grammar'), 'none' (inputs are checked before they run "
        "and asked again)")

    def __post_init__(self) -> None:
        _validate(self, lambda name: f"LLMConfig.{name}")

    @classmethod
    def from_sources(cls, values: Mapping | None = None, env: Mapping[str, str] = os.environ,
                     overrides: Mapping | None = None) -> "LLMConfig":
        """Config-file values (keys = field names) overridden by environment variables.

        Priority, highest first: ``overrides`` (command-line options), LLM_INTERACTION_*
        variables (see ENV_VARS), the config-file ``values``, then OPENAI_BASE_URL /
        OPENAI_API_KEY as fallbacks. ``None`` and empty-string values count as unset.
        Strings are converted to numbers; invalid values (unknown key, mode, non-numbers,
        out of range) raise ValueError naming the variable or key they came from.
        """
        values = dict(values or {})
        overrides = dict(overrides or {})
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(values) - set(known)) or sorted(set(overrides) - set(known))
        if unknown:
            raise ValueError(f"unknown LLM config key(s) {unknown}; valid keys are {known}")

        picked: dict[str, Any] = {}
        source: dict[str, str] = {}
        for name in known:
            env_name = ENV_VARS.get(name)
            fallback = FALLBACK_ENV_VARS.get(name)
            if _set(overrides.get(name)):
                picked[name], source[name] = overrides[name], f"option {name}"
            elif env_name and _set(env.get(env_name)):
                picked[name], source[name] = env.get(env_name), f"environment variable {env_name}"
            elif _set(values.get(name)):
                picked[name], source[name] = values[name], f"config key '{name}'"
            elif fallback and _set(env.get(fallback)):
                picked[name], source[name] = env.get(fallback), f"environment variable {fallback}"

        converted: dict[str, Any] = {}
        for name, raw in picked.items():
            converted[name] = _convert(name, raw, source[name])
        config = cls.__new__(cls)
        for f in fields(cls):
            setattr(config, f.name, converted.get(f.name, f.default))
        _validate(config, lambda name: source.get(name, f"LLMConfig.{name}"))
        return config

    @property
    def is_configured(self) -> bool:
        """An endpoint is known: base_url set, or an api key set (then the default OpenAI endpoint)."""
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


def _set(value: Any) -> bool:
    return value is not None and not (isinstance(value, str) and value.strip() == "")


def _convert(name: str, raw: Any, source: str) -> Any:
    """A raw value (file, environment, option) as the field's type; text is stripped and the
    mode lower-cased (the mode's choices are checked by _validate, with the fix)."""
    kind = typing.get_type_hints(LLMConfig)[name]
    if isinstance(raw, str):
        raw = raw.strip().lower() if name == "mode" else raw.strip()
    if name == "mode" or kind in (str, str | None):
        return str(raw)
    return coerce(raw, kind, source)


def _validate(config: LLMConfig, where) -> None:
    if config.mode not in MODES:
        raise ValueError(
            f"{where('mode')}={config.mode!r} is invalid: use 'completion' (raw console continuation, "
            "needs a /completions endpoint) or 'chat' (chat models)"
        )
    if not isinstance(config.model, str) or not config.model.strip():
        raise ValueError(f"{where('model')} must be a non-empty model name")
    if config.base_url is not None:
        if not isinstance(config.base_url, str) or not config.base_url.startswith(("http://", "https://")):
            raise ValueError(
                f"{where('base_url')}={config.base_url!r} must be an http(s) URL, e.g. http://localhost:8000/v1"
            )
    if config.api_key is not None and not isinstance(config.api_key, str):
        raise ValueError(f"{where('api_key')} must be a string")
    for name, low, high in (("temperature", 0.0, 2.0), ("timeout_s", 0.0, math.inf),
                            ("silence_timeout_s", 0.0, math.inf)):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise ValueError(f"{where(name)}={value!r} is not a number")
        if name == "temperature" and not low <= value <= high:
            raise ValueError(f"{where(name)}={value!r} is out of range: temperature must be within 0..2")
        if name.endswith("timeout_s") and not value > 0:
            raise ValueError(f"{where(name)}={value!r} must be > 0 seconds")
    for name, low in (("max_tokens", 1), ("max_retries", 0), ("local_draft", 0)):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where(name)}={value!r} is not a whole number")
        if value < low:
            raise ValueError(f"{where(name)}={value!r} must be >= {low}")
    from .models import MODELS       # the embedded models (no llama.cpp import)
    if config.local_model not in MODELS:
        raise ValueError(f"{where('local_model')}={config.local_model!r} is not an embedded model; "
                         f"use one of {', '.join(MODELS)}")
    if config.endpoint_grammar not in ("none", *ENDPOINT_GRAMMAR_FIELDS):
        raise ValueError(f"{where('endpoint_grammar')}={config.endpoint_grammar!r} is invalid: "
                         "use 'none', 'llama.cpp' or 'vllm'")
    if not isinstance(config.local_grammar, bool):
        raise ValueError(f"{where('local_grammar')}={config.local_grammar!r} is not true or false")
    for name in ("stream", "server_progress"):
        if not isinstance(getattr(config, name), bool):
            raise ValueError(f"{where(name)}={getattr(config, name)!r} must be true or false")
    if config.local_mode not in ("", *MODES):
        raise ValueError(f"{where('local_mode')}={config.local_mode!r} is invalid: use '', "
                         "'completion' or 'chat'")


def _redact_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, f"***@{host}", parts.path, parts.query, parts.fragment))

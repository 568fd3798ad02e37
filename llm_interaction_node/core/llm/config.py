"""LLMConfig: where the LLM is and how to call it (config file + environment)."""
from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

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
}
# Lowest priority: used only when neither the LLM_INTERACTION_* variable nor the file sets the field.
FALLBACK_ENV_VARS: dict[str, str] = {
    "base_url": "OPENAI_BASE_URL",
    "api_key": "OPENAI_API_KEY",
}


@dataclass
class LLMConfig:
    base_url: str | None = None
    model: str = "gpt-4o-mini"
    api_key: str | None = field(default=None, repr=False)  # never in repr / logs
    mode: Literal["completion", "chat"] = "completion"  # completion: raw console continuation; chat: chat models
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    max_retries: int = 2

    def __post_init__(self) -> None:
        _validate(self, lambda name: f"LLMConfig.{name}")

    @classmethod
    def from_sources(cls, values: Mapping | None = None, env: Mapping[str, str] = os.environ) -> "LLMConfig":
        """Config-file values (keys = field names) overridden by environment variables.

        Priority, highest first: LLM_INTERACTION_* variables (see ENV_VARS), the
        config-file ``values``, then OPENAI_BASE_URL / OPENAI_API_KEY as fallbacks.
        ``None`` and empty-string values count as unset. Strings are converted to
        numbers; invalid values (unknown key, mode, non-numbers, out of range)
        raise ValueError naming the variable or key they came from.
        """
        values = dict(values or {})
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"unknown LLM config key(s) {unknown}; valid keys are {known}")

        picked: dict[str, Any] = {}
        source: dict[str, str] = {}
        for name in known:
            env_name = ENV_VARS.get(name)
            fallback = FALLBACK_ENV_VARS.get(name)
            if env_name and _set(env.get(env_name)):
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
            f"timeout {self.timeout_s:g} s, max_retries {self.max_retries}"
        )


def _set(value: Any) -> bool:
    return value is not None and not (isinstance(value, str) and value.strip() == "")


def _convert(name: str, raw: Any, source: str) -> Any:
    if name in ("temperature", "timeout_s"):
        if isinstance(raw, bool):
            raise ValueError(f"{source}={raw!r} is not a number")
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise ValueError(f"{source}={raw!r} is not a number") from None
    if name in ("max_tokens", "max_retries"):
        if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
            raise ValueError(f"{source}={raw!r} is not a whole number")
        try:
            return int(str(raw).strip()) if isinstance(raw, str) else int(raw)
        except (TypeError, ValueError):
            raise ValueError(f"{source}={raw!r} is not a whole number") from None
    if name == "mode":
        return str(raw).strip().lower()
    return str(raw).strip()


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
    for name, low, high in (("temperature", 0.0, 2.0), ("timeout_s", 0.0, math.inf)):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise ValueError(f"{where(name)}={value!r} is not a number")
        if name == "temperature" and not low <= value <= high:
            raise ValueError(f"{where(name)}={value!r} is out of range: temperature must be within 0..2")
        if name == "timeout_s" and not value > 0:
            raise ValueError(f"{where(name)}={value!r} must be > 0 seconds")
    for name, low in (("max_tokens", 1), ("max_retries", 0)):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where(name)}={value!r} is not a whole number")
        if value < low:
            raise ValueError(f"{where(name)}={value!r} must be >= {low}")


def _redact_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, f"***@{host}", parts.path, parts.query, parts.fragment))

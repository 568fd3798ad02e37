"""The ``--llm-*`` options that ``chat``, ``run`` and ``eval`` share: the same names, the same
meaning, and the one precedence (they beat the environment, which beats the file).

Each option sets one field of the ``llm`` settings section: :func:`llm_overrides` gives the
dotted overrides for :func:`~.settings.load_settings`; ``run`` hands the same values to the
interaction node as its environment (:func:`llm_environment`), since the node reads the
environment over its ROS parameters.
"""
from __future__ import annotations

import argparse
import os
import typing
from collections.abc import Mapping
from typing import Any

from .core.llm.config import ENV_VARS, Mode

# option dest -> llm field
FIELDS = {"llm_base_url": "base_url", "llm_model": "model", "llm_mode": "mode",
          "llm_timeout": "timeout_s", "llm_max_tokens": "max_tokens"}


def add_llm_options(parser: argparse.ArgumentParser,
                    aliases: Mapping[str, tuple[str, ...]] | None = None) -> None:
    """Add the ``--llm-*`` options (``aliases``: older names kept, e.g. eval's ``--llm``)."""
    aliases = aliases or {}
    group = parser.add_argument_group("LLM (options beat LLM_INTERACTION_* variables, which "
                                      "beat the settings file)")

    def option(dest: str, *flags: str, **kwargs: Any) -> None:
        group.add_argument(*flags, *aliases.get(dest, ()), dest=dest, **kwargs)

    option("llm_base_url", "--llm-base-url", metavar="URL",
           help="OpenAI-compatible endpoint, e.g. http://localhost:8080/v1 (llm.base_url)")
    option("llm_model", "--llm-model", metavar="NAME", help="model name at the endpoint "
           "(llm.model)")
    option("llm_mode", "--llm-mode", choices=typing.get_args(Mode),
           help="completion (raw console continuation) or chat (chat-only models) (llm.mode)")
    option("llm_api_key_env", "--llm-api-key-env", metavar="VAR",
           help="read the API key from this environment variable (llm.api_key; the key "
           "itself is never an option)")
    option("llm_timeout", "--llm-timeout", type=float, metavar="S",
           help="longest wait for the first token of an answer (llm.timeout_s)")
    option("llm_max_tokens", "--llm-max-tokens", type=int, metavar="N",
           help="completion token limit per call (llm.max_tokens)")


def llm_values(args: argparse.Namespace, env: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """llm field -> value of the options given (ValueError: the key's variable is unset)."""
    values = {name: getattr(args, dest) for dest, name in FIELDS.items()
              if getattr(args, dest, None) is not None}
    variable = getattr(args, "llm_api_key_env", None)
    if variable:
        key = env.get(variable, "").strip()
        if not key:
            raise ValueError(f"--llm-api-key-env {variable}: that environment variable is not set")
        values["api_key"] = key
    return values


def llm_overrides(args: argparse.Namespace, env: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """The options as dotted settings overrides (``{'llm.model': ...}``)."""
    return {f"llm.{name}": value for name, value in llm_values(args, env).items()}


def llm_environment(
    args: argparse.Namespace, env: Mapping[str, str] = os.environ
) -> dict[str, str]:
    """``env`` with the options written into their ``LLM_INTERACTION_*`` variables: what a
    node process gets, so the options beat both its params file and the caller's variables."""
    out = dict(env)
    for name, value in llm_values(args, env).items():
        out[ENV_VARS[name]] = str(value)
    return out


def endpoint_line(config) -> str:
    """The endpoint in use, for the first line a command prints (an LLMConfig)."""
    if config.is_configured:
        return f"LLM: {config.describe()}"
    if config.local:
        return (f"LLM: no endpoint set (llm.base_url): the embedded model {config.local_model} "
                "answers")
    return "LLM: no endpoint set (llm.base_url) and the embedded model is off (llm.local)"

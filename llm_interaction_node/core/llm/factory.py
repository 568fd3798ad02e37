"""Which LLM client answers: the one place that chooses the backend from an LLMConfig.

An endpoint (``base_url`` or an API key) -> :class:`~.openai_client.OpenAIClient`; none ->
the embedded llama.cpp model (:mod:`.local`) unless disabled (``local=False`` or the setting
``llm.local``, ``LLM_INTERACTION_LOCAL=0``) or not installed; otherwise \
:class:`LLMNotConfigured`, or with
``required=False`` a :class:`~.no_llm.NoLLM` that fails every call with the fix (a node keeps
running and tells its user).
"""
from __future__ import annotations

from .base import LLMClient
from .config import LLMConfig
from .errors import LLMNotConfigured
from .no_llm import NoLLM

NOT_CONFIGURED = "neither base_url nor an API key is set"


def make_client(config: LLMConfig, local: bool | None = None, required: bool = True) -> LLMClient:
    """The client for ``config`` (see the module docstring)."""
    if config.is_configured:
        from .openai_client import OpenAIClient  # imports openai (~0.5 s): only when used
        return OpenAIClient(config)
    if local is None:
        local = config.local
    reason = NOT_CONFIGURED
    if local:
        from .local import LocalLlamaClient, local_available
        if local_available(config.local_model):
            return LocalLlamaClient(config, model=config.local_model,
                                    mode=config.local_mode or None)
        reason = f"{NOT_CONFIGURED} and the embedded model is not installed"
    if required:
        raise LLMNotConfigured(NOT_CONFIGURED)
    return NoLLM(config, reason)

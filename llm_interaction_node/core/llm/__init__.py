"""LLM client layer: configuration, the request every backend executes, the client factory, the
OpenAI-compatible client, NoLLM, the scripted stand-in, token accounting, and the start-up
warm-up of a stateful model in the background (:mod:`.warmup`, not imported here)."""
from .base import MAX_STOP_SEQUENCES, Backend, Completion, LLMClient, LLMRequest, normalize_stop
from .config import ENV_VARS, OPENAI_DEFAULT_BASE_URL, LLMConfig
from .errors import LLMError, LLMNotConfigured
from .factory import make_client
from .no_llm import NoLLM
from .scripted import ScriptedLLM, ScriptExhausted, render_chat
from .usage import TokenLedger, Usage, estimate_tokens


def __getattr__(name: str):
    """The OpenAI-compatible client on first use: importing the openai package takes ~0.5 s,
    which a process that never calls an endpoint (the memory commands, a node on the embedded
    model) need not pay."""
    if name in ("OpenAIClient", "usage_from_response"):
        from . import openai_client
        return getattr(openai_client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Backend",
    "Completion",
    "ENV_VARS",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "LLMNotConfigured",
    "LLMRequest",
    "MAX_STOP_SEQUENCES",
    "NoLLM",
    "OPENAI_DEFAULT_BASE_URL",
    "OpenAIClient",
    "ScriptExhausted",
    "ScriptedLLM",
    "TokenLedger",
    "Usage",
    "estimate_tokens",
    "make_client",
    "normalize_stop",
    "render_chat",
    "usage_from_response",
]

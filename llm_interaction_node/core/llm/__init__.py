"""LLM client layer: configuration, the client factory, the OpenAI-compatible client, NoLLM, the
scripted stand-in, token accounting."""
from .base import MAX_STOP_SEQUENCES, Completion, LLMClient, normalize_stop
from .config import ENV_VARS, OPENAI_DEFAULT_BASE_URL, LLMConfig
from .errors import LLMError, LLMNotConfigured
from .factory import make_client
from .no_llm import NoLLM
from .openai_client import OpenAIClient, usage_from_response
from .scripted import ScriptedLLM, ScriptExhausted, render_chat
from .usage import TokenLedger, Usage, estimate_tokens

__all__ = [
    "Completion",
    "ENV_VARS",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "LLMNotConfigured",
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

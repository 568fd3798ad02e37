"""NoLLM: the backend when no LLM is available, so a long-running node keeps serving.

Every call raises an :class:`~.errors.LLMError` that says what to set; the agent turns it
into "Sorry, I cannot reach my language model right now." and the user is told, instead of
the process dying at start.
"""
from __future__ import annotations

from .base import Backend
from .config import LLMConfig
from .errors import LLMError


class NoLLM(Backend):
    """An LLMClient whose every call fails with ``reason`` and the fix."""

    def __init__(self, config: LLMConfig, reason: str):
        self.config = config
        self.reason = reason

    def describe(self) -> str:
        return f"no LLM ({self.reason})"

    def _fail(self, *args, **kwargs):
        raise LLMError(f"no LLM is available ({self.reason}); set llm.base_url (or "
                       "LLM_INTERACTION_BASE_URL / OPENAI_API_KEY)")

    execute = chat = _fail

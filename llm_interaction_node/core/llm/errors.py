"""The two ways talking to an LLM can fail before any text comes back."""
from __future__ import annotations


class LLMNotConfigured(RuntimeError):
    """No LLM endpoint is known: neither a base_url nor an API key was given.

    ``str()`` is a complete how-to: which environment variables / config keys to
    set, with examples for OpenAI, a vLLM / llama.cpp server and Ollama.
    """

    def __init__(self, detail: str = "") -> None:
        lead = "No LLM endpoint is configured" + (f" ({detail})" if detail else "") + "."
        super().__init__(
            f"{lead}\n"
            "Set environment variables (they override the `llm:` config-file keys base_url, model,\n"
            "api_key, mode, temperature, max_tokens):\n"
            "  LLM_INTERACTION_BASE_URL   OpenAI-compatible endpoint (fallback: OPENAI_BASE_URL)\n"
            "  LLM_INTERACTION_API_KEY    API key (fallback: OPENAI_API_KEY)\n"
            "  LLM_INTERACTION_MODEL      model name\n"
            "  LLM_INTERACTION_MODE       'completion' (raw console continuation) or 'chat'\n"
            "Examples:\n"
            "  OpenAI:             export OPENAI_API_KEY=sk-...  LLM_INTERACTION_MODEL=gpt-4o-mini"
            "  LLM_INTERACTION_MODE=chat\n"
            "  vLLM / llama.cpp:   export LLM_INTERACTION_BASE_URL=http://localhost:8000/v1"
            "  LLM_INTERACTION_MODEL=<served model name>  (llama-server: port 8080)\n"
            "  Ollama:             export LLM_INTERACTION_BASE_URL=http://localhost:11434/v1"
            "  LLM_INTERACTION_API_KEY=ollama  LLM_INTERACTION_MODEL=llama3.1  LLM_INTERACTION_MODE=chat\n"
            "(for a local server the API key can be any string)."
        )


class LLMError(RuntimeError):
    """An endpoint failure after openai's own retries.

    The message names the endpoint, the model and the cause (connection refused,
    401, 404 model not found, timeout, ...). Attributes keep the details for code
    that wants them; the original openai exception is ``cause`` (the exception is
    raised ``from None`` so a log shows one line, not two chained tracebacks).
    """

    def __init__(
        self,
        message: str,
        *,
        endpoint: str = "",
        model: str = "",
        status_code: int | None = None,
        cause: BaseException | None = None,
        wall_s: float = 0.0,
    ) -> None:
        super().__init__(message)
        self.endpoint = endpoint
        self.model = model
        self.status_code = status_code
        self.cause = cause
        self.wall_s = wall_s

"""The two ways talking to an LLM can fail before any text comes back, and what each
failure is (:class:`Failure`), told to the user as what it is (:func:`spoken`)."""
from __future__ import annotations

import re
from enum import StrEnum


class Failure(StrEnum):
    """What went wrong with an LLM call (``LLMError.failure``)."""

    UNREACHABLE = "unreachable"          # connection refused / failed, no LLM configured
    CONTEXT_LENGTH = "context_length"    # the prompt + answer do not fit the server's context
    AUTH = "auth"                        # 401 / 403: the API key was refused
    MODEL_NOT_FOUND = "model_not_found"  # 404: no such model (or no such endpoint path)
    TIMEOUT = "timeout"                  # no (first) token in time, or the answer stopped
    RATE_LIMITED = "rate_limited"        # 429
    SERVER_ERROR = "server_error"        # 5xx
    OTHER = "other"


# "maximum context length is 4096 tokens" (OpenAI, vLLM), llama.cpp's "exceeds the available
# context size" (with n_ctx / n_prompt_tokens in newer servers)
_CONTEXT_PATTERNS = ("maximum context length", "context length", "context size",
                     "context_length_exceeded", "exceed_context_size", "too many tokens",
                     "prompt is too long")


def is_context_refusal(message: str) -> bool:
    text = message.lower()
    return any(p in text for p in _CONTEXT_PATTERNS)


def context_numbers(message: str, body: object = None) -> tuple[int | None, int | None]:
    """(the server's context size, the tokens the request needed) as far as the server says
    (OpenAI/vLLM: "maximum context length is 4096 tokens. However, you requested 5012 tokens";
    llama.cpp: ``n_ctx``, ``n_prompt_tokens`` in the error body)."""
    size = needed = None
    found = re.search(r"context (?:length|size|window) (?:is|of) (\d+)", message)
    if found:
        size = int(found.group(1))
    found = re.search(r"(?:requested|resulted in|you have|contains|has) (\d+) tokens", message)
    if found:
        needed = int(found.group(1))
    if isinstance(body, dict):
        detail = body.get("error") if isinstance(body.get("error"), dict) else body
        size = size or _int(detail.get("n_ctx"))
        needed = needed or _int(detail.get("n_prompt_tokens"))
    return size, needed


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class LLMNotConfigured(RuntimeError):
    """No LLM endpoint is known: neither a base_url nor an API key was given.

    ``str()`` is a complete how-to: which environment variables / config keys to
    set, with examples for OpenAI, a vLLM / llama.cpp server and Ollama.
    """

    def __init__(self, detail: str = "") -> None:
        lead = "No LLM endpoint is configured" + (f" ({detail})" if detail else "") + "."
        super().__init__(
            f"{lead}\n"
            "Set environment variables (they override the `llm:` config-file keys base_url, "
            "model,\n"
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
            "  LLM_INTERACTION_API_KEY=ollama  LLM_INTERACTION_MODEL=llama3.1  "
            "LLM_INTERACTION_MODE=chat\n"
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
        failure: Failure = Failure.UNREACHABLE,
        context_size: int | None = None,
        needed_tokens: int | None = None,
    ) -> None:
        super().__init__(message)
        self.endpoint = endpoint
        self.model = model
        self.status_code = status_code
        self.cause = cause
        self.wall_s = wall_s
        self.failure = Failure(failure)
        self.context_size = context_size      # CONTEXT_LENGTH: the server's, when it says
        self.needed_tokens = needed_tokens    # ... and what the request needed


def spoken(error: BaseException, request: str | None = None) -> str:
    """What the robot says when an LLM call failed: what the failure is, and (``request``:
    the user's last words) that it did not act on them."""
    failure = getattr(error, "failure", Failure.UNREACHABLE)
    model = getattr(error, "model", "") or "the model"
    if failure is Failure.CONTEXT_LENGTH:
        size, needed = getattr(error, "context_size", None), getattr(error, "needed_tokens", None)
        how = (f" ({size} tokens" + (f"; this request needs {needed}" if needed else "") + ")"
               if size else "")
        what = (f"Sorry, the prompt is too long for my language model server's context{how}: "
                "it must be started with a larger context")
    elif failure is Failure.AUTH:
        what = "Sorry, my language model server refused my API key"
    elif failure is Failure.MODEL_NOT_FOUND:
        what = f"Sorry, my language model server does not have the model {model!r}"
    elif failure is Failure.TIMEOUT:
        what = "Sorry, my language model did not answer in time"
    elif failure is Failure.RATE_LIMITED:
        what = "Sorry, my language model server is rate-limiting me right now"
    elif failure is Failure.SERVER_ERROR:
        what = "Sorry, my language model server had an internal error"
    elif failure is Failure.OTHER:
        what = "Sorry, my language model server refused the request"
    else:
        what = "Sorry, I cannot reach my language model right now"
    if not request:
        return what + "."
    retry = (" Please say it again in a moment." if failure in
             (Failure.UNREACHABLE, Failure.TIMEOUT, Failure.RATE_LIMITED, Failure.SERVER_ERROR)
             else "")
    return f"{what}, so I did not act on \"{request}\".{retry}"

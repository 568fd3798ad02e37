"""The errors of the OpenAI-compatible client (:mod:`.openai_client`): an ``openai`` error
as one :class:`~.errors.LLMError` naming endpoint, model, cause and what to do."""
from __future__ import annotations

import openai

from .config import LLMConfig
from .errors import Failure, LLMError, context_numbers, is_context_refusal


def _server_message(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        msg = body.get("message") or body.get("error") or body.get("detail")
        if msg:
            return str(msg) if not isinstance(msg, dict) else str(msg.get("message", msg))
    if isinstance(body, str) and body.strip():
        return body.strip()[:300]
    return ""


def _to_llm_error(err: openai.OpenAIError, config: LLMConfig, path: str, wall_s: float) -> LLMError:
    endpoint, model = config.endpoint, config.model
    retries = (
        f" (after {config.max_retries} retr{'y' if config.max_retries == 1 else 'ies'})"
        if config.max_retries
        else ""
    )
    status: int | None = None
    failure, size, needed = Failure.OTHER, None, None
    if isinstance(err, openai.APITimeoutError):
        failure = Failure.TIMEOUT
        cause = (f"timeout: no answer within {config.timeout_s:g} s{retries}; raise "
                 "llm.timeout_s (LLM_INTERACTION_TIMEOUT_S) for a slow server")
    elif isinstance(err, openai.APIConnectionError):
        failure = Failure.UNREACHABLE
        inner = err.__cause__ or err.__context__
        detail = str(inner) if inner is not None and str(inner) else str(err)
        if "refused" in detail.lower():
            cause = f"connection refused ({detail}){retries}: is the server running at {endpoint}?"
        else:
            cause = (f"connection failed ({type(inner).__name__ if inner else 'error'}: "
                     f"{detail}){retries}")
    elif isinstance(err, openai.APIStatusError):
        status = err.status_code
        message = _server_message(err)
        suffix = f": {message}" if message else ""
        if status in (400, 413, 422) and is_context_refusal(message):
            failure = Failure.CONTEXT_LENGTH
            size, needed = context_numbers(message, err.body)
            cause = ("the prompt is too long for the server's context"
                     + (f" of {size} tokens" if size else "")
                     + (f" (the request needs {needed})" if needed else "")
                     + f"; the console prompts are 4.0-4.6k tokens plus llm.max_tokens "
                     f"({config.max_tokens}) for the answer: start the server with a context of "
                     f"at least {max(needed or 0, 4600 + config.max_tokens)} tokens (llama-server "
                     f"-c 6144 per slot, vLLM --max-model-len 6144, Ollama num_ctx){suffix}")
        elif status == 401:
            failure = Failure.AUTH
            cause = (
                f"401 unauthorized, the API key was rejected (set LLM_INTERACTION_API_KEY){suffix}"
            )
        elif status == 403:
            failure = Failure.AUTH
            cause = f"403 forbidden, the API key may not use this model{suffix}"
        elif status == 404:
            failure = Failure.MODEL_NOT_FOUND
            cause = (
                f"404 not found: model {model!r} not found on this server, or no /{path} endpoint "
                f"(base_url usually ends in /v1){suffix}"
            )
        elif status == 429:
            failure = Failure.RATE_LIMITED
            cause = f"429 rate limited / out of quota{retries}{suffix}"
        elif status >= 500:
            failure = Failure.SERVER_ERROR
            cause = f"server error {status}{retries}{suffix}"
        else:
            cause = f"HTTP {status}{suffix}"
        if config.mode == "completion" and path == "completions" and (
            status in (400, 404) and "chat" in message.lower()
        ):
            cause += " (a chat-only model: set LLM_INTERACTION_MODE=chat)"
    else:
        cause = f"{type(err).__name__}: {err}"
    return LLMError(
        f"LLM request to {endpoint} ({path}, model {model!r}) failed: {cause}",
        endpoint=endpoint, model=model, status_code=status, cause=err, wall_s=wall_s,
        failure=failure, context_size=size, needed_tokens=needed,
    )

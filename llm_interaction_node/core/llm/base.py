"""What every LLM client takes, returns and offers: the LLMRequest every backend executes,
Completion, the LLMClient protocol and the ``complete()`` front the backends share."""
from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Protocol, runtime_checkable

from .config import LLMConfig
from .usage import Usage

log = logging.getLogger(__name__)

MAX_STOP_SEQUENCES = 4  # the OpenAI API limit; longer lists are cut to their first 4 entries
_warned: set[tuple[str, ...]] = set()


@dataclass
class Completion:
    text: str
    usage: Usage
    finish_reason: str | None = None


@dataclass(frozen=True)
class LLMRequest:
    """One continuation of a console prompt, as every backend's ``execute()`` takes it (the
    keywords of ``complete()``, written once; cf. simonw/llm's ``Prompt``).

    In completion mode the prompt is sent raw to the completions endpoint; in chat mode it
    is sent as the user message (with ``system`` as the system message when given) and the
    reply text is returned. ``stop``: as given (a single string is one stop string; the
    backend sends :func:`normalize_stop` of it). ``temperature`` / ``max_tokens`` default to
    the config. ``one_input``: only the next console input is wanted; a backend that sees
    the text as it is generated may stop as soon as that input is complete (the embedded
    model does; endpoints rely on ``stop``). ``grammar``: a GBNF grammar the continuation
    should follow (core/decoding/constraint.py); a backend applies it where its model or server can
    (the embedded model; an endpoint with ``llm.endpoint_grammar``) and otherwise ignores
    it (the caller checks).
    """

    prompt: str
    stop: Sequence[str] | str = ()
    temperature: float | None = None
    max_tokens: int | None = None
    system: str | None = None
    one_input: bool = False
    grammar: str | None = None

    def __post_init__(self) -> None:
        stop = self.stop
        object.__setattr__(self, "stop", (stop,) if isinstance(stop, str) else tuple(stop or ()))

    def options(self) -> dict:
        """Everything but the prompt, by keyword (as ``complete()`` was called)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "prompt"}


@runtime_checkable
class LLMClient(Protocol):
    config: LLMConfig

    def describe(self) -> str:
        """One line for logs and banners: what answers (endpoint/model, or the local model)."""
        ...

    def complete(self, prompt: str, **options) -> Completion:
        """One continuation of a console prompt; ``options`` are :class:`LLMRequest`'s
        (stop, temperature, max_tokens, system, one_input, grammar). Empty text is a valid
        result."""
        ...

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """A multi-turn chat. Always the chat endpoint."""
        ...


class Backend(ABC):
    """The client-facing ``complete(prompt, **options)`` of every backend: it builds the
    :class:`LLMRequest` and hands it to the backend's ``execute()``."""

    def complete(self, prompt: str, **options) -> Completion:
        return self.execute(LLMRequest(prompt, **options))

    @abstractmethod
    def execute(self, request: LLMRequest) -> Completion:
        """The continuation ``request`` asks for."""


def normalize_stop(stop: Sequence[str] | str | None) -> list[str]:
    """Stop strings as sent: empty strings and duplicates dropped, order kept, at most 4.

    A single string is accepted as one stop string. Entries beyond the 4th are dropped
    (with a warning, once per distinct list): callers should put the important ones first.
    """
    if not stop:
        return []
    if isinstance(stop, str):
        stop = [stop]
    result: list[str] = []
    for s in stop:
        if s and s not in result:
            result.append(s)
    if len(result) > MAX_STOP_SEQUENCES:
        key = tuple(result)
        if key not in _warned:  # once per distinct list, not on every call
            _warned.add(key)
            log.warning(
                "%d stop sequences given, the OpenAI API allows %d: dropping %r",
                len(result), MAX_STOP_SEQUENCES, result[MAX_STOP_SEQUENCES:],
            )
        result = result[:MAX_STOP_SEQUENCES]
    return result

"""ScriptedLLM: the project's only LLM stand-in, returning given responses in order."""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable

from .base import Backend, Completion, LLMRequest, normalize_stop
from .config import LLMConfig
from .usage import Usage, estimate_tokens


class ScriptExhausted(Exception):
    """ScriptedLLM was asked for more responses than it was given."""


def render_chat(messages: list[dict[str, str]]) -> str:
    """A chat as one string, as ScriptedLLM records it: "<role>\\ncontent" blocks."""
    return "\n".join(f"<{m.get('role', '?')}>\n{m.get('content', '')}" for m in messages)


class ScriptedLLM(Backend):
    """Returns the given responses in order from complete() and chat().

    * ``prompts``: every prompt (complete) or rendered chat (chat, see render_chat) received.
    * ``calls``: per call, a dict of ``method`` plus the keyword arguments as given
      (complete: :meth:`LLMRequest.options`, ``stop`` as a tuple; chat: ``temperature``,
      ``max_tokens``, ``messages``).
    * Like a real completion endpoint, complete() cuts a response at the earliest of
      the (at most 4) stop strings, which are not included; pass ``apply_stop=False``
      to get responses verbatim.
    * A response that is an exception instance is raised instead (to script failures,
      e.g. ``LLMError``); it still uses up its place in the script.
    * usage is estimated (``estimated=True``) with estimate_tokens; wall_s is 0.
    * Thread-safe. When exhausted, raises ScriptExhausted.
    """

    def __init__(
        self,
        responses: Iterable[str | BaseException],
        config: LLMConfig | None = None,
        *,
        apply_stop: bool = True,
    ):
        self._responses: deque[str | BaseException] = deque(responses)
        self._given = len(self._responses)
        # no endpoint: nothing is sent anywhere
        self.config = config if config is not None else LLMConfig(model="scripted")
        self.apply_stop = apply_stop
        self.prompts: list[str] = []
        self.calls: list[dict] = []
        self._lock = threading.Lock()

    def describe(self) -> str:
        return f"scripted stand-in ({self.remaining} of {self._given} responses left)"

    def __repr__(self) -> str:
        return f"ScriptedLLM({self.remaining} of {self._given} responses left)"

    @property
    def remaining(self) -> int:
        return len(self._responses)

    def execute(self, request: LLMRequest) -> Completion:
        text = self._next(request.prompt, {"method": "complete", **request.options()})
        finish_reason = "stop"
        if self.apply_stop:
            text = _cut_at_stop(text, normalize_stop(request.stop))
        prompt_tokens = estimate_tokens(request.prompt) + \
            (estimate_tokens(request.system) if request.system else 0)
        return Completion(text=text, usage=_usage(prompt_tokens, text), finish_reason=finish_reason)

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        rendered = render_chat(messages)
        call = {"method": "chat", "temperature": temperature, "max_tokens": max_tokens,
                "messages": [dict(m) for m in messages]}
        text = self._next(rendered, call)
        prompt_tokens = sum(estimate_tokens(str(m.get("content", ""))) for m in messages)
        return Completion(text=text, usage=_usage(prompt_tokens, text), finish_reason="stop")

    def _next(self, prompt: str, call: dict) -> str:
        with self._lock:
            self.prompts.append(prompt)
            self.calls.append(call)
            if not self._responses:
                tail = prompt[-200:]
                raise ScriptExhausted(
                    f"ScriptedLLM was given {self._given} "
                    f"response{'s' if self._given != 1 else ''} and all "
                    f"are used; call #{len(self.calls)} ({call['method']}) has no response. "
                    f"End of its prompt: {tail!r}"
                )
            response = self._responses.popleft()
        if isinstance(response, BaseException):
            raise response
        return response


def _cut_at_stop(text: str, stops: list[str]) -> str:
    cut = len(text)
    for s in stops:
        i = text.find(s)
        if i != -1:
            cut = min(cut, i)
    return text[:cut]


def _usage(prompt_tokens: int, text: str) -> Usage:
    return Usage(
        prompt_tokens=prompt_tokens,
        completion_tokens=estimate_tokens(text),
        calls=1,
        estimated=True,
    )

"""The console of an API set on a robot: built-ins + registry + sandbox.

Its own module because both the session (:func:`~.session.build_session`) and the replay of
transcripts (:mod:`.replay`, which the session's replay check uses) build consoles.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from .core.agent import AgentConfig
from .core.apis.registry import ApiRegistry
from .core.apis.sets import ApiSet, api_set
from .core.console.builtins import InteractionBuiltins, SpeechBounds
from .core.console.session import ConsoleSession
from .core.sandbox import Sandbox
from .core.transcript.transcript import Entry
from .core.user.channel import UserChannel

if TYPE_CHECKING:
    from .core.learning.outcome import LearnOutcome

ApiName = ApiSet | Literal["humanoid", "tabletop"]


def build_console(api: ApiName, robot, channel: UserChannel,
                  speak: Callable[[str], None] = lambda text: None,
                  learner: Callable[[], LearnOutcome | None] | None = None,
                  agent: AgentConfig | None = None,
                  api_options: Mapping[str, Any] | None = None,
                  isolated: bool = True,
                  forgetter: Callable[[str], str] | None = None,
                  input_listeners: Iterable[Callable[[str], None]] = (),
                  listeners: Iterable[Callable[[Entry], None]] = ()) -> ConsoleSession:
    """The console alone (replay and tests; agents get theirs from
    :func:`~.session.build_session`); ``learner``, ``forgetter``: what
    learn_from_interaction() and forget_learned() call \
(:class:`~.core.builtins.InteractionBuiltins`);
    ``input_listeners``: called with each input before it runs, ``listeners``: with each
    entry once it is recorded (both handed to the console as it is built); ``agent``: the
    agent settings (the statement timeout, the speech bounds); ``isolated``: generated code
    runs in a sandbox worker process with hard limits (``core/sandbox/process.py``)."""
    api = api_set(api)
    agent = agent or AgentConfig()
    speech = SpeechBounds(agent.speech_messages_per_statement, agent.speech_chars_per_statement,
                          agent.speech_messages_per_turn, agent.speech_chars_per_turn)
    builtins = InteractionBuiltins(channel, speak=speak, learner=learner, forgetter=forgetter,
                                   speech_bounds=speech)
    registry = ApiRegistry(api.functions(robot, api_options))
    registry.extend(getattr(builtins, name) for name in api.builtins)
    return ConsoleSession(registry, builtins, Sandbox(timeout_s=agent.statement_timeout_s,
                                                      geometry=api.geometry),
                          isolated=isolated, input_listeners=input_listeners,
                          listeners=listeners)

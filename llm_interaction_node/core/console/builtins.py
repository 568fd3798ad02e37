"""The console's built-in functions: say, ask, wait_for_trigger, learn_from_interaction.

They are API functions like the robot's skills, but belong to the interaction rather than
the robot: speech goes to a sink (terminal, TTS topic), user input comes from a
:class:`~llm_interaction_node.core.user.channel.UserChannel`, and learning is a hook the memory
layer provides.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..apis.registry import comment
from ..sandbox.statement_runner import ConsoleOutput
from ..user.channel import UserChannel

if TYPE_CHECKING:
    from ..learning.outcome import LearnOutcome

LEARN_UNAVAILABLE = "learn_from_interaction is not available: this session has no memory."
FORGET_REFUSAL = ("Ignoring forget_learned call since the user did not explicitly ask to "
                  "forget something.")


@dataclass(frozen=True)
class SpeechBounds:
    """How much say() and ask() may send to the speech output, per statement and per turn (a
    turn ends when wait_for_trigger() returns an utterance); a call past a bound is refused
    with one ValueError line (the model sees it; nothing is sent). The defaults (the
    ``agent.speech_*`` settings) from what a robot sensibly says: a sentence or two per
    call, at ~15 characters a second; a statement says at most ~2 minutes in a handful of
    messages (listing a shelf's things one by one fits), a turn (at most
    ``agent.max_statements_per_turn`` statements, a few questions among them) ~6 minutes.
    Measured without them (issue 60): ``for i in range(10**6): say('d' * 9_999)`` published
    21,111 messages (211 MB) on speech/tts_text before the statement's timeout."""

    statement_messages: int = 10
    statement_chars: int = 2_000
    turn_messages: int = 30
    turn_chars: int = 6_000


@dataclass
class _Spoken:
    """What was sent to the speech output in one scope (a statement, a turn)."""

    messages: int = 0
    chars: int = 0


def asked_to_forget(utterance: str) -> bool:
    """The forget gate: forget_learned() acts only when the user's latest utterance says
    "forget" (any case, also inside "forgetting"); the LLM deciding on its own to delete
    what was learned is refused. Deliberately a plain word test: a retraction such as
    "never mind what I taught you" is not an order to delete."""
    return "forget" in utterance.lower()


def _refusal(function: str, scope: str, spoken: _Spoken, text: str, messages: int,
             chars: int) -> str | None:
    """Why ``text`` may not be said in ``scope`` (one line: the bound, what was said), or
    None."""
    until = " (until wait_for_trigger() returns)" if scope == "turn" else ""
    if spoken.messages >= messages:
        return (f"{function}() was refused: speech is bounded to {messages} say()/ask() "
                f"messages per {scope}{until}; this {scope} sent {spoken.messages}: say it in "
                "fewer, shorter messages")
    if spoken.chars + len(text) > chars:
        said = f"this {scope} said {spoken.chars:,} and " if spoken.chars else ""
        return (f"{function}() was refused: speech is bounded to {chars:,} characters per "
                f"{scope}{until}; {said}this text has {len(text):,}: say less")
    return None


class InteractionBuiltins:
    """Speech and user events for one console session.

    ``turn`` counts the user utterances received by wait_for_trigger(), ``lessons`` holds
    what each learn_from_interaction() call did (its :class:`~.learning.outcome.LearnOutcome`);
    the console reports both per input (:class:`~.console.ExecResult`). ``learner``: the learn
    request, returning its outcome (its message is printed; None: nothing was done, nothing
    is printed: the replay's silent learn call); ``output``: where the built-ins
    write, the console's output (a new :class:`~.sandbox.statement_runner.ConsoleOutput` by default;
    the console built over these built-ins collects each input's output in it).
    """

    def __init__(self, channel: UserChannel, speak: Callable[[str], None] = lambda text: None,
                 learner: Callable[[], LearnOutcome | None] | None = None,
                 forgetter: Callable[[str], str] | None = None,
                 output: ConsoleOutput | None = None,
                 speech_bounds: SpeechBounds | None = None):
        self.channel = channel
        self.speak = speak
        self.learner = learner
        self.forgetter = forgetter
        self.output = output if output is not None else ConsoleOutput()
        self.speech_bounds = speech_bounds or SpeechBounds()
        self._statement_speech: _Spoken | None = None    # None: no console input runs
        self._turn_speech = _Spoken()
        self.turn = 0
        self.utterances: list[str] = []
        self.lessons: list[LearnOutcome] = []

    def new_statement(self) -> None:
        """A console input begins: its speech bound is whole again (the console calls this)."""
        self._statement_speech = _Spoken()

    def statement_done(self) -> None:
        """The console input ended: what is said until the next one is the robot's own code
        speaking (a note of the agent between statements), not the model's, and unbounded."""
        self._statement_speech = None

    def new_speech_turn(self) -> None:
        """The turn's speech bound is whole again: wait_for_trigger() returned, a new task
        began, or the agent's own closing sentence (sorry, stopped) is about to be said."""
        self._turn_speech = _Spoken()

    def _send(self, text, function: str) -> str:
        """Speak ``text``; during a console input within the speech bounds
        (:class:`SpeechBounds`): ValueError (and nothing is sent) past one."""
        text = str(text)
        bounds = self.speech_bounds
        statement = self._statement_speech
        if statement is not None:
            for scope, spoken, messages, chars in (
                    ("statement", statement, bounds.statement_messages, bounds.statement_chars),
                    ("turn", self._turn_speech, bounds.turn_messages, bounds.turn_chars)):
                refusal = _refusal(function, scope, spoken, text, messages, chars)
                if refusal:
                    raise ValueError(refusal)
            for spoken in (statement, self._turn_speech):
                spoken.messages += 1
                spoken.chars += len(text)
        self.speak(text)
        return text

    def say(self, text: str) -> None:
        """Send text to the TTS; does not wait for speaking to finish."""
        self._send(text, "say")

    def ask(self, question: str) -> str:
        """Say the question and block until the user answers; return the answer."""
        question = self._send(question, "ask")
        answer = self.channel.next_utterance("ask", str(question))
        self.utterances.append(answer)
        return answer

    @comment("always call this to wait for the next command or to end the interaction")
    def wait_for_trigger(self) -> dict[str, str]:
        """Block until the next user event; return it as {'type': 'dialog', 'text': ...}."""
        text = self.channel.next_utterance("trigger", None)
        self.new_speech_turn()
        self.turn += 1
        self.utterances.append(text)
        return {"type": "dialog", "text": text}

    @comment("Call this when the user explicitly asks you to learn or remember something,\n"
             "right after wait_for_trigger() returned that request and before anything else.\n"
             "Then do what the user asked, then call wait_for_trigger().")
    def learn_from_interaction(self) -> None:
        """Hand the current interaction to the learner (memory layer); its message is printed
        where the call was made."""
        if self.learner is None:
            from ..learning.outcome import LearnOutcome, LearnStatus  # loads learning only here
            message = LEARN_UNAVAILABLE
            self.lessons.append(LearnOutcome(LearnStatus.DISABLED, message))
        else:
            outcome = self.learner()
            if outcome is None:
                return
            self.lessons.append(outcome)
            message = outcome.message
        if message:
            self.output.write(message + "\n")

    @comment("Call this only when the user explicitly asks you to forget something you learned.")
    def forget_learned(self, topic: str) -> str:
        """Remove learned examples about ``topic`` from the memory (seed examples stay)."""
        latest = self.utterances[-1] if self.utterances else ""
        if self.forgetter is None:
            return "forget_learned is not available: this session has no memory."
        if not asked_to_forget(latest):
            return FORGET_REFUSAL
        return self.forgetter(str(topic))

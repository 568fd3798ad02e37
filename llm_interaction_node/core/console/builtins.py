"""The console's built-in functions: say, ask, wait_for_trigger, learn_from_interaction.

They are API functions like the robot's skills, but belong to the interaction rather than
the robot: speech goes to a sink (terminal, TTS topic), user input comes from a
:class:`~llm_interaction_node.core.user.channel.UserChannel`, and learning is a hook the memory
layer provides.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..apis.registry import comment
from ..sandbox.statement_runner import ConsoleOutput
from ..user.channel import UserChannel

if TYPE_CHECKING:
    from ..learning.outcome import LearnOutcome

LEARN_UNAVAILABLE = "learn_from_interaction is not available: this session has no memory."
MAX_SPEECH_CHARS = 10_000    # what say()/ask() send to the speech output at most (~10 minutes)
FORGET_REFUSAL = ("Ignoring forget_learned call since the user did not explicitly ask to "
                  "forget something.")


def asked_to_forget(utterance: str) -> bool:
    """The forget gate: forget_learned() acts only when the user's latest utterance says
    "forget" (any case, also inside "forgetting"); the LLM deciding on its own to delete
    what was learned is refused. Deliberately a plain word test: a retraction such as
    "never mind what I taught you" is not an order to delete."""
    return "forget" in utterance.lower()


def _speech(text, function: str) -> str:
    """What may be spoken: ValueError for a text too long to say (nothing is sent)."""
    text = str(text)
    if len(text) > MAX_SPEECH_CHARS:
        raise ValueError(f"{function}() says at most {MAX_SPEECH_CHARS:,} characters; this "
                         f"text has {len(text):,}: say less")
    return text


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
                 output: ConsoleOutput | None = None):
        self.channel = channel
        self.speak = speak
        self.learner = learner
        self.forgetter = forgetter
        self.output = output if output is not None else ConsoleOutput()
        self.turn = 0
        self.utterances: list[str] = []
        self.lessons: list[LearnOutcome] = []

    def say(self, text: str) -> None:
        """Send text to the TTS; does not wait for speaking to finish."""
        self.speak(_speech(text, "say"))

    def ask(self, question: str) -> str:
        """Say the question and block until the user answers; return the answer."""
        question = _speech(question, "ask")
        self.speak(question)
        answer = self.channel.next_utterance("ask", str(question))
        self.utterances.append(answer)
        return answer

    @comment("always call this to wait for the next command or to end the interaction")
    def wait_for_trigger(self) -> dict[str, str]:
        """Block until the next user event; return it as {'type': 'dialog', 'text': ...}."""
        text = self.channel.next_utterance("trigger", None)
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

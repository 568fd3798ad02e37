"""One LLM call of the loop (:meth:`Generation._generate`): the prompt with the examples that
fit, the grammar the decoding guides compose (:func:`..guides.order.guide`), and the answer's
checks before anything runs: an empty answer asked again hotter, an input the grammar's check
refuses noted (or asked again), the repeat note, the idle retry."""
from __future__ import annotations

import logging

from ..console.prompt import CHAT_SYSTEM, STOP, PromptBuilder
from ..console.session import ConsoleSession
from ..decoding import claims
from ..decoding.constraint import ConsoleVocabulary
from ..guides.calls import WAIT
from ..guides.idle import ignores_the_user
from ..guides.order import guide
from ..guides.repeat import repeats_the_answered_attempt
from ..guides.restate import restatement
from ..llm import LLMClient, LLMError, TokenLedger, Usage
from ..llm.errors import spoken
from ..transcript.notes import NOT_RUN, REPEAT_NOTE, in_the_consoles_voice
from ..transcript.statements import extract_statements
from ..user.interrupt import StopSignal
from .config import AgentConfig
from .limits import ErrorClass, TurnState
from .prefill import fitting_examples

log = logging.getLogger(__name__)


class BudgetSpent(Exception):
    """The budget of refused console inputs is spent: the turn gives up."""


class Generation:
    """The LLM-call part of :class:`~.loop.Agent` (its state is the agent's)."""

    llm: LLMClient
    console: ConsoleSession
    prompt: PromptBuilder
    stop: StopSignal
    ledger: TokenLedger
    config: AgentConfig
    turn: TurnState
    _turn_usage: Usage
    restated: bool
    report: claims.Report | None

    def _generate(self) -> list[str]:
        """Ask the LLM; retry empty answers at a raised temperature (reference: +0.1 up to
        1.0), then stand in ``wait_for_trigger()`` for the answer that stayed empty."""
        self._restate()
        examples = self._current_examples()
        interaction = self.console.transcript.render()
        prompt = self.prompt.build(examples, interaction)
        temperature = self.llm.config.temperature
        system = CHAT_SYSTEM if self.llm.config.mode == "chat" else None
        idle_left = self.config.idle_retries
        vocabulary = ConsoleVocabulary.of(self.console)
        guide(self, vocabulary)      # the decoding guides, in their order (core/guides)
        constraint = vocabulary.current()
        refused_left = self.config.refused_retries
        while True:
            try:
                completion = self.stop.call(self.llm.complete, prompt, stop=STOP,
                                            temperature=temperature,
                                            max_tokens=self.llm.config.max_tokens,
                                            system=system, one_input=True,
                                            grammar=constraint.gbnf())
            except LLMError as exc:
                fewer = fitting_examples(examples, exc)
                if fewer is None:
                    raise
                log.warning("the prompt does not fit the model's context (%s): %d of its %d "
                            "examples left out, the most similar kept last", exc,
                            len(examples) - len(fewer), len(examples))
                examples = fewer
                prompt = self.prompt.build(examples, interaction)
                continue
            self.ledger.record(completion.usage, "interact")
            self._turn_usage = self._turn_usage + completion.usage
            statements = extract_statements(completion.text)
            # a small model imitates the console's notes (a restated correction with words
            # the user never said): those are dropped (an answer of nothing else is empty)
            statements = [s for s in statements if not in_the_consoles_voice(s)]
            refusal = constraint.check_all(statements)
            if refusal and refused_left > 0:
                refused_left -= 1
                log.info("refused console input (%s): asking again", refusal)
                temperature = min(temperature + self.config.empty_temperature_step, 2.0)
                continue
            if refusal:
                self.console.annotate(NOT_RUN + refusal)
                unknown = next(filter(None, map(constraint.missing_name, statements)), None)
                if unknown is not None:      # nothing by that name here: not found, not brought
                    self.report = claims.missing(unknown)
                reason = self.turn.record_error(ErrorClass.REFUSED)
                if reason:
                    raise BudgetSpent(reason)
                return []
            if (statements and self.turn.repeat_notes < self.config.repeat_notes
                    and repeats_the_answered_attempt(self, statements[0])):
                self.turn.repeat_notes += 1
                log.info("the LLM repeats the attempt the user answered: noted, asking again")
                self.console.annotate(NOT_RUN + REPEAT_NOTE.format(
                    source=" ".join(statements[0].split())))
                return []
            if statements and idle_left > 0 and ignores_the_user(self, statements):
                # small models tend to repeat the last statement (wait_for_trigger()) instead
                # of acting on the user's feedback: ask again, a little less greedily
                idle_left -= 1
                log.info("the LLM answered the user with nothing but %s: asking again", WAIT)
                temperature = min(temperature + self.config.idle_temperature_step, 2.0)
                continue
            if statements:
                return statements
            step = self.config.empty_temperature_step
            temperature = round(temperature + step, 6)
            if step <= 0 or temperature > self.config.empty_temperature_max:
                log.info("the LLM stayed empty: %s stands in for its answer", WAIT)
                return [WAIT]
            log.info("the LLM returned nothing: asking again at temperature %.1f", temperature)

    def _restate(self) -> None:
        """Before the first statement of a turn that answers an attempt: the user's words
        again, as a comment (``restate_correction``, :mod:`..guides.restate`)."""
        note = restatement(self)
        if note is not None:
            self.restated = True
            self.console.annotate(note)

    def _heard(self, result) -> None:
        """What the console reported with an input that say() must keep to, until the robot
        acts and that works or the user speaks (core/decoding/claims.py)."""
        self.report = claims.after(self.report, result, self.console.api.queries)

    def _dropped_request_text(self, error: LLMError) -> str:
        """What the robot says when the LLM call failed: what the failure is (unreachable,
        a prompt too long for the server's context, a refused key, ...) and which request it
        drops, so the user knows what to do (issue 18)."""
        utterances = self.console.builtins.utterances
        if not utterances:
            return spoken(error)
        said = " ".join(str(utterances[-1]).split())
        said = said if len(said) <= 80 else said[:77].rstrip() + "..."
        return spoken(error, said)


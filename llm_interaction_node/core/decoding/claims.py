"""The robot never says what did not happen: after the console reported that something did not
happen, what the robot says is the console's to decide (issue 44).

Measured (issue 44, the embedded model in a household world of the lead's own): the learner's
"Sorry, I did not learn this ... so I stored nothing", and right after it the model's
``say("I will remember that.")``, a promise the system had just refused. The console knows
what happened: a learn call that stored nothing (its :class:`~..learning.outcome.LearnOutcome`),
a skill that returned ``'failure'`` or ``'failure: <why>'``, a name the robot does not know
(:class:`~..transcript.errors.UnknownNameError`). From such an input on (:func:`after`), until the
robot next acts and that works, or the user speaks again, ``say()`` may say only the console's own
sentence about it (:class:`Report`): nothing after a learn call that stored nothing (the
learner said why where it said anything), "Sorry, that did not work: <why, in words>." after a
failed skill, "Sorry, I cannot find the <name>." after an unknown name. The grammar offers only
that (:class:`~.constraint.Constraint` ``speech``), and the console's check refuses any other
``say`` (an endpoint model without a grammar, the scripted stand-in). ``ask()`` stays free: a
question claims nothing.

This reads the console's own results, never the user's words.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..learning.outcome import LearnStatus
from ..reading.vocabulary import spoken_form
from ..transcript.errors import UnknownNameError

SAY = "say"
SPEECH = frozenset({SAY, "ask"})            # calls that speak
# calls that neither act nor look: speech, the user, learning (what they do is judged apart)
NOT_ACTING = SPEECH | {"wait_for_trigger", "learn_from_interaction", "forget_learned"}
# a learn call that did this stored nothing the robot could promise to remember; a lesson
# already stored, or kept to store when the memory is back, is remembered
KEPT = frozenset({LearnStatus.ALREADY_LEARNED, LearnStatus.STORE_DEFERRED})
FAILURE = "failure"
_NAME = re.compile(r"\b[A-Za-z][A-Za-z0-9-]*_\d+\b")


@dataclass(frozen=True)
class Report:
    """What the console reported that the robot's words must keep to: ``what`` (for the
    refusal note and the log) and ``sentences``: what ``say()`` may say now (empty: nothing)."""

    what: str
    sentences: tuple[str, ...] = ()

    def refusal(self) -> str:
        """Why a ``say`` with other words is not run (the console's note)."""
        allowed = (f"the robot may say only {self.sentences[0]!r}" if self.sentences
                   else "the robot says nothing about it now: act, ask or hand back")
        return f"say() must not claim what did not happen: {self.what}; {allowed}"


def in_words(text: str) -> str:
    """The console's names in a text as they are said (``milk-carton_0`` -> ``milk
    carton``)."""
    return _NAME.sub(lambda m: spoken_form(m.group()), text)


def _failed(value: object) -> bool:
    return isinstance(value, str) and (value == FAILURE or value.startswith(FAILURE + ":"))


def failure_sentence(value: str) -> str:
    """What the robot says about a skill's ``'failure: <why>'``."""
    why = value[len(FAILURE):].lstrip(": ").strip()
    return f"Sorry, that did not work: {in_words(why)}." if why else "Sorry, that did not work."


def report_of(result, queries: Iterable[str] = ()) -> Report | None:
    """What the console reported with this input (an :class:`~..console.ExecResult`) that the
    robot's words must keep to, if anything: its last learn call that stored nothing, else its
    last act if that failed, else a name the robot does not know."""
    for outcome in reversed(result.lessons):
        if not outcome.stored and outcome.status not in KEPT:
            return Report(f"the learn call stored nothing ({outcome.status})")
    queries = frozenset(queries)
    for call in reversed(result.calls):
        if call.name in queries or call.name in NOT_ACTING:
            continue
        if _failed(call.value):
            return Report(f"{call.name}() returned {call.value!r}",
                          (failure_sentence(call.value),))
        break                                   # the input's last act worked
    error = result.error
    return missing(error.name) if isinstance(error, UnknownNameError) else None


def missing(name: object) -> Report:
    """What stands after a call named something the robot does not know (the API's
    :class:`~..transcript.errors.UnknownNameError`, or the console's refusal of a name not in the
    scene)."""
    said = in_words(spoken_form(str(name)))
    return Report(f"there is no {name!r} here", (f"Sorry, I cannot find the {said}.",))


def acted(result, queries: Iterable[str] = ()) -> bool:
    """The input made the robot act (a call that neither only looks nor speaks) and that
    worked: what the console reported before no longer stands."""
    queries = frozenset(queries)
    return any(call.name not in queries and call.name not in NOT_ACTING
               and call.error is None and not _failed(call.value) for call in result.calls)


def after(report: Report | None, result, queries: Iterable[str] = ()) -> Report | None:
    """What stands after an input: a new report, else the one before unless the robot acted
    and that worked, or the user spoke (``result.new_turn``)."""
    new = report_of(result, queries)
    if new is not None:
        return new
    if result.new_turn or acted(result, queries):
        return None
    return report


__all__ = ["Report", "report_of", "missing", "acted", "after", "in_words", "failure_sentence",
           "SAY"]

"""The learner: what ``learn_from_interaction()`` does in the console (F_learn).

The console's ``learn_from_interaction()`` calls :meth:`Learner.learn` with the interaction's
transcript and the user's utterances (the hook the session hands the console's built-ins, see
:mod:`..builtins`); the message it returns is printed as the statement's output, so the
L_interact LLM sees it. The learner

1. checks that the call comes right after the user's reply to ``wait_for_trigger()`` and
   that this reply is no retraction or recall question (:func:`.gate.accepts`), otherwise
   returns ``LEARN_REFUSAL`` and stores nothing;
2. honours one call per request (a second call for the same utterance stores nothing);
3. by mode (one table, :data:`STORES`: mode name -> what stores): ``auto`` (the default,
   :mod:`.auto`) stores L_improve's rewrite where it passes every check, else the ``final``
   example, and says which; ``improve`` runs L_improve (:mod:`.improve`) on the interaction so
   far and stores the validated improved transcript, answering the request the new way in its
   first turn (:mod:`.shape`); ``corrected`` stores, without an LLM, the
   request, the statements that worked and the user's corrections as comments
   (:mod:`.corrected`); ``final`` stores, without an LLM, the request and the statements of
   the attempt the user accepted, with the outputs the replay returns (:mod:`.final`);
   ``raw`` (ablation "w/o improve") stores the interaction itself; ``off`` (ablation "w/o
   learning") refuses every call. With a replay ``check`` (:mod:`.replay_check`) an improved,
   final or corrected example is stored only if its outputs are what the world returns from
   the interaction's initial state, and (final, corrected; where the live world is known)
   only if the replayed world ends like the live one at the learn call: a final example that
   does not is retried as every statement that worked, then trimmed (:meth:`store_final`);
4. tells the user with ``say`` what was learned or why nothing was stored.

Every mode learns from the transcript without the console's notes (:mod:`..notes`: loop and
repeat notes, inputs not run, the restated correction, copied seed hints): none of them
enters a stored example.

Nothing raised by the LLM client (LLMError) or by the memory reaches the console. A memory
that cannot be reached (a ConnectionError, e.g. the store's MemoryServerUnreachable) loses
nothing: the example is kept in ``pending`` and stored by :meth:`Learner.retry_pending` (the
session calls it when the memory answers again; every learn call tries first).
"""
from __future__ import annotations

import itertools
import logging
import re
import threading
import time
import typing
from dataclasses import dataclass
from typing import Callable, Iterable, Literal, Sequence

from ..builtins import LEARN_REFUSAL
from ..llm import LLMError, TokenLedger
from ..notes import without_console_notes
from ..transcript import Entry, Transcript
from . import improve as improve_mod
from .auto import store_auto
from .corrected import corrected_example, failed
from .final import final_parts
from .gate import accepts
from .outcome import LearnedExample, LearnOutcome, LearnStatus
from .replay_check import ReplayCheck

log = logging.getLogger(__name__)

LearningMode = Literal["auto", "improve", "final", "corrected", "raw", "off"]
MODES = typing.get_args(LearningMode)
LEARNING_DISABLED = "Learning is disabled in this session: nothing was stored."
ALREADY_LEARNED = ("learn_from_interaction() was already called for this user request; "
                   "nothing more was stored.")
NO_MEMORY_STORE = "Could not store the example in the memory: {error}"
STORE_DEFERRED = ("Could not store the example: the memory is not reachable ({error}). It is "
                  "kept and will be stored when the memory is back.")
SAY_DEFERRED = ("I could not store what I learned: my memory is not reachable right now. I "
                "keep it and will store it as soon as the memory is back.")
# What the user hears when the example does not survive the replay check (one sentence).
SAY_REPLAY_FAILED = ("Sorry, I did not learn this: when I tried the better way in my simulation "
                     "it did not work out as written, so I stored nothing.")
SAY_END_DIFFERS = ("Sorry, I did not learn this: when I did it again in my simulation from the "
                   "start, things did not end up the way you accepted them, so I stored nothing.")
SAY_FINAL = "Thank you, I will remember how you wanted it done."
LEARNED_MESSAGE = "Learned from this interaction: {improvement}"
# Replays of one final example at most: the accepted attempt, the fuller form, then the greedy
# drops of earlier statements (a 2-D tabletop replay takes a few ms; docs/architecture.md).
MAX_FINAL_REPLAYS = 12


_counter = itertools.count(1)


def default_interaction_id() -> str:
    return f"interaction-{time.strftime('%Y%m%d-%H%M%S')}-{next(_counter)}"


def first_person(text: str) -> str:
    """'The robot should ...' -> 'I should ...' for saying it to the user."""
    text = re.sub(r"\bthe robot's\b", "my", text, flags=re.I)
    text = re.sub(r"\bthe robot\b", "I", text, flags=re.I)
    text = re.sub(r"\bI (is|was|has|does)\b",
                  lambda m: {"is": "I am", "was": "I was", "has": "I have", "does": "I do"}[m.group(1)],
                  text)
    text = re.sub(r"\bits (own )?(hands?|arms?|gripper|memory)\b", r"my \1\2", text)
    return text[:1].upper() + text[1:]


class Learner:
    """What ``learn_from_interaction()`` does (:meth:`learn`), and the examples it keeps while
    the memory is unreachable."""

    def __init__(self, llm, memory, api_listing: str, api_names: Iterable[str],
                 mode: str = "auto", say: Callable[[str], None] = lambda text: None,
                 ledger: TokenLedger | None = None,
                 interaction_id: Callable[[], str] = default_interaction_id,
                 check: ReplayCheck | None = None):
        if mode not in MODES:
            raise ValueError(f"unknown learning mode {mode!r}; use one of {MODES}")
        self.llm = llm
        self.memory = memory
        self.api_listing = api_listing
        self.api_names = frozenset(api_names)
        self.mode = mode
        self.say = say
        self.ledger = ledger
        self.interaction_id = interaction_id
        self.check = check          # None: syntax and names only (no world to replay in)
        self.outcomes: list[LearnOutcome] = []   # every call, in order (also the stored examples)
        self._honoured: int | None = None   # utterance count of the last honoured request
        self.pending: list[LearnedExample] = []  # not stored yet: the memory was unreachable
        self._pending_lock = threading.Lock()     # learn (worker/service) vs retry (worker)

    @property
    def last_outcome(self) -> LearnOutcome | None:
        return self.outcomes[-1] if self.outcomes else None

    def learn(self, transcript: Transcript, utterances: Sequence[str],
              force: bool = False) -> LearnOutcome:
        """Learn from the interaction of ``transcript`` (the current task's, as the console
        shows it) and the user's ``utterances`` in it; ``outcome.message`` is what
        ``learn_from_interaction()`` prints. ``force``: the request came from outside the
        conversation (a learn service/button), so the position and gate checks are skipped."""
        self.retry_pending()
        outcome = self._learn(transcript, list(utterances), force)
        self.outcomes.append(outcome)
        return outcome

    def retry_pending(self) -> int:
        """Store the examples kept while the memory was unreachable, oldest first; stops at
        the first that still fails. Returns how many were stored now."""
        done = 0
        with self._pending_lock:
            while self.pending:
                learned = self.pending[0]
                try:
                    learned.example = self.memory.add(
                        learned.transcript, source=learned.source, origin=learned.origin,
                        problem=learned.problem, improvement=learned.improvement)
                except ConnectionError as exc:
                    log.info("the memory is still unreachable (%s): %d example(s) kept",
                             exc, len(self.pending))
                    break
                except Exception:  # noqa: BLE001 - a bad example must not block the others
                    log.exception("storing a kept example failed; it is dropped")
                    self.pending.pop(0)
                    continue
                self.pending.pop(0)
                self._stored(learned)
                done += 1
        if done:
            log.info("stored %d example(s) kept while the memory was unreachable", done)
        return done

    def _learn(self, transcript: Transcript, utterances: list[str], force: bool) -> LearnOutcome:
        if self.mode == "off":
            return LearnOutcome(LearnStatus.DISABLED, LEARNING_DISABLED)
        # the console's notes are for the model's next statement, never part of a lesson
        transcript = without_console_notes(transcript)
        if self._honoured == len(utterances):     # the same request again
            return LearnOutcome(LearnStatus.ALREADY_LEARNED, ALREADY_LEARNED)
        decision = accepts(transcript, utterances[-1] if utterances else "")
        if not force and not decision.is_request:
            log.info("learn_from_interaction refused (%s): %r", decision.rule, decision.clause)
            return LearnOutcome(LearnStatus.REFUSED, LEARN_REFUSAL, gate=decision)
        self._honoured = len(utterances)
        interaction = improve_mod.interaction_text(transcript)
        if not interaction.statements():
            return LearnOutcome(LearnStatus.NOTHING_TO_LEARN,
                                "Nothing was learned: there is no interaction to learn from.",
                                gate=decision)
        outcome = STORES[self.mode](self, transcript)
        outcome.gate = decision
        return outcome

    # -- what the modes store (each takes the interaction's transcript without the notes) -------
    def store_raw(self, transcript: Transcript) -> LearnOutcome:
        """Mode ``raw``: the interaction itself."""
        interaction = improve_mod.interaction_text(transcript)
        learned = LearnedExample(improve_mod.without_closing_reply(interaction).render(), "raw",
                                 self.interaction_id())
        failure = self._add(learned)
        if failure:
            return failure
        self.say("Thank you, I will remember this interaction.")
        return LearnOutcome(LearnStatus.STORED_RAW, "Stored this interaction in the memory.",
                            learned.example)

    def store_corrected(self, transcript: Transcript) -> LearnOutcome:
        """Mode ``corrected``: the request, what worked, the corrections as comments."""
        example = corrected_example(transcript)
        if example is None:
            return LearnOutcome(LearnStatus.NOTHING_TO_LEARN,
                                "Nothing was learned: the interaction holds no request.")
        replayed = self.check(example) if self.check is not None else None
        if replayed is not None and replayed.mismatch is not None:
            log.info("corrected example refused: replayed in the simulated world, %s",
                     replayed.mismatch)
            self.say(SAY_REPLAY_FAILED)
            return LearnOutcome(LearnStatus.REPLAY_FAILED,
                                f"Nothing was learned: the example does not match the world: "
                                f"replayed in the simulated world, {replayed.mismatch}.")
        if replayed is not None and replayed.end_differs is not None:
            log.info("corrected example refused: replayed from the start, %s", replayed.end_differs)
            self.say(SAY_END_DIFFERS)
            return LearnOutcome(LearnStatus.REPLAY_FAILED,
                                f"Nothing was learned: replayed in the simulated world from the "
                                f"start, the example does not end as the world is now: "
                                f"{replayed.end_differs}.")
        return self._store_built(
            example, "corrected", LearnStatus.STORED_CORRECTED,
            "Thank you, I will remember what worked and what you told me.",
            "Stored the request, the statements that worked and the user's corrections in the "
            "memory.")

    def store_final(self, transcript: Transcript, said: str = SAY_FINAL) -> LearnOutcome:
        """Mode ``final``: the accepted attempt (with the bindings it reads) if its replay works
        and ends like the live world; else, where the end can be compared, the fuller form
        (every statement that worked) with the earlier statements its end does not need
        dropped; else refused. ``said``: what the user hears when it is stored."""
        parts = final_parts(transcript)
        if parts is None:
            return LearnOutcome(LearnStatus.NOTHING_TO_LEARN,
                                "Nothing was learned: the interaction holds no request answered "
                                "after the user's last correction.")
        accepted = _FinalTry.of(self.check, parts.example(parts.bindings))
        if accepted is None:                       # no world to replay in: the live outputs
            return self._store_final_form(parts.example(parts.bindings, outputs=True),
                                          "the accepted attempt, not replayed", said)
        if accepted.works:
            return self._store_final_form(accepted.stored, "the accepted attempt", said)
        if not accepted.end_checked:               # no live world: refused as before
            log.info("final example refused: replayed in the simulated world, %s",
                     accepted.failure)
            self.say(SAY_REPLAY_FAILED)
            return LearnOutcome(LearnStatus.REPLAY_FAILED,
                                f"Nothing was learned: the last attempt does not work from the "
                                f"start: replayed in the simulated world, {accepted.failure}.")
        fuller = None
        if len(parts.earlier) > len(parts.bindings):
            fuller = _FinalTry.of(self.check, parts.example(parts.earlier))
        if fuller is None or not fuller.works:
            why = f"the accepted attempt alone: {accepted.reason}" + (
                f"; with every statement that worked: {fuller.reason}" if fuller else "")
            log.info("final example refused: replayed from the start, nothing ends as the live "
                     "world did (%s)", why)
            self.say(SAY_REPLAY_FAILED if (fuller or accepted).failure else SAY_END_DIFFERS)
            return LearnOutcome(LearnStatus.REPLAY_FAILED,
                                f"Nothing was learned: replayed in the simulated world from the "
                                f"start, no form of the example ends as the world is now: {why}.")
        kept, best, replays = list(parts.earlier), fuller, 2
        i = 0
        while i < len(kept) and replays < MAX_FINAL_REPLAYS:    # greedy, from the first
            trial = kept[:i] + kept[i + 1:]
            tried = _FinalTry.of(self.check, parts.example(trial))
            replays += 1
            if tried is not None and tried.works:
                kept, best = trial, tried
            else:
                i += 1
        log.info("final example: the accepted attempt alone does not reproduce the live world "
                 "(%s); kept %d of the %d earlier statements that worked (%d replays)",
                 accepted.reason, len(kept), len(parts.earlier), replays)
        return self._store_final_form(
            best.stored, f"the accepted attempt after {len(kept)} earlier statement(s) that "
                         f"worked (the attempt alone does not end as the world is now)", said)

    def _store_final_form(self, example: Transcript, form: str, said: str) -> LearnOutcome:
        log.info("final example: storing %s", form)
        return self._store_built(
            example, "final", LearnStatus.STORED_FINAL, said,
            f"Stored the request and the statements of {form} in the memory.")

    def _store_built(self, example: Transcript, source: str, status: LearnStatus, said: str,
                     message: str) -> LearnOutcome:
        """Store an example built without the LLM (modes corrected, final) and say so."""
        learned = LearnedExample(example.render(), source, self.interaction_id())
        failure = self._add(learned)
        if failure:
            return failure
        self.say(said)
        return LearnOutcome(status, message, learned.example)

    def store_improved(self, transcript: Transcript) -> LearnOutcome:
        """Mode ``improve``: L_improve's rewrite if it passes every check, else nothing."""
        result = self.rewrite(transcript)
        return self.store_rewrite(result) if result.ok else self.refuse_rewrite(result)

    def rewrite(self, transcript: Transcript) -> "improve_mod.ImproveResult":
        """L_improve's rewrite of the interaction, validated, its shape and replay checked
        (:func:`.improve.improve`); nothing is said or stored."""
        interaction = improve_mod.interaction_text(transcript)
        try:
            return improve_mod.improve(self.llm, self.api_listing, interaction, self.ledger,
                                       api_names=self.api_names, check=self.check)
        except LLMError as exc:      # improve() catches these; kept for other callers' LLMs
            return improve_mod.ImproveResult(improve_mod.ImproveStatus.LLM_FAILED,
                                             f"the language model failed: {exc}", error=exc)

    def refuse_rewrite(self, result: "improve_mod.ImproveResult") -> LearnOutcome:
        """Nothing stored from a rewrite that failed: tell the user why."""
        if result.status == improve_mod.ImproveStatus.LLM_FAILED:
            self._honoured = None            # the same request may be tried again
            self.say("Sorry, I cannot learn from this right now: my language model is not "
                     "reachable.")
            return LearnOutcome(LearnStatus.LLM_FAILED, f"Nothing was learned: {result.reason}",
                                improve=result)
        self.say(_USER_REASONS.get(result.status, "Sorry, I could not learn from this."))
        status = _REFUSED_REWRITES.get(result.status, LearnStatus.NOTHING_TO_LEARN)
        return LearnOutcome(status, f"Nothing was learned: {result.reason}.", improve=result)

    def store_rewrite(self, result: "improve_mod.ImproveResult",
                      message: str = LEARNED_MESSAGE) -> LearnOutcome:
        """Store a rewrite that passed every check (``result.ok``) and say the lesson;
        ``message``: the console's text ({improvement}: L_improve's second answer)."""
        imp = result.improvement
        stored = imp.transcript            # already in stored form (improve.stored_example)
        learned = LearnedExample(stored, "learned", self.interaction_id(), imp.problem,
                                 imp.improvement)
        failure = self._add(learned)
        if failure:
            failure.improve = result
            return failure
        lesson = first_person(imp.improvement).rstrip(". ")
        self.say(f"Thank you, I will remember that. {lesson}." if lesson else
                 "Thank you, I will remember that.")
        return LearnOutcome(LearnStatus.LEARNED, message.format(improvement=imp.improvement),
                            learned.example, improve=result)

    def _add(self, learned: LearnedExample) -> LearnOutcome | None:
        """Store in the memory; None on success, else the outcome for the console."""
        try:
            learned.example = self.memory.add(learned.transcript, source=learned.source,
                                              origin=learned.origin, problem=learned.problem,
                                              improvement=learned.improvement)
        except ConnectionError as exc:  # the memory server is down: keep it, retry later
            log.warning("the memory is unreachable; the %s example is kept to store later: %s",
                        learned.source, exc)
            with self._pending_lock:
                self.pending.append(learned)
            self.say(SAY_DEFERRED)
            return LearnOutcome(LearnStatus.STORE_DEFERRED, STORE_DEFERRED.format(error=exc))
        except Exception as exc:  # noqa: BLE001 - the console must go on; the user is told
            log.exception("storing a learned example failed")
            self.say("Sorry, I could not store what I learned.")
            return LearnOutcome(LearnStatus.STORE_FAILED, NO_MEMORY_STORE.format(error=exc))
        self._stored(learned)
        return None

    def _stored(self, learned: LearnedExample) -> None:
        log.info("stored a %s example (%s)", learned.source, learned.origin)


@dataclass
class _FinalTry:
    """One replay of a form of the ``final`` example: ``stored`` (the form with the world's
    outputs), ``failure`` (where a statement failed, or None), ``end_differs`` and
    ``end_checked`` (as :class:`~.replay_check.Replayed`)."""

    stored: Transcript
    failure: str | None
    end_differs: str | None
    end_checked: bool

    @property
    def works(self) -> bool:
        return self.failure is None and self.end_differs is None

    @property
    def reason(self) -> str:
        return self.failure or (f"the world ends differently: {self.end_differs}"
                                if self.end_differs else "it works")

    @classmethod
    def of(cls, check: ReplayCheck | None, example: Transcript) -> "_FinalTry | None":
        """Replay ``example``; None if there is no world to replay in."""
        replayed = check(example) if check is not None else None
        if replayed is None:
            return None
        shown = improve_mod.without_unanswered_waits(replayed.transcript.entries)
        failure = _replay_failure(shown, len(improve_mod.without_unanswered_waits(example.entries)))
        return cls(Transcript(shown + [Entry("wait_for_trigger()")]), failure,
                   replayed.end_differs, replayed.end_checked)


def _replay_failure(replayed: list[Entry], wanted: int) -> str | None:
    """Where the replay of a ``final`` example failed (its first failed input, or the replay
    ending before the example's ``wanted`` inputs), or None if every input worked."""
    for n, entry in enumerate(replayed, 1):
        if failed(entry):
            output = " ".join(entry.output.split())[:200] or "an error"
            return f"input {n} ({entry.source.splitlines()[0]}) failed with {output}"
    return f"the replay ended after input {len(replayed)}" if len(replayed) < wanted else None


_USER_REASONS = {
    improve_mod.ImproveStatus.NO_PROBLEM: "I could not find anything to improve in this "
                                          "interaction, so I did not store anything.",
    improve_mod.ImproveStatus.UNCHANGED: "I could not find a better way to do this, so I did "
                                         "not store anything.",
    improve_mod.ImproveStatus.INVALID: "Sorry, I could not turn this into a correct example, "
                                       "so I did not store anything.",
    improve_mod.ImproveStatus.EMPTY: "There is nothing to learn from yet.",
    improve_mod.ImproveStatus.REPLAY_FAILED: SAY_REPLAY_FAILED,
    improve_mod.ImproveStatus.WRONG_SHAPE: "Sorry, I did not learn this: I could not write down "
                                           "how to do it your way from the start, so I stored "
                                           "nothing.",
}
# the status of a refused rewrite (others: nothing to learn)
_REFUSED_REWRITES = {improve_mod.ImproveStatus.REPLAY_FAILED: LearnStatus.REPLAY_FAILED,
                     improve_mod.ImproveStatus.WRONG_SHAPE: LearnStatus.WRONG_SHAPE}

# mode name -> what stores the lesson: (learner, the transcript without the console's notes)
# -> LearnOutcome; "off" refuses before any of them
STORES: dict[str, Callable[[Learner, Transcript], LearnOutcome]] = {
    "auto": store_auto,
    "improve": Learner.store_improved,
    "final": Learner.store_final,
    "corrected": Learner.store_corrected,
    "raw": Learner.store_raw,
}
if set(STORES) | {"off"} != set(MODES):
    raise ImportError(f"learning modes {MODES} and their table {sorted(STORES)} differ")

__all__ = ["Learner", "LearnedExample", "LearnOutcome", "LearnStatus", "LearningMode", "MODES",
           "STORES", "LEARNING_DISABLED", "ALREADY_LEARNED",
           "SAY_REPLAY_FAILED", "SAY_END_DIFFERS", "SAY_FINAL", "MAX_FINAL_REPLAYS",
           "first_person", "default_interaction_id"]

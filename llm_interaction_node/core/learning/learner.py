"""The learner: what ``learn_from_interaction()`` does in the console (F_learn).

The console's ``learn_from_interaction()`` calls :meth:`Learner.learn` with the interaction's
transcript and the user's utterances (the hook the session hands the console's built-ins, see
:mod:`..console.builtins`); the message it returns is printed as the statement's output, so the
L_interact LLM sees it. The learner only checks, stores and speaks:

1. it checks that the call comes right after the user's reply to ``wait_for_trigger()`` and
   that the model read this reply as a request to learn (:func:`.gate.accepts`; without a
   reading, the position alone: the reference's rule), otherwise returns ``LEARN_REFUSAL`` and
   stores nothing; it honours one call per request (a second
   call for the same utterance stores nothing; one whose language model failed may be
   repeated);
2. the mode builds the lesson, one table (:data:`STORES`: mode name -> the mode module's
   store function, which sees the learner as :class:`.mode.ModeLearner` and never imports
   this module): ``auto`` (the default, :mod:`.auto`: L_improve's rewrite, else the
   ``final`` lesson, and says which); ``improve`` (:mod:`.rewrite`: L_improve's validated,
   shape-checked, replayed rewrite); ``final`` (:mod:`.final`, no LLM: the request and the
   attempt the user accepted, replayed); ``corrected`` (:mod:`.corrected`, no LLM: the
   request, what worked, the corrections as comments); ``raw`` (:mod:`.raw`, ablation "w/o
   improve": the interaction itself); ``off`` (ablation "w/o learning") refuses every call;
3. it stores the lesson in the memory (:meth:`Learner.store`) and tells the user with ``say``
   what was learned or why nothing was stored.

Every mode learns from the transcript without the console's notes
(:mod:`..transcript.notes`: loop and repeat notes, inputs not run, the restated correction,
copied seed hints): none of them enters a lesson.

Nothing raised by the LLM client (LLMError) or by the memory reaches the console. A memory
that cannot be reached (a ConnectionError, e.g. the store's MemoryServerUnreachable) loses
nothing: the lesson is kept in ``pending`` and on disk (``outbox``, :mod:`.outbox`: it
outlives the process; a learner starts with what an earlier one kept there) and stored by
:meth:`Learner.retry_pending` (the session calls it at start and when the memory answers
again; every learn call tries first). Where it cannot be written to disk the user is told
that it is kept only while the robot runs.
"""
from __future__ import annotations

import itertools
import logging
import threading
import time
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from ..llm import LLMError, TokenLedger
from ..reading.edit import Facts
from ..reading.record import reading_from_json, reading_to_json
from ..reading.structure import Reading
from ..transcript.notes import without_console_notes
from ..transcript.transcript import Transcript
from .at_once import bound_to_request
from .auto import store_auto
from .corrected import store_corrected
from .final import store_final
from .gate import accepts
from .habit import ReadEdit, learn_habit, wants_habit
from .improve import warm_up as improve_warm_up
from .outbox import Outbox
from .outcome import LearnOutcome, LearnStatus, Lesson
from .raw import store_raw
from .replay_check import ReplayCheck
from .rewrite import store_improved
from .scenes_check import ScenesCheck
from .taught_place import with_taught_place
from .transcripts import interaction_text

log = logging.getLogger(__name__)

LearningMode = Literal["auto", "improve", "final", "corrected", "raw", "off"]
MODES = typing.get_args(LearningMode)
# what the console prints where the gate refuses a learn call (the learner's first check)
LEARN_REFUSAL = ("Ignoring learn_from_interaction call since it did not happen on explicit "
                 "user request.")
LEARNING_DISABLED = "Learning is disabled in this session: nothing was stored."
ALREADY_LEARNED = ("learn_from_interaction() was already called for this user request; "
                   "nothing more was stored.")
NO_MEMORY_STORE = "Could not store the example in the memory: {error}"
STORE_DEFERRED = ("Could not store the example: the memory is not reachable ({error}). It is "
                  "kept and will be stored when the memory is back.")
SAY_DEFERRED = ("I could not store what I learned: my memory is not reachable right now. I "
                "keep it and will store it as soon as the memory is back.")
STORE_NOT_KEPT = ("Could not store the example: the memory is not reachable ({error}), and it "
                  "could not be kept on disk ({disk}). It is kept while the robot runs only.")
SAY_NOT_KEPT = ("I could not store what I learned: my memory is not reachable, and I could not "
                "write it down on my disk either. I will store it if my memory comes back "
                "before I am switched off; otherwise it is lost.")


_counter = itertools.count(1)


def default_interaction_id() -> str:
    return f"interaction-{time.strftime('%Y%m%d-%H%M%S')}-{next(_counter)}"


class Learner:
    """What ``learn_from_interaction()`` does (:meth:`learn`), and the examples it keeps while
    the memory is unreachable."""

    def __init__(self, llm, memory, api_listing: str, api_names: Iterable[str],
                 mode: str = "auto", say: Callable[[str], None] = lambda text: None,
                 ledger: TokenLedger | None = None,
                 interaction_id: Callable[[], str] = default_interaction_id,
                 check: ReplayCheck | None = None, task: Callable[[], object] = lambda: None,
                 outbox: Outbox | None = None,
                 read: Callable[[str], Reading | None] = lambda utterance: None,
                 scenes: ScenesCheck | None = None,
                 act: Callable[[str], str] | None = None,
                 moves: Callable[[], list[tuple[str, str | None]]] | None = None,
                 write_move: Callable[[str, str], str] | None = None,
                 read_edit: ReadEdit | None = None,
                 facts: Callable[[], Facts] | None = None):
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
        self.read = read            # the reading of a user utterance (core/reading), or None
        self.scenes = scenes        # the changed-scene check (None: lessons are not judged)
        self.act = act              # runs one robot call now (None: no robot to act with)
        self.moves = moves          # the API's move log: (object, target), in order
        self.write_move = write_move    # the API's move call for (object, target), as source
        self.read_edit = read_edit      # the model's reading of a habit as an edit (or None)
        self.facts = facts or Facts     # what an edit's condition is judged on (held, kinds)
        self._asked: Reading | None = None     # the reading of the current learn request
        self.outcomes: list[LearnOutcome] = []   # every call, in order (also the stored lessons)
        # the last honoured request: (its task, the utterance count); a reset starts a new
        # task (``task``: the console's task id), so its first lesson is no repeat
        self.task = task
        self._honoured: tuple[object, int] | None = None
        self.outbox = outbox        # where kept lessons outlive the process
        # not stored yet: the memory was unreachable (now, or for an earlier learner)
        self.pending: list[Lesson] = outbox.load() if outbox is not None else []
        if self.pending:
            log.info("%d lesson(s) kept during an earlier memory outage (%s): stored when the "
                     "memory answers", len(self.pending), outbox.directory)
        self._pending_lock = threading.Lock()     # learn (worker/service) vs retry (worker)

    def warm_up_steps(self) -> list[tuple[str, Callable]]:
        """The start-up prefill of L_improve's chat (:func:`.improve.warm_up`, saved on disk)
        where the mode asks L_improve (``auto``, ``improve``) and the LLM keeps states; the
        agent runs it after its own (:meth:`..agent.Agent.warm_up_steps`)."""
        if self.mode not in ("auto", "improve") or \
                getattr(self.llm, "prefill_chat", None) is None:
            return []
        return [("the learning prompt", lambda: improve_warm_up(self.llm, self.api_listing))]

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
        """Store the lessons kept while the memory was unreachable, oldest first; stops at
        the first that still fails. Returns how many were stored now."""
        done = 0
        with self._pending_lock:
            while self.pending:
                lesson = self.pending[0]
                try:
                    self._add(lesson)
                except ConnectionError as exc:
                    log.info("the memory is still unreachable (%s): %d example(s) kept",
                             exc, len(self.pending))
                    break
                except Exception:  # noqa: BLE001 - a bad example must not block the others
                    log.exception("storing a kept example failed; it is dropped (set aside)")
                    self.pending.pop(0)
                    if self.outbox is not None:
                        self.outbox.discard(lesson)
                    continue
                self.pending.pop(0)
                self._unkeep(lesson)
                self._stored(lesson)
                done += 1
        if done:
            log.info("stored %d example(s) kept while the memory was unreachable", done)
        return done

    def _learn(self, transcript: Transcript, utterances: list[str], force: bool) -> LearnOutcome:
        self._asked = None
        if self.mode == "off":
            return LearnOutcome(LearnStatus.DISABLED, LEARNING_DISABLED)
        # the console's notes are for the model's next statement, never part of a lesson
        transcript = without_console_notes(transcript)
        request = (self.task(), len(utterances))
        if self._honoured == request:     # the same request again
            return LearnOutcome(LearnStatus.ALREADY_LEARNED, ALREADY_LEARNED)
        latest = utterances[-1] if utterances else ""
        self._asked = self.read(latest) if latest else None
        decision = accepts(transcript, latest, self._asked, self._asked_before(utterances))
        if not force and not decision.is_request:
            log.info("learn_from_interaction refused (%s): %r", decision.rule, decision.clause)
            return LearnOutcome(LearnStatus.REFUSED, LEARN_REFUSAL, gate=decision)
        self._honoured = request
        interaction = interaction_text(transcript)
        if not interaction.statements():
            return LearnOutcome(LearnStatus.NOTHING_TO_LEARN,
                                "Nothing was learned: there is no interaction to learn from.",
                                gate=decision)
        # a habit first (not for a learn asked from outside the conversation, the learn
        # service: its latest utterance teaches nothing; nor in the ablation that stores the
        # interaction itself)
        habit = self._habit(transcript, latest) if not force and self.mode != "raw" else None
        outcome = habit or STORES[self.mode](self, transcript)
        if outcome.status == LearnStatus.LLM_FAILED:
            self._honoured = None            # the same request may be tried again
        outcome.gate = decision
        return outcome

    def _habit(self, transcript: Transcript, said: str) -> LearnOutcome | None:
        """A habit the request to learn teaches that no named lesson kind says (an edit of
        the program, :mod:`.habit`); None where it is the named paths' or no edit was read."""
        if self.read_edit is None or not said or not wants_habit(self._asked):
            return None       # no skill to edit (the tabletop), or not a habit
        try:
            return learn_habit(self, transcript, said, self.read_edit, self.facts(),
                               self._asked)
        except LLMError as exc:
            log.warning("the habit of %r was not read: %s", said[:80], exc)
            return None

    def ends(self) -> dict[str, str]:
        """Where each object's last move in the API's log took it (empty without a log), as
        the interaction left them."""
        try:
            return {o: t for o, t in (self.moves() if self.moves else ()) if t is not None}
        except Exception:  # noqa: BLE001 - no log: nothing is known of where things ended
            log.exception("the API's move log could not be read")
            return {}

    def _asked_before(self, utterances: list[str]) -> bool:
        """An earlier reply of this task (not its request) was read as a request to learn,
        and no lesson was honoured in this task since."""
        if self._honoured is not None and self._honoured[0] == self.task():
            return False
        for said in utterances[1:-1]:
            reading = self.read(said)
            if reading is not None and reading.asks_to_learn:
                return True
        return False

    # -- storing (the modes call it with the lesson they built) --------------------------------
    def store(self, lesson: Lesson, status: LearnStatus, message: str, said: str) -> LearnOutcome:
        """Store ``lesson`` in the memory; on success say ``said`` and return ``status`` with
        the console's ``message``, else the outcome that says why it is not stored (yet)."""
        if lesson.reading is None:
            lesson.reading = self._request_reading(lesson.transcript)
        if lesson.scope is None:
            lesson.scope = self._scope(lesson)
        try:
            self._add(lesson)
        except ConnectionError as exc:  # the memory server is down: keep it, retry later
            log.warning("the memory is unreachable; the %s example is kept to store later: %s",
                        lesson.source, exc)
            problem = self._keep(lesson)
            with self._pending_lock:
                self.pending.append(lesson)
            if problem is not None:
                self.say(SAY_NOT_KEPT)
                return LearnOutcome(LearnStatus.STORE_DEFERRED,
                                    STORE_NOT_KEPT.format(error=exc, disk=problem))
            self.say(SAY_DEFERRED)
            return LearnOutcome(LearnStatus.STORE_DEFERRED, STORE_DEFERRED.format(error=exc))
        except Exception as exc:  # noqa: BLE001 - the console must go on; the user is told
            log.exception("storing a learned example failed")
            self.say("Sorry, I could not store what I learned.")
            return LearnOutcome(LearnStatus.STORE_FAILED, NO_MEMORY_STORE.format(error=exc))
        self._stored(lesson)
        self.say(said)
        return LearnOutcome(status, message, lesson.example)

    def _scope(self, lesson: Lesson) -> str | None:
        """Whether the lesson holds beyond its own scene (:mod:`.scenes_check`), where its
        request was read and a changed scene can be built; None where it was not judged."""
        reading = reading_from_json(lesson.reading)
        if self.scenes is None or reading is None or not reading.of_kind("do"):
            return None
        try:
            verdict = self.scenes(Transcript.parse(lesson.transcript), reading)
        except Exception:  # noqa: BLE001 - learning goes on; the lesson is not judged
            log.exception("the changed-scene check failed: the lesson is not judged")
            return None
        if verdict is None:
            return None
        log.info("the %s lesson %s: stored as %s", lesson.source, verdict,
                 "a rule" if verdict.holds else "an example of its own scene")
        return verdict.scope

    def _request_reading(self, transcript: str) -> str | None:
        """The reading of a lesson's request, as the agent read it (stored with the lesson:
        a later request is matched by meaning, core/memory/meaning.py); None unread."""
        lesson = Transcript.parse(transcript)
        said = lesson.user_utterances()
        reading = self.read(said[0]) if said and self.read is not None else None
        # what two hands carry along comes with the request's things (learning/at_once.py)
        reading = bound_to_request(reading, self._asked, lesson)
        # ... and a place taught for them ("from now on, put the banana on the sideboard") is
        # where the lesson sends them, whatever the request was read as (learning/taught_place.py)
        reading = with_taught_place(reading, self._asked)
        return reading_to_json(reading) if reading is not None and reading.clauses else None

    def _add(self, lesson: Lesson) -> None:
        if lesson.id is None:
            lesson.example = self.memory.add(lesson.transcript, source=lesson.source,
                                             origin=lesson.origin, problem=lesson.problem,
                                             improvement=lesson.improvement,
                                             reading=lesson.reading, author=lesson.author,
                                             scope=lesson.scope, edit=lesson.edit)
            return
        if self.memory.has(lesson.id):        # stored before a crash that kept its file
            lesson.example = self.memory.get(lesson.id)
            return
        example = self.memory.make_example(lesson.transcript, lesson.source, lesson.origin,
                                           lesson.problem, lesson.improvement,
                                           example_id=lesson.id, reading=lesson.reading,
                                           author=lesson.author, scope=lesson.scope,
                                           edit=lesson.edit)
        self.memory.write([example])
        lesson.example = example

    def _keep(self, lesson: Lesson) -> str | None:
        """Write a lesson the memory could not take to the outbox; why not, if it failed."""
        if self.outbox is None:
            return "no directory to keep it in"
        try:
            path = self.outbox.put(lesson)
        except OSError as exc:
            log.error("a lesson could not be kept on disk: %s", exc)
            return str(exc)
        log.info("the lesson is kept in %s until the memory answers", path)
        return None

    def _unkeep(self, lesson: Lesson) -> None:
        if self.outbox is None:
            return
        try:
            self.outbox.remove(lesson)
        except OSError as exc:   # stored; the file is found stored at the next start
            log.warning("a stored lesson's file could not be removed: %s", exc)

    def _stored(self, lesson: Lesson) -> None:
        log.info("stored a %s example (%s)", lesson.source, lesson.origin)


# mode name -> what stores the lesson: (learner, the transcript without the console's notes)
# -> LearnOutcome; "off" refuses before any of them
STORES: dict[str, Callable[[Learner, Transcript], LearnOutcome]] = {
    "auto": store_auto,
    "improve": store_improved,
    "final": store_final,
    "corrected": store_corrected,
    "raw": store_raw,
}
if set(STORES) | {"off"} != set(MODES):
    raise ImportError(f"learning modes {MODES} and their table {sorted(STORES)} differ")

__all__ = ["Learner", "Lesson", "LearnOutcome", "LearnStatus", "LearningMode", "MODES",
           "STORES", "LEARNING_DISABLED", "ALREADY_LEARNED", "SAY_DEFERRED", "SAY_NOT_KEPT",
           "default_interaction_id"]

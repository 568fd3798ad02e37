"""The model reads: one utterance in one scene becomes a :class:`~.structure.Reading`.

:meth:`Reader.read` builds the reading prompt (:mod:`.prompt`: the examples, the scene's
spoken names, the utterance), asks the LLM for the clauses under the scene's grammar
(:mod:`.grammar`; greedy, a few dozen tokens) and parses them (:mod:`.parse`). The embedded
model evaluates the examples once (:meth:`Reader.prefill`, on disk for the next start) and then
only the scene line and the utterance. An endpoint model gets the same prompt and grammar
(where it takes one: ``llm.endpoint_grammar``); what it writes outside the line language is
refused by the parser. Then the model is asked about what the reading may have left out
(:mod:`.omission`: the one meant beside ``wrong object``) and about each slot the words may
have left empty (:mod:`.check`), one yes or no each; a reply read as approval or a way of doing
things whether it speaks about every time (:mod:`.lasting`), a request's hand-over or room,
its hand and a thing named in no word the user said whether the request says them
(:mod:`.asked_place`, :mod:`.asked_hand`, :mod:`.asked_name`: first what people call the
scene's things, :mod:`.other_names`, kept in :attr:`Reader.other_names`), a reply's both
hands whether it says both hands (:mod:`.asked_hand`: else what comes along).

A reading that cannot be had (the LLM failed, the text is no reading) is None, logged with
why: the callers then do what they do without a reading (the reference method's behaviour),
nothing is guessed from the words. Readings are kept per (utterance, scene) so the agent and
the learner read each utterance once; :meth:`Reader.last` is the latest reading of a text
in any scene (the learner reads the lesson's request after the scene changed).
"""
from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..llm import LLMClient, LLMError, TokenLedger, Usage
from .asked_hand import AskedHandCheck
from .asked_hand import prompt_file as asked_hand_prompt
from .asked_name import AskedNameCheck
from .asked_name import prompt_file as asked_name_prompt
from .asked_place import AskedPlaceCheck
from .asked_place import prompt_file as asked_place_prompt
from .attempt import answering, oriented
from .beside import things_as_places
from .check import SlotCheck
from .check import prefix as check_prefix
from .edit_reading import kind_prompt
from .edit_reading import prefix as edit_prefix
from .grammar import also_rest_gbnf, move_rest_gbnf, reading_gbnf
from .in_place import without_places_in_place
from .kind_of import prefix as kind_of_prefix
from .lasting import LastingCheck
from .lasting import prefix as lasting_prefix
from .omission import OmissionCheck
from .other_names import MAX_TOKENS as NAMES_TOKENS
from .other_names import OtherNames
from .other_names import prefix as other_names_prefix
from .other_names import store_for as names_store_for
from .parse import ReadingError, parse, parse_clause
from .prompt import END, KINDS, spoken_text
from .prompt import build as build_prompt
from .prompt import prefix as reading_prefix
from .said_place import places_said
from .structure import Clause, Reading
from .vocabulary import ReadingVocabulary

log = logging.getLogger(__name__)

MAX_TOKENS = 80          # three clauses with long names fit
READINGS_KEPT = 256
STOP = ("\n\n",)


@dataclass
class ReadingCost:
    """What one reading cost: wall seconds, tokens evaluated (of ``prompt_tokens`` in all: the
    rest came from a saved state) and generated, in ``calls`` model calls (the reading and
    each check's question)."""

    wall_s: float
    evaluated_tokens: int = 0
    generated_tokens: int = 0
    calls: int = 1
    prompt_tokens: int = 0


@dataclass
class Reader:
    """Reads utterances with ``llm`` (see the module docstring). ``examples``: another
    reading prompt file (default ``config/reading/examples.yaml``); ``ledger``: where the
    reading calls' tokens are counted (purpose ``read``); ``call``: runs the LLM call (the
    agent's stop signal wraps it, so a stop ends a reading too); ``check_slots``: the model is
    asked about each slot the words may leave empty that it filled (:mod:`.check`)."""

    llm: LLMClient
    examples: str | None = None
    ledger: TokenLedger | None = None
    call: Callable = field(default=lambda fn, *a, **k: fn(*a, **k))
    costs: list[ReadingCost] = field(default_factory=list)
    check_slots: bool = True

    def __post_init__(self) -> None:
        self._kept: OrderedDict[tuple, Reading | None] = OrderedDict()
        self._latest: dict[str, Reading] = {}
        self._lock = threading.Lock()
        self.last_failure: str | None = None
        # what people call the scene's things, asked of the model once each (.asked_name)
        self.other_names = OtherNames(lambda p, g: self._ask(p, g, NAMES_TOKENS),
                                      store=names_store_for(self.llm))

    def prefill(self, persist: bool = True, call: Callable | None = None) -> Usage | None:
        """Let a stateful LLM evaluate the reading prompts' examples now (at start-up);
        ``call`` runs the model's prefill (default :attr:`call`). Returns what it cost."""
        prefill = getattr(self.llm, "prefill", None)
        if prefill is None:
            return None
        total = Usage()
        prefixes = [reading_prefix(self.examples, kind) for kind in KINDS]
        prefixes += [check_prefix(), lasting_prefix(), check_prefix(asked_place_prompt()),
                     check_prefix(asked_hand_prompt()), check_prefix(asked_name_prompt()),
                     other_names_prefix()] \
            if self.check_slots else []
        # a habit's form, the kind its user spoke of, a thing's kind (the learn turn of a habit
        # and the first request a kind habit holds for: 30 s cold, measured)
        prefixes += [edit_prefix(), kind_said_prefix(), kind_of_prefix()]
        for text in prefixes:
            try:
                usage = (call or self.call)(prefill, text, persist=persist)
            except LLMError as exc:
                log.warning("prefilling the reading prompt failed: %s", exc)
                return total
            if usage is not None:
                total = total + usage
            if usage is not None and self.ledger is not None and usage.evaluated_tokens:
                self.ledger.record(usage, "prefill")
        return total

    def read(self, utterance: str, vocabulary: ReadingVocabulary,
             reply: bool = False, moved: Sequence[str] | None = None) -> Reading | None:
        """The reading of ``utterance`` in the scene of ``vocabulary``, as a request or, with
        ``reply``, as the user's answer to an attempt that moved ``moved`` (scene names; None:
        not known), "the one you moved" resolved (:func:`.attempt.answering`). None: no
        reading could be had (:attr:`last_failure` says why)."""
        text = spoken_text(utterance)
        kind = "reply" if reply else "request"
        moved = tuple(moved) if reply and moved is not None else None
        key = (text, kind, vocabulary.key(), moved)
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        reading = self._read(str(utterance), text, vocabulary, kind, moved)
        with self._lock:
            self._kept[key] = reading
            while len(self._kept) > READINGS_KEPT:
                self._kept.popitem(last=False)
            if reading is not None:
                self._latest[text] = reading
        return reading

    def last(self, utterance: str) -> Reading | None:
        """The latest reading of ``utterance`` in any scene, if it was read."""
        return self._latest.get(spoken_text(utterance))

    def _read(self, utterance: str, text: str, vocabulary: ReadingVocabulary,
              kind: str, moved: tuple[str, ...] | None = None) -> Reading | None:
        if not text:
            return Reading(utterance, ())
        said = [vocabulary.spoken(n) for n in moved] if moved is not None else None
        prompt = build_prompt(vocabulary.scene_line(), text, self.examples, kind, said)
        start = time.perf_counter()
        try:
            completion = self.call(self.llm.complete, prompt, stop=STOP, temperature=0.0,
                                   max_tokens=MAX_TOKENS, grammar=reading_gbnf(vocabulary))
        except LLMError as exc:
            self.last_failure = f"the language model failed: {exc}"
            log.warning("no reading of %r: %s", text[:80], self.last_failure)
            return None
        wall = time.perf_counter() - start
        usage = completion.usage
        self.costs.append(ReadingCost(wall, usage.evaluated_prompt_tokens,
                                      usage.completion_tokens, prompt_tokens=usage.prompt_tokens))
        if self.ledger is not None:
            self.ledger.record(usage, "read")
        try:
            reading = answering(parse(utterance, completion.text, vocabulary), moved)
        except ReadingError as exc:
            self.last_failure = f"no reading in {completion.text!r}: {exc}"
            log.warning("no reading of %r: %s", text[:80], self.last_failure)
            return None
        if self.check_slots:
            reading = self._checked(reading, prompt + completion.text.rstrip("\n"), text,
                                    vocabulary, kind == "reply", moved)
            wall = time.perf_counter() - start
            self.costs[-1].wall_s = wall
        reading = things_as_places(places_said(reading, vocabulary), vocabulary.lying)
        if kind == "request" or moved is not None:
            reading = without_places_in_place(reading, vocabulary.lying, moved or ())
        self.last_failure = None
        log.info("read %r as %s (%.2f s)", text[:80],
                 reading.render(vocabulary.spoken).replace("\n", "; "), wall)
        return reading

    def _ask(self, prompt: str, grammar: str, max_tokens: int = 2,
             stop: tuple[str, ...] = ("\n",)) -> str:
        """One short call of a check, counted with the reading's cost."""
        cost = self.costs[-1]
        completion = self.call(self.llm.complete, prompt, stop=stop, temperature=0.0,
                               max_tokens=max_tokens, grammar=grammar)
        cost.evaluated_tokens += completion.usage.evaluated_prompt_tokens
        cost.generated_tokens += completion.usage.completion_tokens
        cost.prompt_tokens += completion.usage.prompt_tokens
        cost.calls += 1
        if self.ledger is not None:
            self.ledger.record(completion.usage, "read")
        return completion.text

    def _checked(self, reading: Reading, written: str, text: str,
                 vocabulary: ReadingVocabulary, reply: bool,
                 moved: tuple[str, ...] | None) -> Reading:
        """``reading`` after the checks' questions, in order (each in a prompt of its own):
        what the model says it left out (:mod:`.omission`; ``written``: the prompt and the
        reading as the model wrote it, which the one meant continues), the slots it says the
        user did not say left empty (:class:`.check.SlotCheck`), ``learn`` where it says the
        reply speaks about every time (:mod:`.lasting`), a request's ``me`` or room
        (:mod:`.asked_place`), a thing named in no word said (:mod:`.asked_name`) and hand
        (:mod:`.asked_hand`) left out where it says the request does not say them, a reply's
        both hands read again as what comes along where it says they are not said. A check
        whose LLM call fails leaves the reading as it was."""
        def line(prompt: str, kind: str, grammar: str, what: str) -> Clause | None:
            """The ``kind`` line the model writes after ``prompt`` under ``grammar``."""
            rest = self._ask(prompt, grammar, MAX_TOKENS, STOP)
            try:
                return parse_clause(f"{kind}:" + rest.rstrip("\n"), vocabulary)
            except ReadingError as exc:
                log.warning("no %s in %r: %s", what, rest, exc)
                return None

        def meant():
            clause = line(written + "\n- do:", "do", move_rest_gbnf(vocabulary),
                          "line for the one meant")
            if clause is None:
                return None
            kept = answering(Reading(reading.utterance, (Clause("wrong object"), clause)), moved)
            return kept.moves[0] if kept.moves else None

        def along(rest: Reading) -> Clause | None:
            head = written[:written.rindex(END) + len(END)]        # the prompt, unread
            clause = line(head + " also:", "also", also_rest_gbnf(vocabulary), "also line")
            if clause is None:
                return None
            return oriented(Reading(rest.utterance, (clause,)), moved or ()).clauses[0]

        checks = (
            ("completed", lambda r: OmissionCheck(self._ask, meant)(r, text, reply)),
            ("checked", lambda r: SlotCheck(self._ask)(r, text, vocabulary.spoken, reply)),
            ("asked about later times",
             lambda r: LastingCheck(lambda p, g: self._ask(p, g, 4))(r, text, reply,
                                                                     habits=vocabulary.me)),
            ("asked for its place",
             lambda r: AskedPlaceCheck(self._ask)(r, text, vocabulary, reply)),
            ("asked for its things' names",
             lambda r: AskedNameCheck(self._ask, names=self.other_names)(
                 r, text, vocabulary, reply)),
            ("asked for its hand",
             lambda r: AskedHandCheck(self._ask, along=along)(r, text, reply)),
        )
        for what, check in checks:
            try:
                reading = check(reading)
            except LLMError as exc:
                log.warning("the reading of %r is not %s: %s", text[:80], what, exc)
        return reading


def kind_said_prefix() -> str:
    """The kind question's prompt before the user's words (the same for every habit)."""
    return kind_prompt("").rsplit("said: ", 1)[0]


__all__ = ["Reader", "ReadingCost", "MAX_TOKENS"]

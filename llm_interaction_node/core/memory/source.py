"""The agent's example source: the memory's prompt examples for the latest utterances, and
what happens while the memory cannot be reached (issue 18: a fault that loses nothing).

Its own class so that the outage (the seeds cached at start stand in, the robot says so once,
what was learned meanwhile is stored when the memory is back) lives in one place.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence

from ..learning.choice import is_choice_lesson
from ..learning.general import is_rule_lesson
from ..learning.route import without_speeds
from ..learning.scenes_check import SCENE
from ..llm.usage import estimate_tokens
from ..reading.record import reading_from_json
from ..reading.structure import CONDITIONS
from .adapt import adapted, adapted_to, names_a_choice, same_kind
from .fleet import lacking, taught_by
from .meaning import Reuse, names_meant, same_shape, slot_mapping
from .order import Order, nearest_within, stable_order

log = logging.getLogger(__name__)

MEMORY_OUTAGE = ("My memory is not reachable right now, so I will go on with what I knew "
                 "from the start; what I learn meanwhile is kept until it is back.")
MEMORY_BACK = "My memory is back: I stored the {n} thing(s) I learned while it was away."


def _bound_elsewhere(example, asked) -> bool:
    """A lesson bound to its things (its reading says a hand, or a condition: what comes
    along, asking first) and a request at hand that does not read as about them
    (:func:`.meaning.slot_mapping` None); False where either has no reading."""
    lesson = reading_from_json(getattr(example, "reading", None))
    if lesson is None or asked is None or not lesson.of_kind("hand", *CONDITIONS):
        return False
    return slot_mapping(lesson, asked) is None


def _names_written(text: str, mapping: dict[str, str], known: list[str]) -> bool:
    """Whether every name the mapping changes (a thing or place of the scene; sides and
    counts are written as code) is written in the lesson as the name: a lesson that wrote its
    place as coordinates (``denormalize_xy([0.5, 1])`` for "the top side") cannot be carried
    to another place, and followed it would put the object at the lesson's."""
    names = set(known)
    return all(repr(old) in text or f'"{old}"' in text
               for old, new in mapping.items() if old != new and old in names)


def _meaning_mapping(lesson, text: str, asked, known: list[str]) -> dict[str, str] | None:
    """How a lesson (``text``, its request read as ``lesson``) reads in the request at hand
    (``asked``), where it can be shown in the request's meaning: the two readings have one
    shape (:func:`.meaning.slot_mapping`), it names no object chosen by name and every name
    the mapping changes is written as the name; else None (shown as stored, not followed)."""
    mapping = slot_mapping(lesson, asked)
    if mapping is None or names_a_choice(text, names_meant(lesson)) \
            or not _names_written(text, mapping, known):
        return None
    return mapping


def _in_meaning(example, text: str, asked, known: list[str]) -> bool:
    """Whether a lesson that holds beyond its own scene, its request read, can be shown in
    the request's meaning (what :meth:`ExampleSource._adapted` adapts)."""
    if getattr(example, "scope", None) == SCENE:
        return False
    lesson = reading_from_json(getattr(example, "reading", None))
    return lesson is not None and _meaning_mapping(lesson, text, asked, known) is not None


def _nearest_in_meaning_last(found: list, texts: list[str], learned: list[bool], asked,
                             known: list[str]) -> tuple[list, list[str], list[bool]]:
    """The most similar lesson of the request's meaning moved last (where the nearest one is
    shown in the request's names and followed), when a lesson of another shape or of its own
    scene only is nearer by words. Measured (issue 43, seed 64269, block_distance_to_bowl run
    5): "find the block nearest to the blue bowl and put it in the top right corner" was shown
    last the literal lesson of "pick up the block to the top of the orange bowl ..." (its
    wrong first move in it) and copied that move; the lesson of "grab whichever block is
    closest to the green bowl and drop it at the upper right corner", one shape with it, came
    before."""
    last = max((i for i, mine in enumerate(learned) if mine), default=None)
    meant = [i for i, mine in enumerate(learned)
             if mine and _in_meaning(found[i], texts[i], asked, known)]
    if last is None or not meant or meant[-1] == last:
        return found, texts, learned
    i = meant[-1]
    log.info("the lesson of the request's meaning is shown last, before one nearer by words")
    order = [j for j in range(len(found)) if j != i] + [i]
    return [found[j] for j in order], [texts[j] for j in order], [learned[j] for j in order]


def _in_this_world(found: list, texts: list[str], learned: list[bool],
                   known: list[str]) -> tuple[list, list[str], list[bool]]:
    """The examples without the lessons that name, as shown, a thing or place this robot's
    world lacks (:func:`.fleet.lacking`: taught by another robot of a fleet in its world)."""
    keep = []
    for example, text, mine in zip(found, texts, learned, strict=True):
        missing = lacking(example, known, text) if mine else []
        if missing:
            log.info("the lesson %s (taught by %s) is not shown: this world has no %s",
                     example.id, taught_by(example) or "another robot", ", ".join(missing))
        keep.append(not missing)
    if all(keep):
        return found, texts, learned
    return ([x for x, k in zip(found, keep, strict=True) if k],
            [x for x, k in zip(texts, keep, strict=True) if k],
            [x for x, k in zip(learned, keep, strict=True) if k])


def _as_shown(example) -> str:
    """An example's transcript as a prompt shows it: a seed as written, a lesson without the
    speeds of its drives (a taught speed is the robot's, learning/route.RememberedRoutes)."""
    return example.transcript if example.source == "seed" else without_speeds(example.transcript)


def _a_rule(lesson: str) -> bool:
    """A lesson written as a rule (a loop over a kind, a choice by where an object lies)."""
    return is_rule_lesson(lesson) or is_choice_lesson(lesson)


class ExampleSource:
    """Called with the latest utterances, returns the example transcripts for the prompt:
    the memory's prompt examples (``memory.order``: by default the seed block, then the top-k
    learned examples, most similar last; k: ``memory.k``); with ``retrieval`` off every
    example in memory, oldest first. With no utterance yet: the query-independent head of the
    layout (the seed block; for prefilling a local model before the user speaks;
    ``ExampleMemory.prompt_examples``).

    A memory that cannot be reached (ConnectionError, the store's MemoryServerUnreachable)
    does not end the turn: the seed examples read at start (cached here: the seed block, or
    the first k in the stable order) stand in, and ``say`` tells :data:`MEMORY_OUTAGE` once per
    outage. When the memory answers again, ``retry`` stores what was kept meanwhile (the
    learner's ``retry_pending``: how many it stored) and ``say`` tells :data:`MEMORY_BACK`.

    ``names``: the names the request at hand may say (the scene's and the API's places);
    given, the nearest lesson (shown last) is shown in the request's names where the two
    requests differ only in names (``memory.adapt_names``, :mod:`.adapt`).

    A lesson's drives are shown without their ``speed_factor`` (:func:`..learning.route.
    without_speeds`): the robot drives a taught route at its speed by itself.

    ``read``: the reading of the task's request (the agent's reader); given and
    ``memory.reuse`` meaning, a lesson stored with the reading of its request is matched by
    meaning (:mod:`.meaning`): shown in the request's words and names where the two readings
    have the same shape, and a rule lesson is shown only to requests of its shape.

    Once the store holds more lessons than the head (``ExampleMemory.beyond_head``), the
    lessons kept are cut to the nearest within ``memory.tail_tokens``
    (:func:`.order.nearest_within`): the first statement does not grow with the lessons.

    A lesson another robot was taught in a world with things or places this one lacks
    (:func:`.fleet.lacking` of ``names``) is shown only where it was read in the request's
    names (the nearest, adapted by meaning or words) and names none of them any more; else it
    is left out of the prompt (issue 61: a fleet on one memory).

    ``fallback``: the seed transcripts to go on with where the memory cannot be reached at
    the start (a server that is down when the robot starts: their files)."""

    def __init__(self, memory, retrieval: bool = True,
                 say: Callable[[str], None] = lambda text: None,
                 retry: Callable[[], int] = lambda: 0,
                 names: Callable[[], Iterable[str]] | None = None,
                 read: Callable[[str], object] | None = None,
                 fallback: Callable[[], Sequence[str]] | None = None):
        self.memory = memory
        self.names = names
        self.read = read
        self.nearest_lesson: str | None = None    # the last call's last example, if learned
        self.shown_lessons: list[str] = []        # the last request's lessons shown (ids)
        self.retrieval = retrieval
        self.say = say
        self.retry = retry
        self.down = False
        try:
            cached = memory.seed_block() if memory.config.order is Order.SEED_BLOCK else \
                stable_order(memory.list("seed"), memory.seed_centrality())[:memory.config.k]
            self.seeds = [e.transcript for e in cached]
        except ConnectionError as exc:
            self.seeds = list(fallback()) if fallback is not None else []
            log.warning("cannot cache the seed examples (%d from their files instead): %s",
                        len(self.seeds), exc)

    def _examples(self, utterances: Sequence[str]) -> list[str]:
        if not self.retrieval:
            return [_as_shown(e) for e in self.memory.list()]
        # asked once per request: the store's layout reads it, and so does the cut below
        beyond = self._beyond_head() if utterances else None
        found = self.memory.prompt_examples(utterances, beyond=beyond)
        learned = [e.source != "seed" for e in found]
        texts = [_as_shown(e) for e in found]
        self.nearest_lesson = None
        if utterances:
            found, texts, learned, fitted = self._for_request(found, texts, learned, utterances)
            if any(learned) and beyond:
                shown, learned = nearest_within(range(len(texts)), learned,
                                                self.memory.config.tail_tokens,
                                                lambda i: estimate_tokens(texts[i]))
                found, texts = [found[i] for i in shown], [texts[i] for i in shown]
            if fitted and learned and learned[-1]:
                self.nearest_lesson = texts[-1]
            self.shown_lessons = [e.id for e, mine in zip(found, learned, strict=True) if mine]
        elif any(learned) and self.names is not None:    # the head: as a request sees it
            try:
                known = list(self.names())
            except Exception:  # noqa: BLE001 - no scene yet: the head as stored
                return texts
            _found, texts, learned = _in_this_world(found, texts, learned, known)
        return texts

    def _for_request(self, found, texts: list[str], learned: list[bool],
                     utterances: Sequence[str]) -> tuple[list, list[str], list[bool], bool]:
        """The examples shown to the request (``found`` in step with their texts): the
        lessons in the request's names (the nearest) and those shown to it
        (``memory.rules_to_their_kind``); False last where the scene's names are unknown
        (the lessons as stored, none to follow)."""
        config = self.memory.config
        if self.names is None or not any(learned):
            return found, texts, learned, False
        try:
            known = list(self.names())
        except Exception as exc:  # noqa: BLE001 - no scene: the lessons as stored
            log.warning("the lessons are shown as stored: the scene's names are unknown (%s)",
                        exc)
            return found, texts, learned, False
        asked = self._request_reading(utterances)
        if asked is not None and getattr(config, "adapt_names", False):
            found, texts, learned = _nearest_in_meaning_last(found, texts, learned, asked, known)
        if learned[-1] and getattr(config, "adapt_names", False):   # the nearest, in its words
            texts[-1] = self._adapted(found[-1], texts[-1], utterances, known, asked)
        found, texts, learned = _in_this_world(found, texts, learned, known)
        if getattr(config, "rules_to_their_kind", False):
            kept = [(ex, t, mine) for t, ex, mine in zip(texts, found, learned, strict=True)
                    if not mine or self._shown(ex, t, utterances, known, asked)]
            found, texts, learned = ([k[0] for k in kept], [k[1] for k in kept],
                                     [k[2] for k in kept])
        return found, texts, learned, True

    def _beyond_head(self) -> bool:
        """The store holds more lessons than the head shows (``ExampleMemory.beyond_head``):
        the request is shown its nearest lessons within ``memory.tail_tokens``."""
        beyond = getattr(self.memory, "beyond_head", None)
        return bool(beyond()) if beyond is not None else False

    def _request_reading(self, utterances: Sequence[str]):
        """The reading of the task's request, where lessons are matched by meaning."""
        if self.read is None or getattr(self.memory.config, "reuse", Reuse.WORDS) \
                is not Reuse.MEANING:
            return None
        try:
            return self.read(utterances[0])
        except Exception as exc:  # noqa: BLE001 - no reading: the lessons by words
            log.warning("the request was not read, lessons are matched by words: %s", exc)
            return None

    @staticmethod
    def _adapted(example, text: str, utterances: Sequence[str], known: list[str],
                 asked) -> str:
        if getattr(example, "scope", None) == SCENE:
            return text          # held in its own scene only: the paper's literal example
        lesson = reading_from_json(getattr(example, "reading", None))
        if lesson is None or asked is None:
            return adapted(text, utterances, known)           # by words
        mapping = _meaning_mapping(lesson, text, asked, known)
        if mapping is None:
            return text          # another shape, or a choice by name: as stored, not followed
        log.info("the nearest lesson read in the request's meaning: %s", mapping or "as said")
        return adapted_to(text, mapping, utterances[0])

    def _shown(self, example, text: str, utterances: Sequence[str], known: list[str],
               asked) -> bool:
        """Whether a lesson goes into the prompt of this request (``memory.rules_to_their_kind``):
        a rule only to a request of its kind, a lesson bound to its things only to a request
        about them."""
        if _a_rule(text) and not self._its_kind(example, text, utterances, known, asked):
            return False
        return not _bound_elsewhere(example, asked)

    @staticmethod
    def _its_kind(example, text: str, utterances: Sequence[str], known: list[str],
                  asked) -> bool:
        lesson = reading_from_json(getattr(example, "reading", None))
        if lesson is None or asked is None:
            return same_kind(text, utterances, known)          # by words
        return same_shape(lesson, asked)

    def head(self) -> list[str] | None:
        """The examples of every prompt whatever the query (the layout's head: the seed block
        and the lessons in the order they were stored), for the agent's prefill while it waits
        for the user; None while the memory cannot be reached (said at the next request)."""
        try:
            return self._examples([])
        except ConnectionError as exc:
            log.debug("no head of the examples now: %s", exc)
            return None

    def __call__(self, utterances: Sequence[str]) -> list[str]:
        try:
            found = self._examples(utterances)
        except ConnectionError as exc:
            log.warning("the example memory is unreachable; going on with the %d seed "
                        "examples cached at start: %s", len(self.seeds), exc)
            if not self.down:
                self.down = True
                self.say(MEMORY_OUTAGE)
            return list(self.seeds)
        if self.down:
            self.down = False
            log.info("the example memory answers again")
            stored = self.retry()
            if stored:
                self.say(MEMORY_BACK.format(n=stored))
        return found


__all__ = ["ExampleSource", "MEMORY_OUTAGE", "MEMORY_BACK"]

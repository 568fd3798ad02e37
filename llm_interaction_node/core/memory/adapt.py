"""A lesson shown in the words of the request at hand, where the two differ only in names.

Measured (issue 30, embedded 1.5B model): a lesson for the same instruction, word for word,
was followed in 4 of 5 later runs; a lesson for the same kind of request in other names
("put the blocks in the blue bowl" taught, "put the blocks in the green bowl" asked) was not,
as often as without it. So the nearest lesson, the one right before the interaction, is
shown with the request at hand where the two requests differ only in phrases that are names
the lesson uses (its string literals, the names its look at the scene listed) and the
request at hand says names of its scene (or the API's places) there instead: "blue bowl"
becomes "green bowl" in its request, its statements and its listing (where the lesson's scene
has a green bowl too, the two swap places, so its scene stays one of distinct objects). A
difference in any other word ("to the left of" against "to the top of") leaves the lesson as
it was stored: its statements may compute with that word; so does a lesson that names an
object its request does not say (the block "to the left of the green bowl", put by name: in
the new words it would read as the rule). The stored lesson never changes.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from ..learning.choice import CHOICE_WORDS, SIDES, choice_words_in, is_choice_lesson, word_code
from ..reading.vocabulary import spoken_form
from ..transcript.statements import bare_call
from ..transcript.transcript import Entry, Transcript, listed_names, output_value

_WORD = re.compile(r"[a-z0-9_]+(?:[-'][a-z0-9_]+)*")
_QUOTED = re.compile(r"'([^'\\\n]*)'|\"([^\"\\\n]*)\"")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def name_mapping(taught: str, asked: str, names: Iterable[str],
                 known: Iterable[str]) -> dict[str, str] | None:
    """How the names of a lesson taught for ``taught`` read in ``asked``: ``{old: new}``
    for each of ``names`` said in ``taught`` at a place where ``asked`` says one of ``known``
    (the names of the scene at hand and the API's places) instead; None where the requests
    differ anywhere else (or not at all)."""
    spelled = {" ".join(words(k)): k for k in known}
    old, new = words(taught), words(asked)
    opcodes = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    changes = [op for op in opcodes if op[0] != "equal"]
    if not changes:
        return None
    boundary: dict[int, int] = {}          # an old word position -> the new one
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            boundary.update({i1 + k: j1 + k for k in range(i2 - i1 + 1)})
        else:
            boundary.setdefault(i1, j1)
            boundary[i2] = j2
    spans = [(a, a + len(w), n) for n in set(names) if (w := words(n))
             for a in range(len(old) - len(w) + 1) if old[a:a + len(w)] == w]
    mapping: dict[str, str] = {}
    for _tag, i1, i2, _j1, _j2 in changes:
        covering = [(a, b, n) for a, b, n in spans
                    if a <= i1 and i2 <= b and a in boundary and b in boundary]
        if not covering:
            return None
        a, b, name = max(covering, key=lambda s: s[1] - s[0])
        said = spelled.get(" ".join(new[boundary[a]:boundary[b]]))
        if said is None or mapping.get(name, said) != said:
            return None
        mapping[name] = said
    return {k: v for k, v in mapping.items() if k != v} or None


def with_swaps(mapping: dict[str, str]) -> dict[str, str]:
    """``mapping`` with each new name that was an old one's place taken the other way round
    (blue bowl -> green bowl and green bowl -> blue bowl): the lesson's objects stay distinct."""
    full = dict(mapping)
    for old, new in mapping.items():
        if new not in full and old not in mapping.values():
            full[new] = old
    return full


# the robot's speech: its sentences are no names (measured, issue 44: "May I take the tea
# cup?" and "Sure, I will bring you the tea cup." counted as names the scene does not know,
# and a lesson that asked first was never followed)
SPEECH = ("say", "ask")


def lesson_names(transcript: Transcript) -> tuple[set[str], set[str]]:
    """(the string literals of the lesson's statements but what the robot says, the names its
    looks listed)."""
    literals: set[str] = set()
    listed: set[str] = set()
    for entry in transcript.entries:
        if entry.is_comment or Entry(entry.source).calls("wait_for_trigger"):
            continue
        call = bare_call(entry.source)
        if call is None or call.func.id not in SPEECH:     # what the robot says names nothing
            literals |= {a or b for a, b in _QUOTED.findall(entry.source)}
        listed |= set(listed_names(entry.output) or ())
    return ({n for n in literals if n and n == n.strip()},      # not ' block' of endswith()
            listed)


def chooses_by_name(taught: str, literals: set[str], listed: set[str]) -> bool:
    """Whether the lesson's statements name an object of its scene its request does not say:
    the lesson chose it there ("the block to the left of the green bowl" -> 'red block'); in
    another request's words it would read as the rule for every scene."""
    said = f" {' '.join(words(taught))} "
    return any(f" {' '.join(words(n))} " not in said for n in literals & listed)


def adapted(lesson: str, utterances: Sequence[str], known: Iterable[str]) -> str:
    """The lesson (a stored transcript) in the words of the newest of ``utterances`` whose
    difference from the lesson's request is names only (:func:`name_mapping`; ``known``: the
    names the request at hand may say); unchanged if there is none."""
    known = list(known)
    transcript = Transcript.parse(lesson)
    said = transcript.user_utterances()
    if not said:
        return lesson
    literals, listed = lesson_names(transcript)
    if chooses_by_name(said[0], literals, listed):
        return lesson
    names, known = _vocabulary(transcript, literals | listed, known)
    for utterance in reversed(utterances):
        mapping = name_mapping(said[0], utterance, names, known)
        if mapping is not None:
            return _renamed(transcript, with_swaps(mapping), utterance).render()
    return lesson


def adapted_to(lesson: str, mapping: dict[str, str], request: str) -> str:
    """The lesson (a stored transcript) with its request said as ``request`` and each of its
    names, sides and counts read as ``mapping`` says (:func:`.meaning.slot_mapping`: from the
    readings of the two requests, whatever their words); the stored lesson never changes."""
    return _renamed(Transcript.parse(lesson), with_swaps(mapping), request).render()


def names_a_choice(lesson: str, meant: set[str]) -> bool:
    """Whether the lesson's statements name an object of its scene its request's reading does
    not name (``meant``: :func:`.meaning.names_meant`): the lesson chose it there by name
    ("the block left of the green bowl" -> 'red block'), which holds in that scene only."""
    literals, listed = lesson_names(Transcript.parse(lesson))
    return bool((literals & listed) - meant)


def same_kind(lesson: str, utterances: Sequence[str], known: Iterable[str]) -> bool:
    """Whether one of ``utterances`` is the lesson's request, word for word or in other names
    only (:func:`name_mapping`)."""
    transcript = Transcript.parse(lesson)
    said = transcript.user_utterances()
    if not said:
        return False
    literals, listed = lesson_names(transcript)
    names, known = _vocabulary(transcript, literals | listed, known)
    return any(words(u) == words(said[0])
               or name_mapping(said[0], u, names, known) is not None
               for u in utterances)


def _vocabulary(transcript: Transcript, names: set[str],
                known: Iterable[str]) -> tuple[set[str], list[str]]:
    """The names a lesson's request may have in other words, and the words that may stand in
    their place: besides its names, a lesson that chose an object by where it lies
    (:mod:`..learning.choice`) has the side and count it computes with ("to the left of" read as
    ``np.array([-1, 0])``, "the second" as ``_names[1]``), which read as any other side or count
    in a request of the same words."""
    known = list(known)
    if not is_choice_lesson(transcript.render()):
        return names, known
    said = choice_words_in([e.source for e in transcript.entries])
    return names | said, known + [w for w in CHOICE_WORDS if w not in known]


def _renamed(transcript: Transcript, mapping: dict[str, str], request: str) -> Transcript:
    entries, asked = [], False
    for entry in transcript.entries:
        if not asked and Entry(entry.source).calls("wait_for_trigger") and entry.output:
            value = output_value(entry.output)
            if isinstance(value, dict) and isinstance(value.get("text"), str):
                entries.append(Entry(entry.source, repr({**value, "text": request})))
                asked = True
                continue
        if entry.is_comment:
            entries.append(entry)
            continue
        source = _sided(_QUOTED.sub(lambda m: _requoted(m, mapping), entry.source), mapping)
        call = bare_call(source)
        if call is not None and call.func.id in SPEECH:
            source = said_in_new_names(source, mapping)
        listed = listed_names(entry.output)
        output = repr([mapping.get(n, n) for n in listed]) if listed is not None \
            else entry.output
        entries.append(Entry(source, output))
    return Transcript(entries)


def said_in_new_names(source: str, mapping: dict[str, str]) -> str:
    """What the robot says (a ``say``/``ask`` statement) with the spoken form of each name in
    ``mapping`` said as its new one's, all at once (swaps stay swaps). Measured (teach-once
    bench, built-in wordings, seed 15522, cae1f18): the book lesson followed for "take the tea
    cup to the coffee table" put the tea cup there and said "The book is on the sideboard
    now."."""
    forms: dict[str, str] = {}
    for old, new in mapping.items():
        said, now = spoken_form(old), spoken_form(new)
        if said and now and said != now:
            forms.setdefault(said, now)
    if not forms:
        return source
    pattern = re.compile(r"\b(" + "|".join(re.escape(f) for f in sorted(forms, key=len,
                                                                       reverse=True)) + r")\b")
    return pattern.sub(lambda m: forms[m.group(1)], source)


def _sided(source: str, mapping: dict[str, str]) -> str:
    """``source`` with the code of each side or count word in ``mapping`` read as its new word
    (a side's vector as another side's, ``_names[1]`` as ``_names[0]``)."""
    codes = {word_code(old): word_code(new) for old, new in mapping.items()
             if old in CHOICE_WORDS and new in CHOICE_WORDS
             and (old in SIDES) == (new in SIDES)}
    if not codes:
        return source
    pattern = re.compile("|".join(re.escape(c) for c in codes))
    return pattern.sub(lambda m: codes[m.group(0)], source)


def _requoted(match: re.Match, mapping: dict[str, str]) -> str:
    text = match.group(1) if match.group(1) is not None else match.group(2)
    return repr(mapping[text]) if text in mapping else match.group(0)


__all__ = ["adapted", "adapted_to", "names_a_choice", "same_kind", "name_mapping", "with_swaps",
           "lesson_names", "chooses_by_name", "words"]

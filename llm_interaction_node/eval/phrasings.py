"""How the simulated users say things: the wording pools every benchmark takes (``--phrasings``).

A person does not speak from one closed pool, so phrasing is a variable of every benchmark: a
YAML file gives, per instruction template, the instruction's wordings (format strings over the
template's attributes, :func:`instruction_fields`), per kind of feedback the user's sentences
(format strings over the fact's fields, :func:`~.simulated_user.fact_fields`), the requests to
learn, the closing replies, and the household's requests, replies and lessons. Whatever a file
leaves out is the built-in pool's (:data:`BUILT_IN`: the template's own sentence, the simulated
user's phrase lists). Run ``r`` (1-based) of a template takes wording ``(r - 1) mod n``, the same
for every system; the other pools are drawn by the simulated user's seeded shuffles.

The file format (every key optional)::

    instructions:            # template id -> wordings
      blocks_in_bowl: ["put the cubes in the {bowl}", "tidy up: everything goes in the {bowl}"]
    feedback:                # fact kind (simulated_user.FACT_WORDING) -> sentences
      missing: ["you forgot {things}", "{Things} {is} still not {wanted}"]
      wrong_block: ["Wrong cube.", "No, not that one. I meant {meant}."]
    learn: ["remember that", ...]            # the user asks the robot to learn
    closing: ["thanks, that's all", ...]     # the user approves and closes
    openers: [...]                           # before high-level feedback ("" allowed)
    closers: [...]                           # after it
    household:
      requests: {bring_one: [...], bring_two: [...], put_on: [...]}       # {a} {b} {place}
      feedback: {forgotten: [...], wrong_object: [...], wrong_place: [...]}  # ... {wrong}
      lessons: {also_bring: [...], put_on: [...], faster: [...], ask_first: [...], hand: [...]}
    section_e:               # scenario -> check request wordings (bench.section_e)
      E1: ["..."]

Fields of an instruction: the template's attributes (``block``, ``bowl``, ``place``,
``direction``, ``distance``, ``nth``, ...) and, derived from them, ``<attr>_color`` ("red"),
``place_said`` ("upper left corner", "left edge", "center"), ``rel`` ("left of", "above"),
``rel_long`` ("on the left-hand side of", "just above"), ``dist_to`` ("closest to" / "farthest
from"), ``dist_alt`` ("nearest to" / "furthest away from"), ``nth_digit`` ("2nd"), ``nth_num``
("2"), ``nth_block`` ("leftmost block", "second block from the top") and ``meant`` (what a
selection template means: "the block to the left of the green bowl").
"""
from __future__ import annotations

import hashlib
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .observe import FACT_FIELDS, FACT_KINDS, SIDE_OF
from .tasks import TEMPLATE_IDS, make_task

PLACE_SAID = {
    "top left corner": "upper left corner", "top right corner": "upper right corner",
    "bottom left corner": "lower left corner", "bottom right corner": "lower right corner",
    "left side": "left edge", "right side": "right edge", "top side": "top edge",
    "bottom side": "bottom edge", "middle": "center",
}
REL = {"left": "left of", "right": "right of", "top": "above", "bottom": "below"}
REL_LONG = {"left": "on the left-hand side of", "right": "on the right-hand side of",
            "top": "just above", "bottom": "just below"}
EDGE_MOST = {"left": "leftmost", "right": "rightmost", "top": "topmost", "bottom": "bottommost"}
NTH_DIGIT = {"first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th"}
NTH_NUM = {"first": 1, "second": 2, "third": 3, "fourth": 4}

TOP_KEYS = ("instructions", "feedback", "learn", "closing", "openers", "closers", "household",
            "section_e")
HOUSEHOLD_KEYS = {
    "requests": ("bring_one", "bring_two", "put_on", "hold_in", "take_to", "put_away"),
    "feedback": ("forgotten", "wrong_object", "wrong_place", "handed_over", "wrong_hand",
                 "too_slow"),
    "lessons": ("also_bring", "put_on", "faster", "ask_first", "hand"),
}
# the fields each household wording may use
HOUSEHOLD_FIELDS = {
    "requests": {"a", "b", "place", "hand"},
    "feedback": {"a", "b", "place", "wrong", "hand"},
    "lessons": {"a", "b", "place", "from", "to", "hand"},
}


class PhrasingsError(ValueError):
    """A phrasings file that cannot be used (the message names the key and the entry)."""


def instruction_fields(task) -> dict[str, str]:
    """The fields an instruction wording of ``task`` may use (see the module docstring)."""
    a = dict(task.attributes)
    out: dict[str, str] = dict(a)
    for key, value in a.items():
        if isinstance(value, str) and value.endswith((" block", " bowl")):
            out[f"{key}_color"] = value.split()[0]
    if "place" in a:
        out["place_said"] = PLACE_SAID.get(a["place"], a["place"])
    if "direction" in a:
        d = a["direction"]
        out["rel"], out["rel_long"] = REL[d], REL_LONG[d]
    if "distance" in a:
        closest = a["distance"] == "closest"
        out["dist_to"] = "closest to" if closest else "farthest from"
        out["dist_alt"] = "nearest to" if closest else "furthest away from"
    if "nth" in a:
        out["nth_digit"] = NTH_DIGIT.get(a["nth"], a["nth"])
        out["nth_num"] = str(NTH_NUM.get(a["nth"], a["nth"]))
        if "direction" in a:
            out["nth_block"] = (f"{EDGE_MOST[a['direction']]} block" if a["nth"] == "first"
                                else f"{a['nth']} block from the {a['direction']}")
    meant = meant_phrase(task)
    if meant:
        out["meant"] = meant
    return out


def meant_phrase(task) -> str:
    """What a selection task means, in words ("the block to the left of the green bowl", "the
    block closest to the red bowl", "the second block from the top"); '' for the other
    templates."""
    if not getattr(task.template, "selection", False):
        return ""
    a = task.attributes
    if "nth" in a and "direction" in a:
        return f"the {a['nth']} block from the {a['direction']}"
    if "distance" in a and "bowl" in a:
        return f"the block {'closest to' if a['distance'] == 'closest' else 'farthest from'} " \
               f"the {a['bowl']}"
    if "direction" in a and "bowl" in a:
        return f"the block {SIDE_OF[a['direction']]} the {a['bowl']}"
    return ""


@dataclass(frozen=True)
class Phrasings:
    """A wording pool (see the module docstring); ``source``: the file, or ``built-in``."""

    source: str = "built-in"
    digest: str = ""
    instructions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    feedback: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    learn: tuple[str, ...] = ()
    closing: tuple[str, ...] = ()
    openers: tuple[str, ...] | None = None
    closers: tuple[str, ...] | None = None
    household: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    section_e: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """How a record names this pool: ``built-in`` or ``<file name>@<digest>``."""
        return self.source if not self.digest else f"{Path(self.source).name}@{self.digest}"

    def instruction(self, task, run: int) -> str:
        """The wording run ``run`` (1-based) of ``task``'s template takes: ``(run - 1) mod n``;
        the template's own sentence where the pool has none."""
        wordings = self.instructions.get(task.template_id)
        if not wordings:
            return task.instruction
        wording = wordings[(max(run, 1) - 1) % len(wordings)]
        return wording.format(**instruction_fields(task))

    def household_pool(self, part: str, kind: str) -> tuple[str, ...]:
        return tuple(self.household.get(part, {}).get(kind, ()))


BUILT_IN = Phrasings()


def _strings(value, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PhrasingsError(f"{where}: expected a list of strings")
    if not value:
        raise PhrasingsError(f"{where}: the list is empty")
    return tuple(value)


def _fields_of(text: str, where: str) -> set[str]:
    try:
        return {f.split(".")[0].split("[")[0] for _, f, _, _ in string.Formatter().parse(text)
                if f is not None}
    except ValueError as exc:
        raise PhrasingsError(f"{where}: {text!r} is no format string ({exc})") from None


def _check_fields(texts: tuple[str, ...], allowed: set[str], where: str) -> None:
    for text in texts:
        unknown = _fields_of(text, where) - allowed
        if unknown:
            raise PhrasingsError(f"{where}: {text!r} uses {sorted(unknown)}; the fields here "
                                 f"are {sorted(allowed)}")


def _mapping(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise PhrasingsError(f"{where}: expected a mapping")
    return value


def load_phrasings(path: str | Path | None) -> Phrasings:
    """The pool of a YAML file (None: :data:`BUILT_IN`); every template, kind and field is
    checked, and an unknown one is an error that names it."""
    if path is None:
        return BUILT_IN
    path = Path(path)
    try:
        raw = path.read_bytes()
        data = yaml.safe_load(raw) or {}
    except OSError as exc:
        raise PhrasingsError(f"{path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise PhrasingsError(f"{path}: not valid YAML: {exc}") from None
    data = _mapping(data, str(path))
    unknown = set(data) - set(TOP_KEYS)
    if unknown:
        raise PhrasingsError(f"{path}: unknown key(s) {sorted(unknown)}; use {list(TOP_KEYS)}")
    instructions = {}
    for template, wordings in _mapping(data.get("instructions", {}), "instructions").items():
        if template not in TEMPLATE_IDS:
            raise PhrasingsError(f"instructions: {template!r} is no template; use one of "
                                 f"{', '.join(TEMPLATE_IDS)}")
        texts = _strings(wordings, f"instructions.{template}")
        sample = make_task(template, "sa_si", 0)
        _check_fields(texts, set(instruction_fields(sample)), f"instructions.{template}")
        instructions[template] = texts
    feedback = {}
    for kind, sentences in _mapping(data.get("feedback", {}), "feedback").items():
        if kind not in FACT_KINDS:
            raise PhrasingsError(f"feedback: {kind!r} is no kind of feedback; use one of "
                                 f"{', '.join(FACT_KINDS)}")
        texts = _strings(sentences, f"feedback.{kind}")
        _check_fields(texts, set(FACT_FIELDS), f"feedback.{kind}")
        feedback[kind] = texts
    household: dict[str, dict[str, tuple[str, ...]]] = {}
    for part, kinds in _mapping(data.get("household", {}), "household").items():
        if part not in HOUSEHOLD_KEYS:
            raise PhrasingsError(f"household: {part!r} is unknown; use {list(HOUSEHOLD_KEYS)}")
        household[part] = {}
        for kind, texts in _mapping(kinds, f"household.{part}").items():
            if kind not in HOUSEHOLD_KEYS[part]:
                raise PhrasingsError(f"household.{part}: {kind!r} is unknown; use "
                                     f"{list(HOUSEHOLD_KEYS[part])}")
            texts = _strings(texts, f"household.{part}.{kind}")
            _check_fields(texts, HOUSEHOLD_FIELDS[part], f"household.{part}.{kind}")
            household[part][kind] = texts
    section_e = {str(k): _strings(v, f"section_e.{k}")
                 for k, v in _mapping(data.get("section_e", {}), "section_e").items()}
    for key in ("learn", "closing"):
        if key in data:
            _check_fields(_strings(data[key], key), set(), key)

    def optional(key: str) -> tuple[str, ...] | None:
        if key not in data:
            return None
        value = data[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or not value:
            raise PhrasingsError(f"{key}: expected a non-empty list of strings")
        return tuple(value)

    return Phrasings(
        source=str(path), digest=hashlib.sha1(raw).hexdigest()[:10],
        instructions=instructions, feedback=feedback,
        learn=_strings(data["learn"], "learn") if "learn" in data else (),
        closing=_strings(data["closing"], "closing") if "closing" in data else (),
        openers=optional("openers"), closers=optional("closers"),
        household=household, section_e=section_e)


__all__ = ["Phrasings", "PhrasingsError", "BUILT_IN", "load_phrasings", "instruction_fields",
           "meant_phrase", "PLACE_SAID"]

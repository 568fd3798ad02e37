"""The names a person uses for a thing of the scene, as the model knows them.

The scene's names are the robot's (``tumbler_0``: "tumbler"); a person says "the glass". The
grammar offers only the scene's names, so "I'd like the glass" was read ``do: coffee cup ->
me`` (teach-once bench, 7c59f73), and asked "does the user name the coffee cup?" the 1.5B
model says yes, as it does for the tumbler (probed at 2e3b254: it tells neither apart in a
yes or no, nor when asked to choose). Asked what people call a tumbler, it writes "glass,
bottle, cup"; a coffee cup "cup, teacup, coffee mug". So the model is asked for each thing's
names (in a prompt of its own, ``config/reading/other_names.yaml``, three names under a
grammar), and the code matches them against the words said (:func:`called_by`). Asked only
where a request's reading named a thing in no word said (:mod:`.asked_name`), once per thing
and process (:class:`OtherNames` keeps them), and for the embedded model on disk beside its
saved states (:func:`store_for`: the same model and prompt give the same names, greedy under a
grammar), so a later process asks nothing (measured at 88a77dd: 4-7 s the first time a world's
things are named in a process).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..settings.config_files import config_path
from .prompt_file import load_prompt_file

log = logging.getLogger(__name__)

END = "called:"
NAMES = 3
MAX_TOKENS = 24
GRAMMAR = ('root ::= " " name (", " name){2} "\\n"\n'
           'name ::= [a-z]{1,14} (" " [a-z]{1,14})?')
# words that name no thing on their own: a name made only of these is no name
_EMPTY = frozenset("a an the of for and or to in on at my your it thing things stuff item "
                   "object one".split())
_WORD = re.compile(r"[a-z0-9]+")


def prompt_file() -> str:
    return str(config_path("reading", "other_names.yaml"))


@lru_cache(maxsize=4)
def load(path: str | None = None) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(header, ((thing, called), ...)) of the prompt file (default :func:`prompt_file`)."""
    source = path or prompt_file()
    header, examples = load_prompt_file(source, ("thing", "called"))
    if any(len(parse(called)) != NAMES for _, called in examples):
        raise ValueError(f"{source}: an example does not give {NAMES} names")
    return header, examples


def prefix(path: str | None = None) -> str:
    """The part of every prompt before the thing (the same for every thing)."""
    header, examples = load(path)
    return header + "\n\n" + "".join(f"thing: {t}\n{END} {c}\n\n" for t, c in examples)


def build(form: str, path: str | None = None) -> str:
    return prefix(path) + f"thing: {form}\n{END}"


def words_of(text: str) -> tuple[str, ...]:
    """The words of ``text`` in order, lower case (letters and digits)."""
    return tuple(_WORD.findall(text.lower()))


def parse(text: str) -> tuple[str, ...]:
    """The names of the model's line: comma separated, lower case, a name of no content
    word (``thing``, ``the``) left out."""
    names = (" ".join(words_of(part)) for part in text.split(","))
    return tuple(dict.fromkeys(n for n in names if n and not set(n.split()) <= _EMPTY))


@dataclass
class OtherNames:
    """``ask(prompt, grammar)`` -> the model's text; the names of each spoken form asked once
    (kept for the process; a failed call is not kept, so it is asked again next time).
    ``store``: a JSON file that keeps them for the next process too (:func:`store_for`)."""

    ask: Callable[[str, str], str]
    path: str | None = None
    store: Path | None = None
    _kept: dict[str, tuple[str, ...]] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def of(self, form: str) -> tuple[str, ...]:
        with self._lock:
            kept = self._load()
            if form in kept:
                return kept[form]
        names = parse(self.ask(build(form, self.path), GRAMMAR))
        log.info("the %s is called: %s", form, ", ".join(names) or "nothing")
        with self._lock:
            self._load()[form] = names
            self._save()
        return names

    def _load(self) -> dict[str, tuple[str, ...]]:
        """With the lock held: the names kept, read from :attr:`store` the first time."""
        if self._kept is None:
            self._kept = {}
            if self.store is not None:
                try:
                    data = json.loads(self.store.read_text(encoding="utf-8"))
                    self._kept = {str(f): tuple(map(str, n)) for f, n in data.items()}
                except FileNotFoundError:
                    pass
                except (OSError, ValueError, AttributeError, TypeError) as exc:
                    log.warning("the names kept in %s are unreadable (%s): asked again",
                                self.store, exc)
        return self._kept

    def _save(self) -> None:
        """With the lock held: write the names kept to :attr:`store` (whole, replaced at once;
        a store that cannot be written only costs the next process the questions)."""
        if self.store is None:
            return
        try:
            self.store.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.store.with_name(f"{self.store.name}.tmp.{os.getpid()}")
            tmp.write_text(json.dumps({f: list(n) for f, n in sorted(self._kept.items())},
                                      indent=0), encoding="utf-8")
            os.replace(tmp, self.store)
        except OSError as exc:
            log.warning("the names asked could not be kept in %s: %s", self.store, exc)

    def kept(self) -> dict[str, tuple[str, ...]]:
        with self._lock:
            return dict(self._load())


def store_for(llm, path: str | None = None) -> Path | None:
    """Where the embedded model keeps the names on disk: beside its saved states, named by the
    model file and the prompt (another model or prompt, another file); None for an LLM with no
    saved states (an endpoint: its model may change behind the same name)."""
    disk = getattr(llm, "disk", None)
    directory, fingerprint = getattr(disk, "directory", None), getattr(disk, "fingerprint", None)
    if directory is None or not fingerprint:
        return None
    digest = hashlib.sha1(prefix(path).encode()).hexdigest()[:12]
    return Path(directory) / f"{fingerprint}-names-{digest}.json"


def called_by(said: str, forms: Iterable[str], names: Callable[[str], Iterable[str]]) -> list[str]:
    """The spoken forms of ``forms`` one of whose other names (``names(form)``:
    :meth:`OtherNames.of`) ``said`` says: every word of the name said; where no form has
    one, the forms with a name whose last word (its head: "dish scrubber", a scrubber) was
    said."""
    said_words = set(words_of(said))
    forms = list(forms)
    whole = [f for f in forms if any(set(words_of(n)) <= said_words for n in names(f))]
    if whole:
        return whole
    return [f for f in forms if any(words_of(n)[-1:] and words_of(n)[-1] in said_words
                                    for n in names(f))]


__all__ = ["OtherNames", "called_by", "store_for", "parse", "build", "prefix", "prompt_file",
           "GRAMMAR", "END"]

"""Whether a thing is of a kind a lesson's condition names: the model says yes or no.

A lesson taught for a kind ("never put glasses on the windowsill", "use your left hand for
fruit") holds for the things of that kind, in any scene. Which things those are is meaning,
not spelling (a "tumbler" is a glass, a "mango" a fruit, a "wine glass" a glass but a
"glasses case" not), so the model is asked once per thing and kind (a short call under a
yes/no grammar, ``config/reading/kind_of.yaml``), and the answer is kept for the process.
Where the thing's spoken form names the kind as its last word ("wine glass" of "glass"), the
answer is yes without a call.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from ..settings.config_files import config_path
from .prompt_file import load_prompt_file
from .vocabulary import spoken_form

log = logging.getLogger(__name__)

YES, NO = "yes", "no"
GRAMMAR = f'root ::= " " ("{YES}" | "{NO}")'
END = "answer:"


@lru_cache(maxsize=4)
def load(path: str | None = None) -> tuple[str, tuple[tuple[str, ...], ...]]:
    source = path or str(config_path("reading", "kind_of.yaml"))
    header, examples = load_prompt_file(source, ("thing", "kind", "answer"))
    if any(a not in (YES, NO) for *_, a in examples):
        raise ValueError(f"{source}: an example's answer is not {YES!r} or {NO!r}")
    return header, examples


def prefix(path: str | None = None) -> str:
    header, examples = load(path)
    return header + "\n\n" + "".join(f"thing: {t}\nkind: {k}\n{END} {a}\n\n"
                                     for t, k, a in examples)


def build(thing: str, kind: str, path: str | None = None) -> str:
    return prefix(path) + f"thing: {thing}\nkind: {kind}\n{END}"


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def named_by_form(thing: str, kind: str) -> bool:
    """The spoken form's last word is the kind's ("wine glass 2" is a glass)."""
    words = [w for w in spoken_form(thing).split() if not w.isdigit()]
    return bool(words) and _singular(words[-1]) == _singular(kind.split()[-1]) and \
        len(kind.split()) == 1


@dataclass
class KindCheck:
    """``ask(prompt, grammar)`` -> the model's text; answers kept per (thing, kind)."""

    ask: Callable[[str, str], str]
    path: str | None = None
    kept: dict[tuple[str, str], bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def __call__(self, thing: str, kind: str) -> bool:
        key = (thing, kind)
        with self._lock:
            if key in self.kept:
                return self.kept[key]
        if named_by_form(thing, kind):
            answer = True
        else:
            said = self.ask(build(spoken_form(thing), kind, self.path), GRAMMAR).strip()
            answer = said == YES
            log.info("asked whether the %s is a %s: %s", spoken_form(thing), kind,
                     said or "nothing")
        with self._lock:
            self.kept[key] = answer
        return answer


__all__ = ["KindCheck", "named_by_form", "build", "prefix", "GRAMMAR"]

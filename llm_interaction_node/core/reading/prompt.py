"""The reading prompt: a header that names the clauses, worked examples, then the scene and
the utterance at hand (``config/reading/examples.yaml``).

There are two prompts, one header: a REQUEST (the first thing the user says in a task) is read
after examples of requests, a REPLY (what the user says to an attempt: a correction, thanks, a
lesson) after examples of replies. Measured on the development pool: with one mixed prompt the
1.5B model read replies with the habits of requests (it named the block the robot had moved,
"the block you took" read as a block) and each example added for replies moved the readings
of the other kind; the agent knows which the utterance is.

Everything before the scene line is the same for every reading of a kind, so a stateful model
evaluates it once (:meth:`~.reader.Reader.prefill`, kept on disk); consecutive readings in
one scene share the scene line too, and only the utterance is new.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..settings.config_files import config_path
from .prompt_file import read_prompt_file

MAX_UTTERANCE_CHARS = 400       # what is read of one utterance (a flood stays a flood)
# the prompt ends before the space of the first clause's "- ": the model writes " do", as the
# examples are tokenized (measured: ending with "- " it wrote "retry" for a plain request)
END = "reading:\n-"


MOVED = "you moved: "            # a reply's line: what the attempt it answers moved
NOTHING = "nothing"


def moved_line(moved) -> str:
    """The reply prompt's line of what the attempt moved (spoken forms, in order)."""
    return MOVED + (" and ".join(moved) if moved else NOTHING) + "\n"


@dataclass(frozen=True)
class Example:
    scene: str
    said: str
    reading: tuple[str, ...]
    moved: tuple[str, ...] | None = None

    def render(self) -> str:
        moved = moved_line(self.moved) if self.moved is not None else ""
        return (f"scene: {self.scene}\n{moved}said: {self.said}\n{END} "
                + "\n- ".join(self.reading))


KINDS = ("request", "reply")
_SECTIONS = {"request": "requests", "reply": "replies"}


@lru_cache(maxsize=4)
def load_examples(path: str | None = None) -> tuple[str, dict[str, tuple[Example, ...]]]:
    """(header, kind -> examples) of the reading prompt file (default
    ``config/reading/examples.yaml``: ``header``, ``requests``, ``replies``)."""
    source = path or str(config_path("reading", "examples.yaml"))
    header, data = read_prompt_file(source)

    def examples(section: str) -> tuple[Example, ...]:
        return tuple(Example(str(e["scene"]), str(e["said"]),
                             tuple(str(r) for r in (e["reading"] if isinstance(e["reading"], list)
                                                    else [e["reading"]])),
                             _moved(e.get("moved", None if section == "requests" else "")))
                     for e in data.get(section, ()))
    return header, {kind: examples(section) for kind, section in _SECTIONS.items()}


def _moved(value) -> tuple[str, ...] | None:
    """An example's ``moved`` (a string, ``a and b``, or a list; empty: nothing)."""
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(" and ") if v.strip())
    return tuple(str(v) for v in value)


def spoken_text(utterance: str) -> str:
    """The utterance as the prompt shows it: one line, at most :data:`MAX_UTTERANCE_CHARS`."""
    text = " ".join(str(utterance).split())
    return text if len(text) <= MAX_UTTERANCE_CHARS else text[:MAX_UTTERANCE_CHARS] + " ..."


def prefix(path: str | None = None, kind: str = "request") -> str:
    """The part of every reading prompt of ``kind`` (request, reply) before the scene line."""
    header, examples = load_examples(path)
    return header + "\n\n" + "\n\n".join(e.render() for e in examples[kind]) + "\n\n"


def build(scene_line: str, utterance: str, path: str | None = None,
          kind: str = "request", moved=None) -> str:
    """The whole prompt for one utterance in one scene; the model continues after it.
    ``moved``: for a reply, the spoken forms of what the attempt it answers moved (None: not
    known, no line)."""
    line = moved_line(moved) if moved is not None else ""
    return (prefix(path, kind)
            + f"scene: {scene_line}\n{line}said: {spoken_text(utterance)}\n{END}")


__all__ = ["Example", "load_examples", "prefix", "build", "spoken_text", "moved_line", "END",
           "KINDS", "MAX_UTTERANCE_CHARS"]

"""Examples in and out of the memory as files: seed transcripts (``*.txt``, one example each)
and the readable YAML export (transcripts as ``|`` block scalars) that import reads back.

Functions over a store seen through the small :class:`Store` protocol, so this module never
imports the store that calls it: :class:`~.store.ExampleMemory`'s methods ``seed_from``,
``export_yaml`` and ``import_yaml`` call them under the store's lock.
"""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Protocol

import yaml

from .records import Example

log = logging.getLogger(__name__)


class _BlockDumper(yaml.SafeDumper):
    """Multi-line strings (transcripts) as ``|`` block scalars."""


def _str(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _str)


class Store(Protocol):
    """What the file functions use of a store of one API set's examples."""

    api: str

    def list(self, source: str | None = None) -> list[Example]:
        """All examples (optionally of one source), oldest first."""

    def present(self, example_ids: Sequence[str]) -> set[str]:
        """Which of these examples are stored."""

    def make_example(self, transcript: str, source: str, origin: str = "",
                     problem: str | None = None, improvement: str | None = None,
                     example_id: str | None = None, created: float | None = None) -> Example:
        """An Example, not stored yet."""

    def write(self, examples: Sequence[Example]) -> None:
        """Store prepared examples, whole."""


def seed_id(api: str, origin: str, text: str) -> str:
    """A seed example's id: the same for the same file and text on every robot."""
    return "seed-" + hashlib.sha1(f"{api}\0{origin}\0{text}".encode()).hexdigest()[:16]


def seed_from(memory: Store, directory: str | Path) -> int:
    """Add the ``*.txt`` transcripts of ``directory`` whose file name is not yet the
    origin of a seed example. Returns how many were added (0 on a second call)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"no transcript folder {directory}")
    present = {ex.origin for ex in memory.list("seed")}
    added = []
    for file in sorted(directory.glob("*.txt")):
        if file.name in present:
            continue
        text = file.read_text(encoding="utf-8")
        try:
            # its id from its file and text: robots that open one new server at once (a
            # fleet, issue 61) write the same records, which Chroma keeps once
            added.append(memory.make_example(text, "seed", origin=file.name,
                                             example_id=seed_id(memory.api, file.name, text)))
        except ValueError as exc:
            log.warning("skipping %s: %s", file, exc)
    for example in added:          # one write per example
        memory.write([example])
    return len(added)


def export_yaml(memory: Store, path: str | Path,
                sources: Sequence[str] | None = None) -> int:
    """Write the examples (only those of ``sources``, e.g. ('learned', 'raw'), if given)
    to a YAML file that :func:`import_yaml` reads; returns how many."""
    examples = [ex for ex in memory.list() if sources is None or ex.source in sources]
    data = {"api": memory.api, "exported": time.time(),
            "examples": [{k: v for k, v in ex.to_dict().items() if k != "keys"}
                         for ex in examples]}
    text = yaml.dump(data, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)
    Path(path).write_text(text, encoding="utf-8")
    return len(examples)


def with_provenance(example: Example, item: dict) -> Example:
    """An imported example keeps the robot, world and needs its file says (issue 61: the
    robot that imports it did not teach it)."""
    if any(item.get(key) for key in ("robot", "world", "needs")):
        return replace(example, robot=item.get("robot"), world=item.get("world"),
                       needs=tuple(item.get("needs") or ()))
    return example


LESSON_FIELDS = ("reading", "author", "scope", "edit")


def with_lesson_fields(example: Example, item: dict) -> Example:
    """An imported lesson keeps what makes it one: its request's reading, its author, its
    scope, a habit's edit (issue 59: an imported habit without its edit is no habit)."""
    kept = {key: str(item[key]) for key in LESSON_FIELDS if item.get(key) is not None}
    return replace(example, **kept) if kept else example


def import_yaml(memory: Store, path: str | Path) -> int:
    """Add the examples of an exported file whose ids are not present. Returns how many.
    A bad file is refused whole (ValueError naming the example), nothing is added."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{path} is not valid YAML: {exc}") from exc
    items = data.get("examples") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a mapping with a list 'examples'")
    prepared = []
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict) or not isinstance(item.get("transcript"), str):
            raise ValueError(f"{path}: example {n} needs at least 'transcript' (text)")
        unknown = set(item) - {f.name for f in fields(Example)}
        if unknown:
            raise ValueError(f"{path}: example {n} has unknown field(s) "
                             f"{', '.join(sorted(map(str, unknown)))}")
        try:
            prepared.append(with_lesson_fields(with_provenance(memory.make_example(
                item["transcript"], item.get("source", "learned"), item.get("origin") or "",
                item.get("problem"), item.get("improvement"),
                example_id=str(item["id"]) if item.get("id") is not None else None,
                created=item.get("created")), item), item))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path}: example {n}: {exc}") from exc
    if len({ex.id for ex in prepared}) != len(prepared):
        raise ValueError(f"{path}: duplicate example ids")
    present = memory.present([ex.id for ex in prepared])
    new = [ex for ex in prepared if ex.id not in present]
    for example in new:
        memory.write([example])
    return len(new)


__all__ = ["Store", "seed_id", "seed_from", "export_yaml", "import_yaml", "with_provenance"]

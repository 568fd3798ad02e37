"""The reading's few-shot prompt files (``config/reading/*.yaml``): a ``header`` and lists of
examples, each a mapping of text fields. One loader for them all; each prompt keeps its own
check of what an example may say (an answer among its options, three names, ...)."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml


def read_prompt_file(source: str | Path) -> tuple[str, dict]:
    """(header, the whole mapping) of a prompt file; ValueError for a file that is no mapping."""
    with open(source, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{source}: a prompt file is a mapping (header, examples)")
    return str(data.get("header", "")).strip(), data


def load_prompt_file(source: str | Path, keys: Sequence[str], section: str = "examples"
                     ) -> tuple[str, tuple[tuple[str, ...], ...]]:
    """(header, examples) of a prompt file: each example of ``section`` as the tuple of its
    ``keys`` fields, as text; ValueError naming the file where an example lacks one."""
    header, data = read_prompt_file(source)
    examples = []
    for n, example in enumerate(data.get(section) or (), 1):
        missing = [k for k in keys if not isinstance(example, dict) or k not in example]
        if missing:
            raise ValueError(f"{source}: {section} #{n} has no {', '.join(missing)}")
        examples.append(tuple(str(example[k]) for k in keys))
    return header, tuple(examples)


__all__ = ["load_prompt_file", "read_prompt_file"]

"""The memory commands, written once for ``llm-interaction memory`` (memory_cli.py) and the
interaction node's ManageMemory service: each checks its input the same way and refuses a
bad one with a sentence (ValueError, KeyError for an unknown id, FileNotFoundError) before it
changes anything. The callers only format the results (text lines, JSON).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from .records import Example, check_source
from .store import ExampleMemory


def list_examples(memory: ExampleMemory, source: str | None = None) -> list[Example]:
    """All examples, or those of one source, oldest first."""
    return memory.list(check_source(source) if source else None)


def show(memory: ExampleMemory, example_id: str) -> Example:
    """One example (KeyError "no example with id ..." if it is not stored)."""
    return memory.get(example_id)


def search(memory: ExampleMemory, utterances: Sequence[str],
           k: int | None = None) -> list[tuple[Example, float]]:
    """What retrieval puts into the prompt for these utterances (oldest first), most
    similar LAST, with scores; ``k`` default: the configured one."""
    if k is not None and k < 0:
        raise ValueError("k must be >= 0")
    return memory.retrieve(list(utterances), k)


def delete(memory: ExampleMemory, example_ids: Iterable[str]) -> int:
    """Delete examples by id; all must exist, else nothing is deleted (KeyError)."""
    ids = [str(i) for i in dict.fromkeys(example_ids)]
    if not ids:
        raise ValueError("give the id of an example to delete")
    missing = [i for i in ids if i not in memory.present(ids)]
    if missing:
        raise KeyError(f"no example with id {', '.join(missing)} in {memory.name} "
                       "(see `memory list`); nothing deleted")
    return memory.delete(ids)


def forget(memory: ExampleMemory, topic: str, threshold: float = 0.5,
           include_seed: bool = False) -> list[Example]:
    """Delete the learned (raw, episode) examples about ``topic``; returns them."""
    return memory.forget(topic, threshold=threshold, include_seed=include_seed)


def export(memory: ExampleMemory, path: str | Path,
           sources: Sequence[str] | None = None) -> int:
    """Write the examples to a YAML file; returns how many."""
    for source in sources or ():
        check_source(source)
    return memory.export_yaml(path, sources)


def import_file(memory: ExampleMemory, path: str | Path) -> int:
    """Add the examples of an exported YAML file whose ids are not stored; how many."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"no such file: {path}")
    return memory.import_yaml(path)


def reset(memory: ExampleMemory) -> int:
    """Empty the store of this API set; returns how many examples were removed."""
    n = memory.count()
    memory.reset()
    return n


def seed(memory: ExampleMemory, directory: str | Path) -> int:
    """Add the transcripts of ``directory`` not stored yet as seed examples; how many."""
    if not Path(directory).is_dir():
        raise FileNotFoundError(f"no transcript folder {directory}")
    return memory.seed_from(directory)


__all__ = ["list_examples", "show", "search", "delete", "forget", "export", "import_file",
           "reset", "seed"]

"""A console transcript: statements with what the console printed after each.

Rendered exactly like an interactive Python console (``>>> `` first line, ``... ``
continuation lines, then the output). The same text format is used for prompts, for
example files in ``config/`` and for ``llm-interaction replay``.
"""
from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

PS1 = ">>> "
PS2 = "... "


@dataclass
class Entry:
    """One console input (possibly several lines) and its printed output ('' if none).

    ``error``: the name of the exception class when the input failed (None otherwise); set
    by the console, not part of the rendered text, so listeners need not parse the output."""

    source: str
    output: str = ""
    error: str | None = field(default=None, compare=False)

    @property
    def is_comment(self) -> bool:
        return all(not ln.strip() or ln.lstrip().startswith("#") for ln in self.source.splitlines())

    def render(self) -> str:
        lines = self.source.splitlines() or [""]
        text = "\n".join([PS1 + lines[0]] + [PS2 + ln for ln in lines[1:]])
        return f"{text}\n{self.output}" if self.output else text

    def calls(self, name: str) -> bool:
        """Whether the statement calls the function ``name`` anywhere."""
        try:
            tree = ast.parse(self.source)
        except SyntaxError:
            return False
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
                   for n in ast.walk(tree))


@dataclass
class Transcript:
    entries: list[Entry] = field(default_factory=list)

    def append(self, entry: Entry) -> Entry:
        self.entries.append(entry)
        return entry

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def render(self) -> str:
        return "\n".join(e.render() for e in self.entries)

    def statements(self) -> list[str]:
        """The sources of all non-comment entries, in order."""
        return [e.source for e in self.entries if not e.is_comment]

    def user_utterances(self) -> list[str]:
        """Texts the user said: results of wait_for_trigger() and ask() in this transcript."""
        said = []
        for e in self.entries:
            if not e.output:
                continue
            if e.calls("wait_for_trigger") or e.calls("ask"):
                value = output_value(e.output)
                if isinstance(value, dict) and isinstance(value.get("text"), str):
                    said.append(value["text"])
                elif isinstance(value, str):
                    said.append(value)
        return said

    @classmethod
    def parse(cls, text: str) -> Transcript:
        """Parse console text. Lines before the first prompt that are comments are ignored."""
        entries: list[Entry] = []
        src: list[str] = []
        out: list[str] = []

        def flush() -> None:
            if src:
                entries.append(Entry("\n".join(src), "\n".join(out).rstrip("\n")))

        for line in text.splitlines():
            if line.startswith(PS1) or line == PS1.rstrip():
                flush()
                src, out = [line[len(PS1):]], []
            elif src and not out and (line.startswith(PS2) or line == PS2.rstrip()):
                src.append(line[len(PS2):])
            elif src:
                out.append(line)
        flush()
        return cls(entries)


def output_value(text: str):
    """The value a console output shows (its repr read back), or None if it is no literal."""
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def listed_names(output: str) -> list[str] | None:
    """The names a look at the scene printed (``get_obj_names()``: a list of strings), or
    None if the output is no such list."""
    value = output_value(output)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None

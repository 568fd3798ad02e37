"""How the model's turns end, counted in benchmark run files (``eval --out DIR``).

A turn is what the model does between the user's utterance (the value of a
``wait_for_trigger()``) and its next ``wait_for_trigger()``. Per system directory it prints:

* turns and how they ended: handed back (the model's own ``wait_for_trigger()``), statement
  cap / error budget (``# giving up: ...``), loop reset (the run's recorded error);
* first-loop notes (``LOOP_NOTE``, the comment the agent writes in place of a repeated
  statement) and what came next: handed back, or went on (a second loop resets the turn);
* first attempts at an "all the blocks" instruction (the instruction turn of a template whose
  text says "the blocks"), and how many of them used a ``for`` loop over ``get_obj_names()``;
* feedback turns (the reply to a high-level correction) that started with a "put it back"
  (a statement or comment moving something back where it was, the seed habit of issue 20);
* console inputs refused before they ran (``# not run: ...``), and inputs that ran although
  they were echoed output (a bare word of an earlier output, e.g. ``cannot``) or named an
  object that is not in the scene (the targets of issue 20: 0 of each).

    python -m llm_interaction_node.bench.turn_endings docs/eval/embedded/ours [DIR ...]
        [--max-rounds N]   # only the first N interactions of each run (as eval --max-rounds)
        [--max-run N]      # only runs 1..N of each instruction (--max-run 3: the 12 runs
                           # of `make eval-embedded` inside a 5-run protocol)
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, fields
from pathlib import Path

from ..core.agent import LOOP_NOTE
from ..core.transcript.statements import code_lines
from ..core.transcript.transcript import Entry, Transcript

_UNDO = re.compile(r"\bback\b|where it was|start_xy\[", re.IGNORECASE)
_ALL_BLOCKS = re.compile(r"\b(all (of )?the|the) blocks\b", re.IGNORECASE)
_UNKNOWN_OBJECT = re.compile(r"unknown object|is not in the scene|no object (named|called)",
                             re.IGNORECASE)
_BARE_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass
class Counts:
    runs: int = 0
    turns: int = 0
    handed_back: int = 0
    gave_up: int = 0          # statement cap or an error budget: '# giving up: ...'
    loop_reset: int = 0       # the second loop of a turn
    loop_notes: int = 0
    note_then_hand_back: int = 0
    note_then_went_on: int = 0
    all_blocks_first: int = 0
    all_blocks_loop: int = 0
    feedback_turns: int = 0
    feedback_undo: int = 0
    refused: int = 0          # '# not run: why' in place of an input
    echoed: int = 0           # ran, and was a bare word of an earlier output
    unknown_object: int = 0   # ran, and its error says the object is not in the scene

    def add(self, other: Counts) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


def _turns(entries: list[Entry]) -> list[tuple[str, list[Entry], bool]]:
    """(utterance, the model's entries, ended by its own wait_for_trigger()) per turn."""
    turns, current, said = [], None, None
    for entry in entries:
        if entry.source == "wait_for_trigger()":
            if current is not None:
                turns.append((said, current, True))
            said = _said(entry.output)
            current = []
        elif current is not None:
            current.append(entry)
    if current is not None:
        turns.append((said, current, False))
    return turns


def _said(output: str) -> str:
    match = re.search(r"'text': (['\"])(.*)\1\}", output or "")
    return match.group(2) if match else ""


def first_rounds(run: dict, n: int | None) -> dict:
    """The run as if it had ended after ``n`` interactions (``eval --max-rounds n``)."""
    if not n:
        return run
    cut = dict(run)
    for key in ("transcripts", "observations", "utterances"):
        cut[key] = list(run.get(key, []))[:n]
    return cut


def count_run(run: dict) -> Counts:
    """The counts of one run file. Its last transcript holds every turn of the run (the
    earlier ones are its prefixes); utterance t opens turn t, observation t says how it ended
    (the run's last hand-back is not in the transcript)."""
    c = Counts(runs=1)
    transcripts = run.get("transcripts") or [""]
    kinds = [kind for kind, _ in run.get("utterances", [])]
    error = (run.get("observations") or [{}])[-1].get("error") or ""
    turns = _turns(Transcript.parse(transcripts[-1]).entries)
    if not turns and error.startswith("reset"):
        # a loop reset starts a new task: the last turn's statements are gone from the
        # transcript; the turns before it are in the previous one
        earlier = _turns(Transcript.parse(transcripts[-2]).entries) if len(transcripts) > 1 else []
        c.turns += 1
        c.loop_reset += 1
        turns = [(said, entries, True) for said, entries, _ in earlier]
        error = ""
    for t, (said, entries, ended) in enumerate(turns):
        last = t == len(turns) - 1
        c.turns += 1
        if any(e.is_comment and "giving up" in e.source for e in entries):
            c.gave_up += 1
        elif last and error.startswith("reset"):
            c.loop_reset += 1
        elif ended or (last and not error):
            c.handed_back += 1
        for i, e in enumerate(entries):
            if e.is_comment and LOOP_NOTE in e.source:
                c.loop_notes += 1
                if entries[i + 1:] or (last and error):
                    c.note_then_went_on += 1
                else:
                    c.note_then_hand_back += 1
        if t == 0 and _ALL_BLOCKS.search(said or ""):
            c.all_blocks_first += 1
            if any(e.source.lstrip().startswith(("for ", "#"))
                   and any(line.startswith("for ") for line in code_lines(e.source))
                   and "get_obj_names" in _scope(entries, e) for e in entries):
                c.all_blocks_loop += 1
        for i, e in enumerate(entries):
            if e.is_comment:
                c.refused += e.source.lstrip("# ").startswith("not run:")
                continue
            if _UNKNOWN_OBJECT.search(e.output or ""):
                c.unknown_object += 1
            word = e.source.strip()
            if _BARE_WORD.fullmatch(word) and any(
                    word in (p.output or "") for p in entries[:i] if not p.is_comment):
                c.echoed += 1
        if t > 0 and t < len(kinds) and kinds[t] == "high_level":
            c.feedback_turns += 1
            first = next((e for e in entries if not e.source.startswith("get_obj_names")), None)
            if first is not None and _UNDO.search(first.source):
                c.feedback_undo += 1
    return c


def _scope(entries: list[Entry], loop: Entry) -> str:
    """The loop's source with what came before it in the turn (where its names came from)."""
    return "\n".join(e.source for e in entries[:entries.index(loop) + 1])


def count_dir(path: Path, max_rounds: int | None = None, max_run: int | None = None) -> Counts:
    """All run files under ``path`` (an eval output directory or a part of its runs/), only
    runs 1..``max_run`` of each instruction if given."""
    total = Counts()
    files = sorted(path.glob("runs/**/run_*.json")) or sorted(path.glob("**/run_*.json"))
    for file in files:
        run = json.loads(file.read_text(encoding="utf-8"))
        if max_run and int(run.get("round", 0)) > max_run:
            continue
        total.add(count_run(first_rounds(run, max_rounds)))
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path,
                        help="eval output directories (or folders of their runs/)")
    parser.add_argument("--max-rounds", type=int, default=None,
                        help="count only the first N interactions of each run")
    parser.add_argument("--max-run", type=int, default=None,
                        help="count only runs 1..N of each instruction")
    args = parser.parse_args(argv)
    names = [f.name for f in fields(Counts)]
    print("| dir | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for d in args.dirs:
        if not d.is_dir():
            print(f"error: {d} is not a directory", file=sys.stderr)
            return 2
        c = count_dir(d, args.max_rounds, args.max_run)
        print(f"| {d} | " + " | ".join(str(getattr(c, n)) for n in names) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a run record comes from: the commit, whether the work tree had changes, the command,
a file's hash; and a headline seed drawn and committed BEFORE the run (issue 59 item 6: the
order is in git, not in a note).

    python -m llm_interaction_node.provenance draw-seed docs/eval/<run>/seed.json [--label X]

draws a seed (``secrets``), writes it with the commit it was drawn at, and commits that file
alone; the headline command then runs with ``--seed`` from it, and its records carry the
commit they ran at (``record()``), so anyone can see the seed was committed first."""
from __future__ import annotations

import argparse
import hashlib
import json
import secrets
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def git(*args: str, cwd: Path | None = None) -> str:
    """``git args`` in the repository (``cwd``, default :data:`ROOT`); '' where git or the
    repository is missing."""
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True,
                              cwd=cwd or ROOT, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def file_hash(path: str | Path) -> str:
    """The first 12 hex digits of a file's sha256 ('' where it cannot be read)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
    except OSError:
        return ""


def record(command: list[str] | None = None) -> dict:
    """The provenance fields of a run record: ``commit``, ``dirty`` (tracked files changed),
    ``command``."""
    return {"commit": git("rev-parse", "--short=7", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
            "command": " ".join(command if command is not None else sys.argv)}


def draw_seed(path: str | Path, label: str = "", commit: bool = True) -> int:
    """Draw a seed, write it to ``path`` (JSON: seed, label, drawn at, the commit then) and,
    with ``commit``, commit that file alone. Returns the seed."""
    seed = secrets.randbelow(90_000) + 10_000
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"seed": seed, "label": label,
                                "drawn": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                "at_commit": git("rev-parse", "--short=7", "HEAD")},
                               indent=1) + "\n")
    if commit:
        git("add", str(path))
        git("commit", "-q", "-m", f"headline seed {seed} drawn before the run ({label or path})",
            "--", str(path))
    return seed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.provenance")
    sub = parser.add_subparsers(dest="command", required=True)
    draw = sub.add_parser("draw-seed", help="draw a headline seed and commit it before the run")
    draw.add_argument("path")
    draw.add_argument("--label", default="")
    draw.add_argument("--no-commit", action="store_true")
    args = parser.parse_args(argv)
    seed = draw_seed(args.path, args.label, commit=not args.no_commit)
    print(seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())

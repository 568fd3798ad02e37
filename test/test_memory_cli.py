"""``llm-interaction memory``: the subcommands through a subprocess, and the parser hooked into
another program's subparsers."""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from llm_interaction_node.memory_cli import add_memory_parser

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "config" / "transcripts" / "humanoid"


def cli(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    done = subprocess.run([sys.executable, "-m", "llm_interaction_node.memory_cli", *args],
                          capture_output=True, text=True, timeout=180, cwd=ROOT, env=env)
    if ok:
        assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def seeds(tmp_path) -> Path:
    folder = tmp_path / "seeds"
    folder.mkdir()
    for name in sorted(p.name for p in SEEDS.glob("*.txt"))[:3]:
        shutil.copy(SEEDS / name, folder / name)
    return folder


def ids_of(listing: str) -> list[str]:
    return [line.split()[0] for line in listing.splitlines() if line.strip()]


@pytest.mark.slow
def test_memory_commands_through_a_subprocess(tmp_path, seeds):
    store = ["--path", str(tmp_path / "mem")]
    assert "added 3 seed example(s)" in cli("seed", str(seeds), *store).stdout
    assert "added 0 seed example(s)" in cli("seed", str(seeds), *store).stdout

    listing = cli("list", *store).stdout
    ids = ids_of(listing)
    assert len(ids) == 3 and all(" seed " in line for line in listing.splitlines())
    assert ids_of(cli("list", "--source", "learned", *store).stdout) == []

    shown = cli("show", ids[0], *store).stdout
    assert f"id:          {ids[0]}" in shown and "transcript:\n>>> wait_for_trigger()" in shown

    # search prints the examples as the prompt gets them: most similar last, scores ascending
    first_utterance = listing.splitlines()[0].split(maxsplit=4)[4]
    found = cli("search", "hello", first_utterance, "-k", "2", *store).stdout
    heads = [line for line in found.splitlines() if line.startswith("# ")]
    assert len(heads) == 2 and ids[0] in heads[-1]
    scores = [float(h.split("score ")[1].split()[0]) for h in heads]
    assert scores == sorted(scores)

    export = tmp_path / "mem.yaml"
    assert "exported 3 example(s)" in cli("export", str(export), *store).stdout
    assert "deleted 1 example(s)" in cli("delete", ids[0], *store).stdout
    assert ids[0] not in ids_of(cli("list", *store).stdout)

    bad = cli("show", "no-such-id", *store, ok=False)
    assert bad.returncode == 2 and "no example with id 'no-such-id'" in bad.stderr
    bad = cli("delete", ids[1], "no-such-id", *store, ok=False)
    assert bad.returncode == 2 and "nothing deleted" in bad.stderr
    assert len(ids_of(cli("list", *store).stdout)) == 2

    refused = cli("reset", *store, ok=False)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert "removed 2 example(s)" in cli("reset", "--yes", *store).stdout
    assert ids_of(cli("list", *store).stdout) == []

    assert "imported 3 example(s)" in cli("import", str(export), *store).stdout
    assert sorted(ids_of(cli("list", *store).stdout)) == sorted(ids)
    assert "imported 0 example(s)" in cli("import", str(export), *store).stdout


def test_bad_input_gives_exit_code_2_without_traceback(tmp_path):
    store = ["--path", str(tmp_path / "mem")]
    for args in (["import", str(tmp_path / "missing.yaml")], ["seed", str(tmp_path / "nope")],
                 ["delete"], ["delete", "x", "--learned-about", "juice"],
                 ["list", "--source", "bogus"], ["frobnicate"],
                 ["list", "--host", "127.0.0.1", "--port", "9"]):
        done = cli(*args, *store, ok=False)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr.strip()
    unreachable = cli("list", "--host", "127.0.0.1", "--port", "9", ok=False)
    assert "127.0.0.1:9" in unreachable.stderr and "chroma run --path" in unreachable.stderr


def test_parser_hooks_into_another_program(tmp_path, seeds, capsys):
    parser = argparse.ArgumentParser(prog="llm-interaction")
    sub = parser.add_subparsers(dest="command", required=True)
    add_memory_parser(sub)
    store = ["--path", str(tmp_path / "mem")]
    args = parser.parse_args(["memory", "--api", "tabletop", "list", *store])
    assert args.api == "tabletop" and args.func(args) == 0
    assert "0 example(s) in examples_tabletop" in capsys.readouterr().err
    args = parser.parse_args(["memory", "show", "missing", *store])
    assert args.func(args) == 2 and "no example with id" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parser.parse_args(["memory"])                 # a memory subcommand is required

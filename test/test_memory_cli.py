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
import yaml

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
        shutil.copy(SEEDS / name, folder / f"extra_{name}")
    return folder


def ids_of(listing: str) -> list[str]:
    return [line.split()[0] for line in listing.splitlines() if line.strip()]


@pytest.mark.slow
def test_memory_commands_through_a_subprocess(tmp_path, seeds):
    store = ["--path", str(tmp_path / "mem")]
    n = len(list(SEEDS.glob("*.txt")))
    # a fresh store is seeded when first opened, as the README says (and chat / the node do)
    first_utterance = "bring me the mango juice and a cup"
    found = cli("search", first_utterance, "-k", "2", *store)
    heads = [line for line in found.stdout.splitlines() if line.startswith("# ")]
    assert len(heads) == 2 and "2 example(s), most similar last" in found.stderr
    scores = [float(h.split("score ")[1].split()[0]) for h in heads]
    assert scores == sorted(scores)                      # most similar LAST

    listing = cli("list", *store).stdout
    ids = ids_of(listing)
    assert len(ids) == n and all(" seed " in line for line in listing.splitlines())
    assert "added 0 seed example(s)" in cli("seed", *store).stdout
    assert "added 3 seed example(s)" in cli("seed", str(seeds), *store).stdout   # other names
    assert len(ids_of(cli("list", "--source", "seed", *store).stdout)) == n + 3
    assert ids_of(cli("list", "--source", "learned", *store).stdout) == []

    shown = cli("show", ids[0], *store).stdout
    assert f"id:          {ids[0]}" in shown and "transcript:\n>>> wait_for_trigger()" in shown

    # learned examples: imported from an export, deleted by id
    export = tmp_path / "mem.yaml"
    assert f"exported {n + 3} example(s)" in cli("export", str(export), *store).stdout
    learned = tmp_path / "learned.yaml"
    data = yaml.safe_load(export.read_text())
    data["examples"] = [{**e, "id": f"learned-{i}", "source": "learned"}
                        for i, e in enumerate(data["examples"][:2])]
    learned.write_text(yaml.safe_dump(data))
    assert "imported 2 example(s)" in cli("import", str(learned), *store).stdout
    assert "imported 0 example(s)" in cli("import", str(learned), *store).stdout
    assert "deleted 1 example(s)" in cli("delete", "learned-0", *store).stdout
    assert ids_of(cli("list", "--source", "learned", *store).stdout) == ["learned-1"]

    bad = cli("show", "no-such-id", *store, ok=False)
    assert bad.returncode == 2 and "no example with id 'no-such-id'" in bad.stderr
    bad = cli("delete", "learned-1", "no-such-id", *store, ok=False)
    assert bad.returncode == 2 and "nothing deleted" in bad.stderr

    refused = cli("reset", *store, ok=False)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert f"removed {n + 4} example(s)" in cli("reset", "--yes", *store).stdout
    # reset empties the store; the next open seeds it again, what was learned is gone
    assert ids_of(cli("list", "--source", "learned", *store).stdout) == []
    assert len(ids_of(cli("list", *store).stdout)) == n


def test_a_bad_settings_file_is_refused(tmp_path):
    settings = tmp_path / "agent.yaml"
    settings.write_text("memory:\n  kk: 4\n")
    done = cli("list", "--config", str(settings), "--path", str(tmp_path / "mem"), ok=False)
    assert done.returncode == 2 and "kk" in done.stderr


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
    n = len(list((ROOT / "config" / "transcripts" / "tabletop").glob("*.txt")))
    assert f"{n} example(s) in examples_tabletop" in capsys.readouterr().err
    args = parser.parse_args(["memory", "show", "missing", *store])
    assert args.func(args) == 2 and "no example with id" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parser.parse_args(["memory"])                 # a memory subcommand is required

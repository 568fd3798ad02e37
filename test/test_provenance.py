"""Run records say where they come from (issue 59 item 6): the commit and whether the tree was
dirty; a headline seed is drawn and committed before the run."""
from __future__ import annotations

import json
import subprocess

from llm_interaction_node import provenance


def _repo(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for key, value in (("user.email", "t@example.invalid"), ("user.name", "t")):
        subprocess.run(["git", "-C", str(tmp_path), "config", key, value], check=True)
    (tmp_path / "a.txt").write_text("a\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "a.txt"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "-m", "a"], check=True)


def test_a_drawn_seed_is_committed_alone_before_the_run(tmp_path, monkeypatch):
    _repo(tmp_path)
    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    (tmp_path / "a.txt").write_text("changed\n")          # another change stays uncommitted
    seed = provenance.draw_seed(tmp_path / "runs" / "seed.json", "habits")
    kept = json.loads((tmp_path / "runs" / "seed.json").read_text())
    assert kept["seed"] == seed and 10_000 <= seed < 100_000 and kept["label"] == "habits"
    log = provenance.git("log", "--format=%s", "-1")
    assert f"headline seed {seed}" in log
    shown = provenance.git("show", "--stat", "--format=", "HEAD")
    assert "runs/seed.json" in shown and "a.txt" not in shown
    made = provenance.record(["bench", "--x"])
    assert made["commit"] == provenance.git("rev-parse", "--short=7", "HEAD")
    assert made["dirty"] is True and made["command"] == "bench --x"     # a.txt changed
    assert provenance.file_hash(tmp_path / "a.txt") and provenance.file_hash(tmp_path / "no") == ""

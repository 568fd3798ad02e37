"""The soak benchmark (bench/soak.py, issue 60 item 3) runs end to end on a short day: the
graph `llm-interaction run` starts (household_sim, interaction_node, tts; each its own
process), 20 utterances of the seeded mix said on speech/asr_text with the scripted stand-in
(requests, corrections, learn requests, stops, resets), checkpoints every 10; its record has
every field the issue asks for, and nothing said was lost. ROS, ChromaDB, the sandbox and the
simulator are real; the embedded model part is skipped (--model-requests 0)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llm_interaction_node.bench import soak

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent


def test_the_schedule_is_seeded_and_mixes_every_kind():
    events = soak.schedule(60, 500)
    assert events == soak.schedule(60, 500)
    assert events != soak.schedule(61, 500)
    kinds = [e.kind for e in events]
    assert sum(k != "reset" for k in kinds) == 500
    assert {"request", "correction", "learn", "stop", "reset"} <= set(kinds)
    # a learn request follows a correction; every scripted utterance has its turn
    assert all(kinds[i - 1] == "correction" for i, k in enumerate(kinds) if k == "learn")
    assert all(e.text in soak.SCRIPT for e in events if e.kind != "reset")
    model = soak.schedule(61, 50, model=True)
    assert "learn" not in {e.kind for e in model}


def test_a_short_soak_writes_its_record_and_loses_nothing(tmp_path):
    out = tmp_path / "soak"
    proc = subprocess.run(
        [sys.executable, "-m", "llm_interaction_node.bench.soak", "--requests", "20",
         "--model-requests", "0", "--every", "10", "--seed", "7", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240, env={**os.environ})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (path,) = out.glob("*-scripted20-model0.json")
    assert path.with_suffix(".md").is_file()
    record = json.loads(path.read_text())
    assert record["benchmark"] == "soak" and record["seed"] == 7 and record["lost"] == 0
    assert record["command"].startswith("python -m llm_interaction_node.bench.soak")
    assert len(record["commit"]) == 7 and isinstance(record["dirty"], bool)
    assert isinstance(record["dirty_files"], list)
    assert list(record["phases"]) == ["scripted"]
    phase = record["phases"]["scripted"]
    assert phase["said"] == 20 and phase["lost"] == 0 and phase["lost_utterances"] == []
    assert sum(phase["mix"].values()) == 20
    assert [cp["requests"] for cp in phase["checkpoints"]] == [0, 10, 20]
    for cp in phase["checkpoints"]:
        assert set(cp["nodes"]) == {"household_sim", "interaction_node", "tts"}
        for sample in cp["nodes"].values():
            assert sample["rss_mb"] > 10 and sample["open_files"] > 3 and sample["threads"] >= 1
        assert cp["sandbox_workers"] >= 1 and cp["chroma_bytes"] > 0
        assert cp["lessons"] is not None and cp["lost"] == 0
    for cp in phase["checkpoints"][1:]:
        assert cp["turns"] > 0 and 0 < cp["latency_p50_s"] <= cp["latency_p95_s"] < 60
    targets = phase["targets"]
    assert targets["lost"] == {"target": 0, "value": 0, "met": True}
    assert set(targets["rss_growth"]["value"]) == {"household_sim", "interaction_node", "tts"}
    assert targets["p95_growth"]["from"] == 10 and targets["p95_growth"]["to"] == 20
    assert isinstance(targets["rss_growth"]["met"], bool)

#!/usr/bin/env python3
"""How the embedded model reads the labelled requests to learn and their look-alikes.

    .venv/bin/python scripts/learn_set_reading.py [--out FILE.jsonl]

Every utterance of ``test/data/learn_requests.yaml`` (written for the learning gate, in
neither the development wording pool nor any reading prompt) is read as the agent reads a
reply in the ``drinks_and_cup`` world after the robot moved the coffee cup (as
test_reading_model.py reads its sample). Printed: how many requests to learn are read as one
(``asks_to_learn``), how many look-alikes are, how many readings carry an ``also`` line (a
companion: "always bring X with Y"), and how many were asked whether they speak about every
time (core/reading/lasting.py) and gained ``learn`` by it. One line per utterance goes to
``--out``.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="one JSON line per utterance")
    args = parser.parse_args(argv)
    from llm_interaction_node.bench.household_situations import household_world
    from llm_interaction_node.bench.reading_items import household_vocabulary
    from llm_interaction_node.core.llm.local import LocalLlamaClient
    from llm_interaction_node.core.reading import Reader, lasting

    asked: dict[str, bool] = {}
    check = lasting.LastingCheck.__call__

    def noted(self, reading, said, reply):          # which readings were asked, and answered
        out = check(self, reading, said, reply)
        if lasting.asks(reading, reply):
            asked[said] = "learn" in out.kinds
        return out
    lasting.LastingCheck.__call__ = noted

    data = yaml.safe_load((ROOT / "test" / "data" / "learn_requests.yaml").read_text())
    vocabulary = household_vocabulary(household_world("drinks_and_cup"))
    reader = Reader(LocalLlamaClient())
    reader.prefill(persist=True)
    rows = []
    for label in ("positive", "negative"):
        for said in data[label]:
            got = reader.read(said, vocabulary, reply=True, moved=["coffee-cup_0"])
            text = got.render(vocabulary.spoken).replace("\n", "; ") if got else None
            rows.append({"label": label, "said": said, "reading": text,
                         "learn": bool(got and got.asks_to_learn),
                         "also": bool(got and "also" in got.kinds),
                         "asked": said in asked, "gained": asked.get(said, False)})
            print(f"{label[:3]} {said[:60]!r:64} -> {text}", file=sys.stderr, flush=True)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows))
    for label in ("positive", "negative"):
        rs = [r for r in rows if r["label"] == label]
        print(f"{label}: {len(rs)}; read as learn {sum(r['learn'] for r in rs)}, with an also "
              f"line {sum(r['also'] for r in rs)}, asked about every time "
              f"{sum(r['asked'] for r in rs)}, gained learn by it {sum(r['gained'] for r in rs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

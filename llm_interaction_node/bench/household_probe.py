"""Probe: household requests in words nobody built from, each on a fresh memory, judged by the
world's end state. The fast check of a change on wordings and scenes outside the pools: write
a few requests as a person would say them, run them, read what the robot did.

A probes file (YAML) is a list of probes::

    - world: sponge_workbench              # a world of config/worlds
      said: can you grab the screwdriver for me
      goal: {screwdriver_0: human}         # object -> 'human', 'on_<furniture>', 'left'/'right'
    - world: living_room
      said: [put the apple by the book, "no, on the coffee table"]   # several turns
      goal: {apple_0: on_coffee-table_0}

Every probe runs in this one process (the model is loaded once) with its own fresh memory and
a fresh world; a question the robot asks is answered "yes". Per probe the record keeps what was
said, the skills the world ran, the unmet facts, how each utterance was read and what the
guides changed (their log lines) and the transcript (``OUT/probes.json``), the
totals go to ``OUT/summary.json``.

    python -m llm_interaction_node.bench.household_probe --probes FILE [--out DIR]
        [--set KEY=VALUE] [--llm-base-url URL --llm-model NAME]
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

import yaml

from ..llm_options import add_llm_options, llm_overrides
from . import household_situations as H
from .household_lessons import setting_overrides

MODULE = "llm_interaction_node.bench.household_probe"
YES = "yes"
# what the record keeps of the log: how each utterance was read, what the guides changed
NOTED = ("llm_interaction_node.core.reading.reader", "llm_interaction_node.core.guides")


class _Notes(logging.Handler):
    """The INFO lines of :data:`NOTED` while one probe runs."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def load_probes(path: str | Path) -> list[dict]:
    """The probes of a YAML file, checked: each names a world of ``config/worlds``, says at
    least one sentence and sets a goal on objects of that world."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path}: expected a non-empty list of probes")
    probes = []
    for i, item in enumerate(data):
        where = f"{path}: probe {i + 1}"
        if not isinstance(item, dict) or {"world", "said", "goal"} - set(item):
            raise ValueError(f"{where}: needs world, said and goal")
        if item["world"] not in H.WORLDS:
            raise ValueError(f"{where}: unknown world {item['world']!r} (one of {H.WORLDS})")
        said = [item["said"]] if isinstance(item["said"], str) else list(item["said"])
        goal = item["goal"]
        if not said or not all(isinstance(s, str) and s.strip() for s in said):
            raise ValueError(f"{where}: said must be a sentence or a list of them")
        objects = H.state(H.household_world(item["world"]))
        if not isinstance(goal, dict) or not goal or any(o not in objects for o in goal):
            raise ValueError(f"{where}: goal must map objects of {item['world']} to where they "
                             f"end (objects: {', '.join(sorted(objects))})")
        probes.append({"world": item["world"], "said": said,
                       "goal": [[obj, where_to] for obj, where_to in goal.items()]})
    return probes


def run_probe(probe: dict, settings, llm) -> dict:
    """One probe on a fresh memory and world with the client ``llm``: its record."""
    world = H.household_world(probe["world"])
    queue = list(probe["said"])

    def respond(purpose, prompt):
        if purpose == "ask":
            return YES
        return queue.pop(0) if queue else None

    notes = _Notes()
    loggers = [logging.getLogger(name) for name in NOTED]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(notes)
        logger.setLevel(logging.INFO)
    t0 = time.perf_counter()
    try:
        transcript, error = _run(world, respond, settings, llm)
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(notes)
            logger.setLevel(level)
    unmet = H.unmet([tuple(f) for f in probe["goal"]], H.state(world))
    return {**probe, "met": not unmet and error is None, "unmet": [list(f) for f in unmet],
            "skills": [f"{c.skill}({', '.join(f'{k}={v}' for k, v in c.args.items())})"
                       f" -> {c.result}" for c in world.log],
            "notes": notes.lines, "unsaid": queue, "error": error,
            "wall_s": round(time.perf_counter() - t0, 1), "transcript": transcript}


def _run(world, respond, settings, llm) -> tuple[str, str | None]:
    """One session on a fresh memory: its transcript and the error that ended it (or None)."""
    from ..core.user.channel import CallbackUser
    from ..session import build_session

    error = None
    with tempfile.TemporaryDirectory() as memory:
        session = build_session("humanoid", world, CallbackUser(respond),
                                settings.with_overrides({"memory.path": memory}), llm=llm)
        try:
            session.agent.run()
        except Exception as exc:  # noqa: BLE001 - reported, the probes go on
            error = f"{type(exc).__name__}: {exc}"
        transcript = session.console.transcript.render()
        session.console.close()
    return transcript, error


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {MODULE}",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--probes", required=True, metavar="YAML", help="the probes file")
    parser.add_argument("--out", default="docs/eval/household/probe")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting of every probe, e.g. agent.go_where_it_lies=false")
    add_llm_options(parser)
    args = parser.parse_args(argv)
    from ..core.llm import make_client
    from ..settings import Settings
    try:
        probes = load_probes(args.probes)
        overrides = {**setting_overrides(args.set), **llm_overrides(args)}
        settings = Settings().with_overrides(overrides)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    llm = make_client(settings.llm)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    records = []
    for i, probe in enumerate(probes, 1):
        record = run_probe(probe, settings, llm)
        records.append(record)
        print(f"[{i}/{len(probes)}] {'met  ' if record['met'] else 'UNMET'} {probe['world']}: "
              f"{' / '.join(probe['said'])!r} ({record['wall_s']} s)"
              + (f" unmet {record['unmet']}" if record["unmet"] else "")
              + (f" error {record['error']}" if record["error"] else ""),
              file=sys.stderr, flush=True)
    (out / "probes.json").write_text(json.dumps(records, indent=1) + "\n")
    met = sum(r["met"] for r in records)
    result = {"benchmark": "household_probe", "probes_file": str(args.probes),
              "settings": overrides, "probes": len(records), "met": met,
              "rows": [{k: r[k] for k in ("world", "said", "met", "unmet", "error", "wall_s")}
                       for r in records]}
    (out / "summary.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"met {met}/{len(records)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

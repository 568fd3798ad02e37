"""Run one humanoid session in this process with the scripted LLM; report what happened.

Usage: python scripted_session.py SPEC.json OUT.json
SPEC: {"responses": [...], "utterances": [...], "memory": {...}, "world": "drinks_and_cup",
       "learning": "improve", "readings": {utterance: clauses}}
OUT:  {"prompts": [...], "transcript": "...", "spoken": [...], "stored": [...ids],
       "world": snapshot}
Tests start it as a separate process (:func:`run_session`) so that a later process can show
what an earlier one learned (only the LLM is scripted; the world, the console and ChromaDB
are real).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.memory.source import ExampleSource
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.replay import interaction_start
from llm_interaction_node.session import build_agent, learning_console, make_world, open_memory
from llm_interaction_node.settings import LearningSettings


def run_session(tmp_path: Path, name: str, spec: dict, timeout: float = 300) -> dict:
    """Run this driver on ``spec`` in a new process (files ``tmp_path/name*.json``); its OUT."""
    spec_path, out_path = tmp_path / f"{name}.json", tmp_path / f"{name}.out.json"
    spec_path.write_text(json.dumps(spec))
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    r = subprocess.run([sys.executable, __file__, str(spec_path), str(out_path)],
                       capture_output=True, text=True, timeout=timeout, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(out_path.read_text())


def main(spec_path: str, out_path: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from reading_support import scripted_reader
    spec = json.load(open(spec_path))
    reader = scripted_reader(spec["readings"], default=None) if spec.get("readings") else None
    world = make_world("humanoid", spec.get("world", "drinks_and_cup"))
    spoken: list[str] = []
    llm = ScriptedLLM(spec["responses"])
    memory = open_memory("humanoid", spec["memory"])
    before = {e.id for e in memory.list()}
    # as build_session assembles it: learned examples are replayed from the interaction's start
    console, _ = learning_console(
        "humanoid",
        world,
        EventQueue(spec["utterances"], close=True),
        llm,
        memory,
        LearningSettings(mode=spec.get("learning", "improve")),
        speak=spoken.append,
        start=interaction_start(world),
        reader=reader,
    )
    agent = build_agent("humanoid", llm, console,
                        ExampleSource(memory), reader=reader)
    agent.run()
    json.dump({"prompts": llm.prompts, "transcript": console.transcript.render(),
               "spoken": spoken, "stored": [e.id for e in memory.list() if e.id not in before],
               "remaining": llm.remaining, "world": world.snapshot()},
              open(out_path, "w"), default=str)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

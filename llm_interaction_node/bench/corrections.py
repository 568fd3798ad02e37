"""Benchmark: does the system's next turn put a wrong attempt right from the user's feedback?

Each situation (:mod:`.correction_situations`) is run in PyBullet: the scene, the
instruction, the wrong first attempt executed through the agent's own console (the attempt
comes from a script standing in for the model's first turn, so the transcript, the outputs and
what the agent remembers of the attempt are the real ones), the simulated user's high-level
feedback on the world it left, then the model's next turn (up to ``--max-statements``
statements or ``wait_for_trigger()``). Judged by the task's own success check:

* ``put_right``: the task's check holds after the new turn;
* ``changed``: the new turn's first move differs from the attempt's first move;
* ``copied``: the new turn starts with every move of the attempt again;
* ``worse``: a block the attempt had put right is no longer right.

Variants are settings (``VARIANTS``: ``today`` = every mechanism off, ``mechanisms`` = all
on, ``default`` = the settings as shipped, and one row per mechanism switched off), compared in one run with
``--variants``. The prompt is the fixed one (all seed examples, no lesson), so the embedded
model evaluates it once per variant. One JSON record per situation and variant in
``OUT/<variant>/``; a record that exists is not run again (resumable); ``OUT/summary.json``
holds the totals per variant. ``--api-preset paper``: the paper's API and outputs (the
setting ``robot_api.preset``), its records in ``OUT/<variant>-paper-api/``.

    python -m llm_interaction_node.bench.corrections [--variants today default]
        [--templates ...] [--scenes 3] [--seed-base 0] [--api-preset paper] [--out DIR]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from ..core.llm import Completion, ScriptedLLM, Usage
from ..core.statements import code_lines
from ..core.user import CallbackUser
from ..eval import tasks as T
from ..eval.harness import run_seed
from ..eval.observe import PLACES, at_place, in_bowl, observe, on_block
from ..eval.simulated_user import Observation, SimulatedUser
from ..preset_option import add_api_preset_option
from ..session import build_session, open_memory
from ..settings import Settings
from .correction_situations import (MISTAKES, SEEN_TEMPLATES, Situation, attempt_source, plan,
                                    solution_moves)

MOVE = "put_first_on_second"
# every mechanism of issue 31 as a setting; ``today`` switches all of them off
MECHANISMS: dict[str, dict[str, object]] = {
    "focus": {"agent.correction_focus": True},           # decoding after a correction
    "restate": {"agent.restate_correction": True},       # the user's words restated
    "repeat_actions": {"agent.repeat_actions_only": True},    # repeat note over actions only
}
_ALL_ON = {k: v for m in MECHANISMS.values() for k, v in m.items()}
VARIANTS: dict[str, dict[str, object]] = {
    "default": {},                                       # the settings as shipped
    "today": {k: False for k in _ALL_ON},                # every mechanism off
    "mechanisms": _ALL_ON,                               # every mechanism on
    **{f"no_{name}": {**_ALL_ON, **{k: False for k in overrides}}
       for name, overrides in MECHANISMS.items()},
}
DEFAULT_VARIANT = "default"
PRESET_SUFFIX = "-{}-api"             # a variant's records with another API preset than ours


def label(variant: str, preset: str = "ours") -> str:
    """The directory (and summary row) of a variant's records with an API preset."""
    return variant if preset == "ours" else variant + PRESET_SUFFIX.format(preset)


def unlabel(name: str) -> tuple[str, str]:
    """(variant, API preset) of a :func:`label`."""
    variant, _, rest = name.partition("-")
    return variant, rest[:-len("-api")] if rest.endswith("-api") else "ours"


class AttemptFirst:
    """An LLM whose first turn is the scripted attempt, then the real model (``llm``): the
    attempt runs through the agent like the model's own statements."""

    def __init__(self, llm, attempt: list[str]):
        self._llm = llm
        self._script = list(attempt) + ["wait_for_trigger()"]
        self.config = llm.config

    def complete(self, prompt, **kwargs) -> Completion:
        if self._script:
            return Completion(self._script.pop(0), Usage())
        return self._llm.complete(prompt, **kwargs)

    def __getattr__(self, name):          # prefill, chat, describe: the real model's
        return getattr(self._llm, name)


def _satisfied(pos, block: str, target: str) -> bool:
    if target in PLACES:
        return at_place(pos[block], PLACES[target])
    if target.endswith(" bowl"):
        return in_bowl(pos[block], pos[target])
    return on_block(pos[block], pos[target])


def _moves(statements: list[str]) -> list[str]:
    """The move statements (those calling put_first_on_second), whitespace-normalised."""
    out = []
    for source in statements:
        code = " ".join(" ".join(ln.split()) for ln in code_lines(source))
        if MOVE + "(" in code:
            out.append(code)
    return out


def run_situation(situation: Situation, world, llm, settings: Settings, memory) -> dict | None:
    """The new turn after the feedback, judged (None: the attempt was right after all)."""
    task = situation.task
    initial = T.world_positions(world)
    user = SimulatedUser(task, initial, seed=situation.seed)
    state: dict = {"calls": 0}

    def respond(purpose, prompt):
        state["calls"] += 1
        if state["calls"] == 1:
            return user.first().text
        if state["calls"] == 2:
            after = T.world_positions(world)
            state["after"] = after
            success = T.check(task, initial, after)
            view = observe(task, initial, after)
            answer = user.respond(Observation(success=success, places=view.places,
                                              moved=view.moved, unmet=view.unmet))
            if success or answer is None or answer.kind != "high_level":
                state["invalid"] = f"the attempt was judged {success=}, answer {answer}"
                return None
            state["feedback"] = answer.text
            state["turn_start"] = len(session.console.transcript)
            state["t0"] = time.perf_counter()
            state["usage0"] = session.ledger.total
            return answer.text
        state["wall"] = time.perf_counter() - state["t0"]
        return None

    session = build_session("tabletop", world, CallbackUser(respond), settings,
                            llm=AttemptFirst(llm, situation.attempt), memory=memory)
    session.agent.run()
    if "invalid" in state:
        return None
    final = T.world_positions(world)
    entries = list(session.console.transcript)
    turn = entries[state["turn_start"]:]
    new_moves = _moves([e.source for e in turn])
    old_moves = _moves(situation.attempt)
    right = solution_moves(task, initial)
    usage = session.ledger.total
    before = state["usage0"]
    return {
        "situation": situation.id, "template": situation.template, "kind": situation.kind,
        "seed": situation.seed, "instruction": task.instruction, "feedback": state["feedback"],
        "attempt": situation.attempt,
        "put_right": bool(T.check(task, initial, final)),
        "changed": bool(new_moves) and new_moves[0] != old_moves[0],
        "copied": new_moves[:len(old_moves)] == old_moves,
        "worse": any(_satisfied(state["after"], b, t) and not _satisfied(final, b, t)
                     for b, t in right),
        "evaluated_tokens": usage.evaluated_prompt_tokens - before.evaluated_prompt_tokens,
        "generated_tokens": usage.completion_tokens - before.completion_tokens,
        "wall_s": round(state["wall"], 2),
        "transcript": "\n".join(e.render() for e in turn),
        "whole_transcript": session.console.transcript.render(),
    }


def situations(templates, scenes: int, seed_base: int, factory) -> list[tuple[Situation, Callable]]:
    """``scenes`` situations per template: (situation, a builder of its world)."""
    out = []
    for template in templates:
        found, r = 0, 0
        while found < scenes and r < scenes + 20:
            r += 1
            seed = run_seed(seed_base, "sa_si", template, r)
            planned = plan(template, seed, found, factory)
            if planned is None:
                continue
            situation, world = planned
            world.close() if hasattr(world, "close") else None
            out.append((situation, lambda s=situation: T.feasible_world(s.task, factory)))
            found += 1
    return out


def summary(out: Path, variants) -> dict:
    """Totals per variant from the records in ``out``."""
    rows = []
    for variant in variants:
        records = [json.loads(p.read_text()) for p in sorted((out / variant).glob("*.json"))]
        n = len(records)
        base, preset = unlabel(variant)
        rows.append({"variant": variant, "api_preset": preset, "situations": n,
                     "put_right": sum(r["put_right"] for r in records),
                     "changed": sum(r["changed"] for r in records),
                     "copied": sum(r["copied"] for r in records),
                     "worse": sum(r["worse"] for r in records),
                     "evaluated_tokens": sum(r["evaluated_tokens"] for r in records),
                     "wall_s": round(sum(r["wall_s"] for r in records), 1),
                     "default": variant == DEFAULT_VARIANT,
                     "settings": {**VARIANTS.get(base, {}),
                                  **({"robot_api.preset": preset} if preset != "ours" else {})}})
    return {"benchmark": "corrections", "variants": rows}


def _print_table(result: dict) -> None:
    print(f"{'variant':<18} {'n':>3} {'put right':>10} {'changed':>8} {'copied':>7} "
          f"{'worse':>6} {'tokens':>8} {'wall s':>8}")
    for r in result["variants"]:
        print(f"{r['variant']:<18} {r['situations']:>3} {r['put_right']:>10} {r['changed']:>8} "
              f"{r['copied']:>7} {r['worse']:>6} {r['evaluated_tokens']:>8} {r['wall_s']:>8}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.corrections",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=[DEFAULT_VARIANT], choices=VARIANTS)
    parser.add_argument("--templates", nargs="+", default=list(SEEN_TEMPLATES), choices=MISTAKES)
    parser.add_argument("--scenes", type=int, default=3, help="situations per template")
    parser.add_argument("--seed-base", type=int, default=0, help="another base: other scenes")
    parser.add_argument("--max-statements", type=int, default=8)
    parser.add_argument("--out", default="docs/eval/corrections")
    parser.add_argument("--world", choices=("bullet", "2d"), default="bullet")
    add_api_preset_option(parser)
    parser.add_argument("--scripted", action="store_true",
                        help="a stand-in that answers with the solution (tests the bench itself)")
    args = parser.parse_args(argv)
    from ..eval.worlds import world_factory
    factory = world_factory(args.world, "floating")
    out = Path(args.out)
    planned = situations(args.templates, args.scenes, args.seed_base, factory)
    print(f"{len(planned)} situations, variants {', '.join(args.variants)}", file=sys.stderr)
    llm = None
    preset = args.api_preset or "ours"
    labels = [label(v, preset) for v in args.variants]
    for variant, name in zip(args.variants, labels):
        (out / name).mkdir(parents=True, exist_ok=True)
        settings = Settings().with_overrides({
            **VARIANTS[variant], "memory.k": 64, "learning.mode": "off",
            "agent.max_statements_per_turn": args.max_statements, "robot_api.preset": preset})
        with tempfile.TemporaryDirectory() as tmp:
            settings = settings.with_overrides({"memory.path": tmp, "memory.enabled": True})
            settings.memory.host = None
            memory = open_memory("tabletop", settings.memory)
            for i, (situation, build) in enumerate(planned, 1):
                path = out / name / f"{situation.id}.json"
                if path.exists():
                    continue
                if llm is None:
                    llm = _llm(args.scripted)
                world = build()
                try:
                    record = run_situation(situation, world, llm if not args.scripted
                                           else _oracle(situation, world), settings, memory)
                finally:
                    world.close() if hasattr(world, "close") else None
                if record is None:
                    print(f"[{name}] {i}/{len(planned)} {situation.id}: attempt not wrong, "
                          "skipped", file=sys.stderr, flush=True)
                    continue
                record["variant"] = variant
                record["api_preset"] = preset
                path.write_text(json.dumps(record, indent=1) + "\n")
                print(f"[{name}] {i}/{len(planned)} {situation.id}: "
                      f"right={record['put_right']} changed={record['changed']} "
                      f"copied={record['copied']} worse={record['worse']} "
                      f"{record['wall_s']} s", file=sys.stderr, flush=True)
    result = summary(out, labels)
    (out / "summary.json").write_text(json.dumps(summary(out, sorted(
        p.name for p in out.iterdir() if p.is_dir())), indent=1) + "\n")
    _print_table(result)
    return 0


def _llm(scripted: bool):
    if scripted:
        return None
    from ..core.llm.local import LocalLlamaClient
    return LocalLlamaClient(persist_states=False)


def _oracle(situation: Situation, world):
    """The stand-in of ``--scripted``: the solution's moves, then the hand-back."""
    moves = solution_moves(situation.task, T.world_positions(world))
    return ScriptedLLM(attempt_source(moves, place_names=True)[1:] + ["wait_for_trigger()"] * 3)


if __name__ == "__main__":
    sys.exit(main())

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

``--world household`` runs the household situations instead (:mod:`.household_situations`:
an object forgotten, the wrong object, the wrong place, handed over instead of put down, held
in the wrong hand, too slow, in the four household worlds; 4 of each by default, 24 in all),
judged the same way by the household world's state: put right when every fact of the request
holds (who holds what, what stands where, where the robot drove fast), worse when a fact that
held after the attempt no longer does; a move is a statement calling a skill that acts on an
object (``H.MOVES``: the API functions not marked as queries, ``move_to`` left out). Records:
``docs/eval/household/corrections/<variant>/`` by default.

Variants are settings (``VARIANTS``: ``today`` = every mechanism off, ``mechanisms`` = all
on, ``default`` = the settings as shipped, and one row per mechanism switched off), compared in \
one run with
``--variants``. The prompt is the fixed one (all seed examples, no lesson), so the embedded
model evaluates it once per variant. One JSON record per situation and variant in
``OUT/<variant>/``; a record that exists is not run again (resumable); ``OUT/summary.json``
holds the totals per variant. ``--api-preset paper``: the paper's API and outputs (the
setting ``robot_api.preset``), its records in ``OUT/<variant>-paper-api/``.

    python -m llm_interaction_node.bench.corrections [--variants today default]
        [--templates ...] [--scenes 3] [--seed-base 0] [--world bullet|2d|household]
        [--api-preset paper] [--phrasings config/phrasings/development.yaml] [--out DIR]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ..core.llm import Completion, ScriptedLLM, Usage
from ..core.transcript.statements import code_lines
from ..core.user.channel import CallbackUser
from ..eval import tasks as T
from ..eval.harness import run_seed
from ..eval.observe import PLACES, at_place, in_bowl, observe, on_block
from ..eval.phrasings import BUILT_IN, Phrasings, load_phrasings
from ..eval.simulated_user import Observation, SimulatedUser
from ..preset_option import add_api_preset_option
from ..session import build_session, open_memory
from ..settings import Settings
from . import household_situations as H
from .correction_situations import (
    MISTAKES,
    SEEN_TEMPLATES,
    Situation,
    attempt_source,
    plan,
    solution_moves,
)

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
    # the decoding helps of session 40, each off beside the shipped settings
    "no_unblock": {"agent.unblock_first": False},        # a blocked move's blocker first
    "no_comment_limit": {"agent.comments_in_a_row": 0},  # a statement after two comments
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


def _moves(statements: list[str], functions=(MOVE,)) -> list[str]:
    """The move statements (those calling one of ``functions``: put_first_on_second, the
    household's object skills), whitespace-normalised."""
    calls = re.compile(r"\b(?:" + "|".join(map(re.escape, functions)) + r")\s*\(")
    out = []
    for source in statements:
        code = " ".join(" ".join(ln.split()) for ln in code_lines(source))
        if calls.search(code):
            out.append(code)
    return out


def _next_turn(api: str, world, instruction: str, attempt: list[str], answer: Callable,
               llm, settings: Settings, memory) -> tuple | None:
    """The instruction, the scripted attempt, the user's answer (``answer()``, asked on the
    world the attempt left: the feedback, or None when the attempt needs none), then the
    system's next turn: (session, what was measured), None without feedback."""
    state: dict = {"calls": 0}

    def respond(purpose, prompt):
        state["calls"] += 1
        if state["calls"] == 1:
            return instruction
        if state["calls"] == 2:
            text = answer()
            if text is None:
                state["invalid"] = True
                return None
            state["feedback"] = text
            state["turn_start"] = len(session.console.transcript)
            state["t0"] = time.perf_counter()
            state["usage0"] = session.ledger.total
            return text
        state.setdefault("wall", time.perf_counter() - state["t0"])
        return None

    session = build_session(api, world, CallbackUser(respond), settings,
                            llm=AttemptFirst(llm, attempt), memory=memory, reader_llm=llm)
    session.agent.run()
    if "invalid" in state or "t0" not in state:
        return None
    state.setdefault("wall", time.perf_counter() - state["t0"])
    return session, state


def _judged(session, state: dict, attempt: list[str], functions, put_right: bool,
            worse: bool) -> dict:
    """The record's measures of the new turn (see the module docstring)."""
    turn = list(session.console.transcript)[state["turn_start"]:]
    new_moves = _moves([e.source for e in turn], functions)
    old_moves = _moves(attempt, functions)
    usage, before = session.ledger.total, state["usage0"]
    return {
        "feedback": state["feedback"], "attempt": attempt,
        "put_right": bool(put_right),
        "changed": bool(new_moves) and new_moves[0] != old_moves[0],
        "copied": new_moves[:len(old_moves)] == old_moves,
        "worse": bool(worse),
        # a complaint answered with a learn or forget call (issue 44: none may be)
        "learn_or_forget": len(_moves([e.source for e in turn],
                                      ("learn_from_interaction", "forget_learned"))),
        "evaluated_tokens": usage.evaluated_prompt_tokens - before.evaluated_prompt_tokens,
        "generated_tokens": usage.completion_tokens - before.completion_tokens,
        "wall_s": round(state["wall"], 2),
        "readings": readings_of(session),
        "transcript": "\n".join(e.render() for e in turn),
        "whole_transcript": session.console.transcript.render(),
    }


def readings_of(session) -> dict[str, str | None]:
    """What the model read of each user utterance (None: no reading), as the records show it."""
    reader = session.reader
    if reader is None:
        return {}
    out = {}
    for said in session.console.builtins.utterances:
        reading = reader.last(str(said))
        out[str(said)] = reading.render().replace("\n", "; ") if reading is not None else None
    return out


def run_situation(situation: Situation, world, llm, settings: Settings, memory,
                  phrasings: Phrasings = BUILT_IN) -> dict | None:
    """The new turn after the feedback, judged (None: the attempt was right after all); the
    user speaks from ``phrasings`` (situation n of a template takes its n-th wording)."""
    task = situation.task
    initial = T.world_positions(world)
    user = SimulatedUser(task, initial, seed=situation.seed, phrasings=phrasings,
                         run=situation.run)
    seen: dict = {}

    def answer():
        seen["after"] = after = T.world_positions(world)
        success = T.check(task, initial, after)
        view = observe(task, initial, after)
        reply = user.respond(Observation(success=success, places=view.places,
                                         moved=view.moved, unmet=view.unmet))
        if success or reply is None or reply.kind != "high_level":
            return None
        return reply.text

    ran = _next_turn("tabletop", world, user.first().text, situation.attempt, answer, llm,
                     settings, memory)
    if ran is None:
        return None
    session, state = ran
    final = T.world_positions(world)
    right = solution_moves(task, initial)
    return {
        "situation": situation.id, "template": situation.template, "kind": situation.kind,
        "seed": situation.seed, "instruction": user.instruction.text,
        **_judged(session, state, situation.attempt, (MOVE,), T.check(task, initial, final),
                  any(_satisfied(seen["after"], b, t) and not _satisfied(final, b, t)
                      for b, t in right)),
    }


def run_household_situation(situation: H.HouseholdSituation, world, llm, settings: Settings,
                            memory, phrasings: Phrasings = BUILT_IN) -> dict | None:
    """The same for a household situation, judged by the world's state: put right when every
    fact of the goal holds; worse when one that held after the attempt no longer does."""
    initial = H.state(world)
    seen: dict = {}

    def answer():
        seen["after"] = H.state(world)
        return H.feedback(situation, initial, seen["after"], world, phrasings)

    ran = _next_turn("humanoid", world, situation.instruction, situation.attempt, answer, llm,
                     settings, memory)
    if ran is None:
        return None
    session, state = ran
    final = H.state(world)
    return {
        "situation": situation.id, "template": situation.template, "kind": situation.kind,
        "seed": situation.seed, "world": situation.world, "instruction": situation.instruction,
        **_judged(session, state, situation.attempt, H.MOVES, not H.unmet(situation.goal, final),
                  any(H.holds(f, seen["after"]) and not H.holds(f, final)
                      for f in situation.goal)),
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
                     "learn_or_forget": sum(r.get("learn_or_forget", 0) for r in records),
                     "per_kind": {k: [sum(r["kind"] == k for r in records),
                                      sum(r["kind"] == k and r["put_right"] for r in records)]
                                  for k in dict.fromkeys(r["kind"] for r in records)},
                     "evaluated_tokens": sum(r["evaluated_tokens"] for r in records),
                     "wall_s": round(sum(r["wall_s"] for r in records), 1),
                     "default": variant == DEFAULT_VARIANT,
                     "settings": {**VARIANTS.get(base, {}),
                                  **({"robot_api.preset": preset} if preset != "ours" else {})}})
    return {"benchmark": "corrections", "variants": rows}


def _print_table(result: dict) -> None:
    print(f"{'variant':<18} {'n':>3} {'put right':>10} {'changed':>8} {'copied':>7} "
          f"{'worse':>6} {'learn/forget':>12} {'tokens':>8} {'wall s':>8}")
    for r in result["variants"]:
        print(f"{r['variant']:<18} {r['situations']:>3} {r['put_right']:>10} {r['changed']:>8} "
              f"{r['copied']:>7} {r['worse']:>6} {r['learn_or_forget']:>12} "
              f"{r['evaluated_tokens']:>8} {r['wall_s']:>8}")


def bench_settings(variant: str, max_statements: int, memory_path: str,
                   preset: str = "ours") -> Settings:
    """The settings of ``variant``: the fixed prompt (every seed example, a fresh memory at
    ``memory_path``, no learning), at most ``max_statements`` statements in the new turn,
    the API ``preset``; the scripted attempt runs as written (``agent.take_what_was_read``,
    ``go_where_it_lies`` and ``put_where_read`` off: they act only in a request's first
    attempt, the bench's)."""
    settings = Settings().with_overrides({
        # the first attempt is the bench's scripted mistake, run through the agent: the code
        # must not put it right (core/guides/as_read.py, where_it_lies.py and put_as_read.py act
        # in a request's first attempt only)
        "agent.take_what_was_read": False, "agent.go_where_it_lies": False,
        "agent.put_where_read": False,
        **VARIANTS[variant], "memory.k": 64, "learning.mode": "off",
        "agent.max_statements_per_turn": max_statements, "robot_api.preset": preset,
        "memory.path": memory_path, "memory.enabled": True})
    settings.memory.host = None
    return settings


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.corrections",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=[DEFAULT_VARIANT], choices=VARIANTS)
    parser.add_argument("--templates", nargs="+", default=None, choices=[*MISTAKES, *H.KINDS],
                        help="tabletop templates (default: the 8 seen ones); with --world "
                        "household the mistakes (default: all three)")
    parser.add_argument("--scenes", type=int, default=None,
                        help="situations per template (default 3; household: per mistake, 4)")
    parser.add_argument("--seed-base", type=int, default=0, help="another base: other scenes")
    parser.add_argument("--max-statements", type=int, default=8)
    parser.add_argument("--out", default=None, help="default docs/eval/corrections "
                        "(household: docs/eval/household/corrections)")
    parser.add_argument("--world", choices=("bullet", "2d", "household"), default="bullet",
                        help="the tabletop's simulator, or the household situations")
    add_api_preset_option(parser)
    parser.add_argument("--phrasings", metavar="YAML",
                        help="the wording pool the user speaks from (instructions, feedback; "
                        "the household's requests and answers): e.g. "
                        "config/phrasings/development.yaml; default the built-in pool")
    parser.add_argument("--scripted", action="store_true",
                        help="a stand-in that answers with the solution (tests the bench itself)")
    args = parser.parse_args(argv)
    try:
        phrasings = load_phrasings(args.phrasings)
    except ValueError as exc:
        parser.error(str(exc))
    household = args.world == "household"
    templates = args.templates or list(H.KINDS if household else SEEN_TEMPLATES)
    wrong = [t for t in templates if t not in (H.KINDS if household else MISTAKES)]
    if wrong:
        what = "household mistake" if household else "tabletop template"
        parser.error(f"{', '.join(wrong)}: not a {what}")
    out = Path(args.out or ("docs/eval/household/corrections" if household
                            else "docs/eval/corrections"))
    if household:
        per_kind = 4 if args.scenes is None else args.scenes
        planned = [(s, s.build) for s in H.situations(per_kind, args.seed_base, templates,
                                                      phrasings=phrasings)]
        api, run, oracle = "humanoid", run_household_situation, _household_oracle
    else:
        from ..eval.worlds import world_factory
        factory = world_factory(args.world, "floating")
        planned = situations(templates, 3 if args.scenes is None else args.scenes,
                             args.seed_base, factory)
        api, run, oracle = "tabletop", run_situation, _oracle
    print(f"{len(planned)} situations, variants {', '.join(args.variants)}, wordings "
          f"{phrasings.label}", file=sys.stderr)
    llm = None
    preset = args.api_preset or "ours"
    labels = [label(v, preset) for v in args.variants]
    for variant, name in zip(args.variants, labels, strict=True):
        (out / name).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            settings = bench_settings(variant, args.max_statements, tmp, preset)
            memory = open_memory(api, settings.memory)
            for i, (situation, build) in enumerate(planned, 1):
                path = out / name / f"{situation.id}.json"
                if path.exists():
                    continue
                if llm is None:
                    llm = _llm(args.scripted)
                world = build()
                try:
                    record = run(situation, world, llm if not args.scripted
                                 else oracle(situation, world), settings, memory, phrasings)
                finally:
                    world.close() if hasattr(world, "close") else None
                if record is None:
                    print(f"[{name}] {i}/{len(planned)} {situation.id}: attempt not wrong, "
                          "skipped", file=sys.stderr, flush=True)
                    continue
                record["variant"] = variant
                record["api_preset"] = preset
                record["phrasings"] = phrasings.label
                path.write_text(json.dumps(record, indent=1) + "\n")
                print(f"[{name}] {i}/{len(planned)} {situation.id}: "
                      f"right={record['put_right']} changed={record['changed']} "
                      f"copied={record['copied']} worse={record['worse']} "
                      f"{record['wall_s']} s", file=sys.stderr, flush=True)
    result = summary(out, labels)
    (out / "summary.json").write_text(json.dumps(summary(out, sorted(
        p.name for p in out.iterdir() if p.is_dir() and unlabel(p.name)[0] in VARIANTS)),
        indent=1) + "\n")
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


def _household_oracle(situation: H.HouseholdSituation, world):
    """The household stand-in of ``--scripted``: the skill calls that put right what the
    attempt leaves, then the hand-back."""
    return ScriptedLLM(H.solution(situation, H.state(world)) + ["wait_for_trigger()"] * 3)


if __name__ == "__main__":
    sys.exit(main())

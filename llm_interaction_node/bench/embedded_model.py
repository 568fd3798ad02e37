"""Benchmark: the embedded default model (Qwen2.5-Coder-1.5B via llama.cpp) as a user meets it.

Three measurements, all with the real model, worlds and memory (no feedback, temperature 0):

``latency``  "bring me the juice please" in the drinks_and_cup household, as ``make run`` /
             ``make chat`` serve it: the start-up prefill of the stable prompt prefix (with
             no saved state, then again by a new client that loads the state saved on disk),
             the time from the user's utterance to the first statement, the whole request,
             and whether the world ends right (the juice held by the human).
``learned-restart``  learning costs no restart (issue 17): a session starts (start-up
             prefill, saved on disk) and serves the juice request; then a learned example
             is stored (through the memory API, as ``learn_from_interaction()`` stores its
             rewrite) and the user asks again in the same session (the prefill of the new
             example set: RAM state); then a new client (as a new process) starts a new
             session on that memory (the start-up prefill: the disk state of the first one)
             and serves the request. Printed: evaluated tokens and seconds of each prefill,
             the evaluated tokens of each request and its time to the first statement.
             ``--api tabletop``: "put the blocks in the blue bowl" with the tabletop's 25
             seeds (the seed block) and a stored blocks lesson.
``attempts`` the first attempt (no feedback) at benchmark instructions (seen templates,
             PyBullet tabletop) per prompt mode (``--modes completion chat``), example
             order (``--orders``) and seed transcripts (``--seeds DIR``: to compare example
             sets): success before any feedback, names used that the scene does not have,
             tokens evaluated, wall time.

    python -m llm_interaction_node.bench.embedded_model latency
    python -m llm_interaction_node.bench.embedded_model learned-restart [--api tabletop]
    python -m llm_interaction_node.bench.embedded_model attempts --modes completion chat \\
        [--templates ...] [--rounds 2] [--orders stable similarity] [--seeds DIR] [--json]

Each attempt runs in a fresh session on a fresh memory; the model (and its saved prefix
states) is shared within one mode, as in an evaluation.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from ..core.llm import TokenLedger
from ..core.llm.local import LocalLlamaClient
from ..core.memory.config import MemoryConfig
from ..core.memory.order import Order
from ..core.memory.store import ExampleMemory
from ..core.settings.config_files import config_path
from ..core.user.channel import CallbackUser
from ..eval.harness import run_seed
from ..eval.tasks import (
    TEMPLATES,
    check,
    feasible_world,
    make_task,
    tasks_for_split,
    world_positions,
)
from ..session import build_session, make_world, open_memory
from ..settings import Settings

REQUEST = "bring me the juice please"
NAME = re.compile(r"'((?:[a-z]+) (?:block|bowl))'")


def _memory(api: str, directory: str, seeds: Path | None, **config) -> ExampleMemory:
    memory = ExampleMemory(api, MemoryConfig(path=directory, **config))
    memory.seed_from(seeds or config_path("transcripts", api))
    return memory


def latency(runs: int = 2, cache: str | None = None) -> dict:
    """The juice request, first with nothing saved, then ``runs - 1`` times as after a restart."""
    import os
    if cache:
        os.environ["LLM_INTERACTION_CACHE"] = cache
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(runs):
            t0 = time.perf_counter()
            llm = LocalLlamaClient()                           # a new process would do this
            load_s = time.perf_counter() - t0
            world = make_world("humanoid", "drinks_and_cup")
            said = [REQUEST]
            marks: dict[str, float] = {}

            def respond(purpose, prompt, said=said, marks=marks):
                if not said:
                    return None
                marks["spoke"] = time.perf_counter()
                return said.pop(0)

            settings = Settings().with_overrides({"memory.path": f"{tmp}/memory"})
            session = build_session(
                "humanoid", world, CallbackUser(respond), settings, llm=llm,
                input_listeners=[lambda _src, marks=marks: marks.setdefault(
                    "first", time.perf_counter()) if "spoke" in marks else None])
            t0 = time.perf_counter()
            session.agent.run()
            prefill = session.ledger.by_purpose().get("prefill")
            objects = world.snapshot()["objects"]
            juice = next((o for name, o in objects.items() if "juice" in name), {})
            results.append({
                "run": n + 1, "load_s": round(load_s, 1),
                "startup_prefill_s": round(marks["spoke"] - t0, 1),
                "startup_prefill_evaluated": prefill.evaluated_prompt_tokens if prefill else 0,
                "first_statement_s": round(marks["first"] - marks["spoke"], 1)
                if "first" in marks else None,
                "request_s": round(time.perf_counter() - marks["spoke"], 1),
                "statements": len(session.console.transcript.statements()) - 2,
                "juice_handed_over": juice.get("held_by") == "human",
                "transcript": session.console.transcript.render()})
            del llm
    return {"benchmark": "latency", "request": REQUEST, "runs": results}


# A lesson as learn_from_interaction() stores one: the request done the preferred way, then
# the user's approval (the paper's "Sample generated by learn_from_interaction()").
LESSON = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'bring me the mango juice'}
>>> say('I will bring you the mango juice.')
>>> move_to(get_location_coordinates('inFrontOf_kitchen-counter_0'))
'success'
>>> grasp('mango-juice_0')
'success'
>>> move_to(get_location_coordinates('handover_to_human'))
'success'
>>> say('Here is your mango juice.')
>>> handover_object_to_human('mango-juice_0')
'success'
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'thanks, and always tell me first what you will bring'}
>>> wait_for_trigger()"""

# the tabletop's: the first lesson the 5-run benchmark stored (ours_final_teaching)
TABLETOP_REQUEST = "put the blocks in the blue bowl"
TABLETOP_WORLD = "red block,yellow block,green block,blue bowl,green bowl"
TABLETOP_LESSON = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'put the blocks in the green bowl'}
>>> # The user's lesson for this request: 'Good job, learn from your mistakes.'
>>> put_first_on_second('red block', 'green bowl')
'success'
>>> put_first_on_second('green block', 'green bowl')
'success'
>>> put_first_on_second('yellow block', 'green bowl')
'success'
>>> wait_for_trigger()"""
# per API set: (request, world, lesson) of learned-restart
RESTART = {"humanoid": (REQUEST, "drinks_and_cup", LESSON),
           "tabletop": (TABLETOP_REQUEST, TABLETOP_WORLD, TABLETOP_LESSON)}



def _delta(after: dict, before: dict, purpose: str) -> tuple[int, float]:
    """(evaluated prompt tokens, LLM seconds) of ``purpose`` between two ``by_purpose()``."""
    now, then = after.get(purpose), before.get(purpose)
    if now is None:
        return 0, 0.0
    return (now.evaluated_prompt_tokens - (then.evaluated_prompt_tokens if then else 0),
            round(now.wall_s - (then.wall_s if then else 0.0), 1))


class _RestartUser:
    """The user of one process of ``learned_restart``: says ``plan`` (storing ``lesson`` at
    "learn" in ``memory``) and marks, per utterance, when it came, the ``ledger`` then and the
    first input. It holds its own process, plan, ledger and memory (the session's, made
    first and handed to both), so nothing is read from the caller's loop."""

    def __init__(self, process: int, plan: list[str], lesson: str, ledger: TokenLedger,
                 memory: ExampleMemory):
        self.process, self.plan, self.lesson = process, plan, lesson
        self.ledger, self.memory = ledger, memory
        self.marks: list[dict] = []
        self.start = 0.0                # set just before the session runs

    def respond(self, purpose, prompt):
        marks = self.marks
        marks.append({"at": time.perf_counter(), "ledger": self.ledger.by_purpose()})
        print(f"[process {self.process}] utterance {len(marks)} at "
              f"{marks[-1]['at'] - self.start:.1f} s: evaluated so far "
              f"{ {k: u.evaluated_prompt_tokens for k, u in marks[-1]['ledger'].items()} }",
              file=sys.stderr, flush=True)
        if not self.plan:
            return None
        said = self.plan.pop(0)
        if said == "learn":             # what learn_from_interaction() stores, no rewrite
            self.memory.add(self.lesson, "learned", origin="bench_lesson")
            marks[-1]["learned"] = True
            said = self.plan.pop(0)
        return said

    def first_input(self, _src):
        if self.marks and "first" not in self.marks[-1]:
            self.marks[-1]["first"] = time.perf_counter()


def learned_restart(states: str | None = None, model: str | None = None,
                    api: str = "humanoid") -> dict:
    """Process 1: start-up, the request, a lesson stored, the request again. Process 2 (a new
    client on the same memory and state directory): start-up, the request. ``api``: the
    household juice request, or the tabletop's (25 seeds: the seed block of issue 26)."""
    request, world_name, lesson = RESTART[api]
    import gc
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        states_dir = Path(states or f"{tmp}/states")
        settings = Settings().with_overrides({"memory.path": f"{tmp}/memory"})
        for process in (1, 2):
            t0 = time.perf_counter()
            llm = LocalLlamaClient(model=model, states_dir=states_dir)   # as a new process
            load_s = round(time.perf_counter() - t0, 1)
            plan = [request, "learn", request] if process == 1 else [request]
            ledger, memory = TokenLedger(), open_memory(api, settings.memory)
            user = _RestartUser(process, plan, lesson, ledger, memory)
            marks = user.marks              # per utterance: when, ledger then, first input
            world = make_world(api, world_name)
            session = build_session(api, world, CallbackUser(user.respond), settings, llm=llm,
                                    memory=memory, ledger=ledger,
                                    input_listeners=[user.first_input])
            start = user.start = time.perf_counter()
            session.agent.run()
            first = marks[0]
            evaluated, llm_s = _delta(first["ledger"], {}, "prefill")
            row = {"process": process, "load_s": load_s, "examples": None,
                   "startup_s": round(first["at"] - start, 1), "startup_evaluated": evaluated,
                   "startup_llm_s": llm_s, "requests": []}
            for n, (spoke, done) in enumerate(zip(marks, marks[1:], strict=False), 1):
                prefill = _delta(done["ledger"], spoke["ledger"], "prefill")
                interact = _delta(done["ledger"], spoke["ledger"], "interact")
                row["requests"].append({
                    "request": n, "after_lesson": any(m.get("learned") for m in marks[:n]),
                    "prefill_evaluated": prefill[0], "prefill_s": prefill[1],
                    "interact_evaluated": interact[0],
                    "first_statement_s": round(spoke["first"] - spoke["at"], 1)
                    if "first" in spoke else None,
                    "request_s": round(done["at"] - spoke["at"], 1)})
            row["examples"] = session.memory.count()
            row["state_files"] = len(list(states_dir.glob("*.npz")))
            row["transcript"] = session.console.transcript.render()
            out.append(row)
            del session, user, llm, memory, ledger
            gc.collect()
    return {"benchmark": "learned-restart", "api": api, "request": request, "world": world_name,
            "processes": out}


def attempt(llm, memory, task, factory) -> dict:
    """One instruction, no feedback: success, invented names, tokens, time."""
    world = feasible_world(task, factory)
    try:
        initial = world_positions(world)
        said = [task.instruction]
        settings = Settings().with_overrides({"memory.path": str(memory.config.path),
                                              "memory.order": memory.config.order})

        def respond(purpose, prompt):
            return said.pop(0) if said else None

        session = build_session("tabletop", world, CallbackUser(respond), settings, llm=llm,
                                memory=memory)
        t0 = time.perf_counter()
        session.agent.run()
        wall = time.perf_counter() - t0
        text = session.console.transcript.render()
        scene = set(world.object_names())
        used = {m for src in session.console.transcript.statements()
                for m in NAME.findall(src)}
        usage = session.ledger.total
        return {"template": task.template_id, "instruction": task.instruction,
                "success": bool(check(task, initial, world_positions(world))),
                "invented_names": sorted(used - scene),
                "evaluated": usage.evaluated_prompt_tokens, "generated": usage.completion_tokens,
                "calls": usage.calls, "wall_s": round(wall, 1), "transcript": text}
    finally:
        close = getattr(world, "close", None)
        if close:
            close()


def attempts(modes, orders, templates, rounds: int, seeds: Path | None) -> dict:
    from ..sims.tabletop_bullet import TabletopWorldBullet

    def factory(names, seed):
        return TabletopWorldBullet.from_names(names, seed=seed)

    tasks = [make_task(t, "sa_si", run_seed(0, "sa_si", t, r))
             for r in range(1, rounds + 1) for t in templates]
    out = {}
    for mode in modes:
        llm = LocalLlamaClient(mode=mode, persist_states=False)
        for order in orders:
            rows = []
            with tempfile.TemporaryDirectory() as tmp:
                memory = _memory("tabletop", tmp, seeds, order=order)
                for task in tasks:
                    rows.append(attempt(llm, memory, task, factory))
                    r = rows[-1]
                    print(f"[{mode}/{order}] {r['template']:<34} success={r['success']!s:<5} "
                          f"invented={r['invented_names']} evaluated={r['evaluated']} "
                          f"wall={r['wall_s']} s", file=sys.stderr, flush=True)
            out[f"{mode}/{order}"] = rows
        del llm
    return out


def _summary(rows) -> dict:
    n = len(rows)
    return {"attempts": n, "i": round(sum(r["success"] for r in rows) / n, 3),
            "invented": sum(bool(r["invented_names"]) for r in rows),
            "evaluated": sum(r["evaluated"] for r in rows),
            "wall_s": round(sum(r["wall_s"] for r in rows), 1)}


def _latency_lines(r: dict) -> list[str]:
    return [f"  run {r['run']}: load {r['load_s']} s, start-up prefill "
            f"{r['startup_prefill_s']} s ({r['startup_prefill_evaluated']} tokens evaluated), "
            f"first statement {r['first_statement_s']} s after the utterance, request done in "
            f"{r['request_s']} s ({r['statements']} statements), juice handed over: "
            f"{r['juice_handed_over']}"]


def _restart_lines(r: dict) -> list[str]:
    return [f"  process {r['process']}: load {r['load_s']} s, start-up prefill "
            f"{r['startup_s']} s ({r['startup_evaluated']} tokens evaluated, "
            f"{r['startup_llm_s']} s in the model), {r['examples']} examples in memory at the "
            f"end, {r['state_files']} state files"] + [
        f"    request {q['request']}{' (after the lesson)' if q['after_lesson'] else ''}: "
        f"prefill of the retrieved examples {q['prefill_evaluated']} tokens ({q['prefill_s']} "
        f"s), interaction {q['interact_evaluated']} tokens evaluated, first statement "
        f"{q['first_statement_s']} s after the utterance, done in {q['request_s']} s"
        for q in r["requests"]]


def _show(rows: list[dict], args, title: str, lines, target: str) -> None:
    """Every transcript (``--transcripts``); unless ``--json``: the title, each row's
    ``lines(row)`` and the target."""
    if args.transcripts:
        for r in rows:
            print(r["transcript"], "\n")
    if not args.json:
        print(title)
        for r in rows:
            print("\n".join(lines(r)))
        print(target)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_interaction_node.bench.embedded_model",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    lat = sub.add_parser("latency", help="time to the first statement (household)")
    lat.add_argument("--runs", type=int, default=2, help="1 without saved state, then restarts")
    lat.add_argument("--cache", help="state/model cache directory (default ~/.cache/...)")
    lr = sub.add_parser("learned-restart", help="start-up and request cost after a lesson")
    lr.add_argument("--states", help="saved model states directory (default: a temporary one)")
    lr.add_argument("--model", help="embedded model (default: llm.local_model)")
    lr.add_argument("--api", choices=sorted(RESTART), default="humanoid",
                    help="humanoid: the juice request; tabletop: a blocks request (25 seeds)")
    att = sub.add_parser("attempts", help="first-attempt success per prompt mode")
    att.add_argument("--modes", nargs="+", default=["completion", "chat"],
                     choices=["completion", "chat"])
    att.add_argument("--orders", nargs="+", default=[Order.STABLE_NEAREST], choices=list(Order))
    att.add_argument("--templates", nargs="+",
                     default=[t.id for t in tasks_for_split("sa_si")], choices=sorted(TEMPLATES))
    att.add_argument("--rounds", type=int, default=2, help="scenes per template")
    att.add_argument("--seeds", type=Path, help="seed transcript folder (default config/...)")
    for p in (lat, lr, att):
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.add_argument("--transcripts", action="store_true", help="print every transcript")
        p.add_argument("--save", type=Path, help="also write the whole report, transcripts "
                       "included, to this JSON file")
    args = parser.parse_args(argv)
    if args.what == "latency":
        report = latency(args.runs, args.cache)
        _show(report["runs"], args, f"'{REQUEST}' in drinks_and_cup, embedded model:",
              _latency_lines, "target: first statement < 15 s after the utterance")
    elif args.what == "learned-restart":
        report = learned_restart(args.states, args.model, args.api)
        _show(report["processes"], args,
              f"'{report['request']}' in {report['world']}, embedded model, a lesson stored "
              "in between:",
              _restart_lines,
              "target: after the lesson, only the lesson's tokens are evaluated again")
    else:
        report = {"benchmark": "attempts", "rounds": args.rounds,
                  "configs": attempts(args.modes, args.orders, args.templates, args.rounds,
                                      args.seeds)}
        if args.transcripts:
            for name, rows in report["configs"].items():
                for r in rows:
                    print(f"=== {name} {r['template']}: {r['instruction']}\n{r['transcript']}\n")
        if not args.json:
            print(f"{'config':<24} {'attempts':>8} {'i':>6} {'invented':>9} {'evaluated':>10} "
                  f"{'wall s':>8}")
            for name, rows in report["configs"].items():
                s = _summary(rows)
                print(f"{name:<24} {s['attempts']:>8} {100 * s['i']:>5.1f}% {s['invented']:>9} "
                      f"{s['evaluated']:>10} {s['wall_s']:>8}")
            print("i = share successful before any feedback; invented = attempts that used a "
                  "block/bowl name the scene does not have")
    if args.save:
        args.save.write_text(json.dumps(report, indent=1))
    if args.json:
        for rows in ([report["runs"]] if args.what == "latency" else
                     [report["processes"]] if args.what == "learned-restart" else
                     report["configs"].values()):
            for r in rows:
                r.pop("transcript", None)
        print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

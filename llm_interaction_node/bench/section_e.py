"""Benchmark: section E of the seed with the embedded model (Qwen2.5-Coder-1.5B, the no-key
default): is a lesson learned through the console, and is it used by a NEW process?

Per scenario and learning mode (``auto``, ``improve``, ``final``, ``corrected``, ``raw``), on a
fresh memory:

1. *teach*: a process runs the household session; the simulated user says the seed's
   utterances in order (each time the robot waits for the user), the last one being the
   lesson; the model itself must call ``learn_from_interaction()`` after it. ``learned``:
   the learner stored an example.
2. *check*: a new process with the same memory gets the check request (one utterance, no
   feedback); ``used``: the world shows the lesson applied.
3. *other*: another new process on that memory gets an unrelated request (the sponge, a
   route that is not the safe one); ``over-applied``: the world shows the lesson applied
   where it does not belong (a cup or the juice taken along, the ladder set up, a fast move).

Scenarios: E1-E3 with the seed's own utterances, P1/P2 lessons in our own words.

* E1 both hands: juice and cup were held at the same time and both reached the human.
* E2 the ladder unasked: the ladder was set up and the robot asked nothing.
* E3 faster on the safe route only: the move from the long table to the workbench had
  speed_factor > 1 and no other move did.
* P1 a cup with the juice: juice and a cup (or glass) reached the human.
* P2 = E3's check with other words and another object.

    python -m llm_interaction_node.bench.section_e --modes auto final \\
        [--scenarios E1 E2 E3 P1 P2] [--phrasings FILE [--wording N]] [--out DIR] [--json]

``--phrasings``: the check request is said in a wording pool's words (its ``section_e`` part,
wording ``N``, default the first), not the scenario's own.

Every session is written to ``DIR/<scenario>-<mode>-{teach,check}.json``; a session whose
file exists is not run again (resumable). The table is printed from those files.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .session_process import add_session_option, in_new_process, run_agent, served_session

MODES = ("auto", "improve", "final", "corrected", "raw")
TABLE = "inFrontOf_long-table_0"
BENCH = "inFrontOf_workshop-bench_0"
SESSION_TIMEOUT_S = 1800
MODULE = "llm_interaction_node.bench.section_e"


@dataclass(frozen=True)
class Scenario:
    world: str
    teach: tuple[str, ...]       # the user's utterances, the lesson last
    check: str                   # the request in the new process
    lesson_used: str             # name of the check in USED
    unrelated: str               # a request the lesson does not belong to
    over_applied: str            # name of the check in OVER_APPLIED


SCENARIOS = {
    "E1": Scenario("drinks_and_cup",
                   ("I want to have some juice", "can you also bring me a cup?",
                    "Thanks, but next time, can you do this both at once? You have two hands"),
                   "I want to have some juice", "both_hands",
                   "could you bring me the sponge please", "drinks_taken"),
    "E2": Scenario("ladder_and_shelf",
                   ("I want to clean the top of the fridge", "I will also need the ladder",
                    "thank you, and remember to always bring me the ladder when I need to reach "
                    "a high surface without asking for it"),
                   "I need to clean on top of the dishwasher", "ladder_unasked",
                   "bring me the sponge please", "ladder_moved"),
    "E3": Scenario("sponge_workbench",
                   ("I need the sponge at the workbench",
                    "ok, but that was quite slow. remember that the route from the table to the "
                    "bench is save, you can go faster"),
                   "I need the sponge at the workbench", "faster_on_safe_route_only",
                   "put the screwdriver on the kitchen counter", "any_fast_move"),
    # our own wording
    "P1": Scenario("drinks_and_cup",
                   ("could you get me the mango juice?",
                    "thanks. from now on, whenever I ask for juice, bring me a cup with it - "
                    "keep that in mind"),
                   "I would like some mango juice", "cup_with_juice",
                   "could you bring me the sponge please", "drinks_taken"),
    "P2": Scenario("sponge_workbench",
                   ("please put the screwdriver on the workbench",
                    "fine, but you were slow. the way between the long table and the workbench "
                    "is clear, so next time drive faster there"),
                   "bring the screwdriver to the workbench", "faster_on_safe_route_only",
                   "put the sponge on the kitchen counter", "any_fast_move"),
}


# -- what "used" means, from the world ---------------------------------------------------------

def _both_hands(world, trace) -> bool:
    objects = world.snapshot()["objects"]
    both = any(all(held) for held in trace)
    return both and all(objects[n]["held_by"] == "human" for n in ("mango-juice_0", "coffee-cup_0"))


def _ladder_unasked(world, trace) -> bool:
    ladder = world.snapshot()["objects"]["step-ladder_0"]     # at the wall: no location
    return ladder["location"] is not None and not trace.asks


def _faster_on_safe_route_only(world, trace) -> bool:
    where, fast_safe, fast_elsewhere = None, False, False
    for call in world.log:
        if call.skill != "move_to" or call.result != "success":
            continue
        to = call.args.get("location")
        fast = (call.speed_factor or 1.0) > 1.0
        safe = {where, to} == {TABLE, BENCH}
        fast_safe |= fast and safe
        fast_elsewhere |= fast and not safe
        where = to
    return fast_safe and not fast_elsewhere


def _cup_with_juice(world, trace) -> bool:
    human = world.snapshot()["human_holds"]
    return "mango-juice_0" in human and any(n in human for n in ("coffee-cup_0", "tumbler_0"))


USED: dict[str, Callable] = {"both_hands": _both_hands, "ladder_unasked": _ladder_unasked,
                             "faster_on_safe_route_only": _faster_on_safe_route_only,
                             "cup_with_juice": _cup_with_juice}


# -- what "over-applied" means: the lesson acted on a request it does not belong to ----------

DRINKS = ("mango-juice_0", "coffee-cup_0", "tumbler_0")


def _drinks_taken(world, trace) -> bool:
    """Asked for the sponge: a drink or a cup was grasped."""
    return any(call.skill == "grasp" and call.result == "success"
               and call.args.get("object_name") in DRINKS for call in world.log)


def _ladder_moved(world, trace) -> bool:
    """Asked for the sponge (within reach): the ladder was set up, or a skill was tried on it."""
    return world.snapshot()["objects"]["step-ladder_0"]["location"] is not None or any(
        "step-ladder_0" in map(str, call.args.values()) for call in world.log)


def _any_fast_move(world, trace) -> bool:
    """Asked for a move off the safe route: some move was faster than normal."""
    return any(call.skill == "move_to" and (call.speed_factor or 1.0) > 1.0
               for call in world.log)


OVER_APPLIED: dict[str, Callable] = {"drinks_taken": _drinks_taken, "ladder_moved": _ladder_moved,
                                     "any_fast_move": _any_fast_move}


class _Trace(list):
    """Per statement: which hands held something; ``asks``: calls of ask()."""

    def __init__(self):
        super().__init__()
        self.asks: list[str] = []


# -- one session (run in its own process) ----------------------------------------------------

def run_session(spec: dict, llm=None) -> dict:
    """One teach or check session; ``llm`` None: the embedded model (the bench), else the
    given client (tests script it)."""
    from ..core.llm.local import LocalLlamaClient
    from ..core.user.channel import CallbackUser
    from ..session import build_session, make_world
    from ..settings import Settings

    scenario = SCENARIOS[spec["scenario"]]
    said = list({"teach": scenario.teach, "check": (spec.get("check") or scenario.check,),
                 "other": (scenario.unrelated,)}[spec["phase"]])
    world = make_world("humanoid", scenario.world)
    t0 = time.perf_counter()
    llm = llm if llm is not None else LocalLlamaClient()
    load_s = time.perf_counter() - t0

    def respond(purpose, prompt):
        if purpose == "ask":
            trace.asks.append("ask")
        return said.pop(0) if said else None

    trace = _Trace()
    settings = Settings().with_overrides({"memory.path": spec["memory"],
                                          "learning.mode": spec["mode"]})
    progress = None
    if spec.get("progress"):                  # the transcript as it grows, to follow a run
        progress = open(spec["progress"], "a", encoding="utf-8")

    def listen(entry) -> None:
        trace.append(tuple(v is not None for v in world.hands.values()))
        if progress is not None:
            progress.write(entry.render() + "\n")
            progress.flush()

    session = build_session("humanoid", world, CallbackUser(respond), settings, llm=llm,
                            listeners=[listen])
    error, wall = run_agent(session)
    learner = session.learner
    outcomes = [{"status": str(o.status), "message": o.message} for o in learner.outcomes] \
        if learner else []
    usage = session.ledger.total
    return {"scenario": spec["scenario"], "mode": spec["mode"], "phase": spec["phase"],
            "said": list({"teach": scenario.teach,
                          "check": (spec.get("check") or scenario.check,),
                          "other": (scenario.unrelated,)}[spec["phase"]]),
            "load_s": round(load_s, 1), "wall_s": round(wall, 1),
            "error": error, "learn_calls": outcomes,
            "learned": any(o.stored for o in learner.outcomes) if learner else False,
            "stored": [o.example.transcript for o in learner.outcomes
                       if o.stored and o.example is not None] if learner else [],
            "used": USED[scenario.lesson_used](world, trace),
            "over_applied": OVER_APPLIED[scenario.over_applied](world, trace),
            "unsaid": said, "calls": usage.calls,
            "evaluated": usage.evaluated_prompt_tokens, "generated": usage.completion_tokens,
            "transcript": session.console.transcript.render()}


def _spawn(spec: dict, out: Path) -> dict:
    """The session of ``spec`` in a new process (its record in ``out``; kept: not run again)."""
    return in_new_process(MODULE, spec, out, {"learned": False, "used": False},
                          SESSION_TIMEOUT_S)


def bench(modes, scenarios, out_dir: Path, echo=print, phrasings=None,
          wording: int = 0) -> list[dict]:
    """Teach, check and the unrelated request per mode and scenario; ``phrasings``: a wording
    pool whose ``section_e`` words the check request (its ``wording``-th sentence)."""
    rows = []
    for mode in modes:
        for name in scenarios:
            memory = out_dir / "memory" / f"{name}-{mode}"
            spec = {"scenario": name, "mode": mode, "memory": str(memory)}
            pool = phrasings.section_e.get(name, ()) if phrasings is not None else ()
            if pool:
                spec["check"] = pool[wording % len(pool)]
            base = out_dir / f"{name}-{mode}"
            teach = _spawn({**spec, "phase": "teach", "progress": f"{base}-teach.log"},
                           Path(f"{base}-teach.json"))
            check = _spawn({**spec, "phase": "check", "progress": f"{base}-check.log"},
                           Path(f"{base}-check.json")) if teach.get("learned") else None
            other = _spawn({**spec, "phase": "other", "progress": f"{base}-other.log"},
                           Path(f"{base}-other.json")) if teach.get("learned") else None
            row = {
                "scenario": name,
                "mode": mode,
                "learned": bool(teach.get("learned")),
                "used": bool(check and check.get("used")),
                "over_applied": bool(other and other.get("over_applied")),
                "learn_calls": [c["status"] for c in teach.get("learn_calls", [])],
                "teach_s": teach.get("wall_s"),
                "check_s": check.get("wall_s") if check else None,
                "other_s": other.get("wall_s") if other else None,
                "error": teach.get("error") or (check or {}).get("error")
                or (other or {}).get("error"),
            }
            rows.append(row)
            echo(_line(row))
    return rows


def _line(row: dict) -> str:
    calls = ",".join(row["learn_calls"]) or "never asked"

    def judged(key):
        return "yes" if row[key] else "no" if row["learned"] else "-"

    def secs(key):
        return row[key] if row[key] is not None else "-"
    return (f"| {row['scenario']} | {row['mode']} | {'yes' if row['learned'] else 'no'} | "
            f"{judged('used')} | {judged('over_applied')} | {calls} | {row['teach_s']} | "
            f"{secs('check_s')} | {secs('other_s')} | {(row['error'] or '')[:60]} |")


HEADER = ("| scenario | mode | learned | used (new process) | over-applied (unrelated request) | "
          "learn calls | teach s | check s | other s | error |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    p.add_argument("--scenarios", nargs="+", choices=sorted(SCENARIOS), default=sorted(SCENARIOS))
    p.add_argument("--out", default="results/section_e", help="session records (resumable)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--phrasings", metavar="YAML", help="say the check requests in a wording "
                   "pool's words (its section_e part), e.g. config/phrasings/development.yaml")
    p.add_argument("--wording", type=int, default=0, help="which of the pool's wordings")
    add_session_option(p)
    args = p.parse_args(argv)
    if served_session(args, run_session):
        return 0
    from ..eval.phrasings import load_phrasings
    try:
        phrasings = load_phrasings(args.phrasings) if args.phrasings else None
    except ValueError as exc:
        p.error(str(exc))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(HEADER, flush=True)
    rows = bench(args.modes, args.scenarios, out, echo=lambda s: print(s, flush=True),
                 phrasings=phrasings, wording=args.wording)
    for mode in args.modes:
        mine = [r for r in rows if r["mode"] == mode]
        print(f"{mode}: learned {sum(r['learned'] for r in mine)}/{len(mine)}, used "
              f"{sum(r['used'] for r in mine)}/{len(mine)}, over-applied "
              f"{sum(r['over_applied'] for r in mine)}/{len(mine)}")
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

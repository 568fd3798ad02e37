"""Benchmark: habits nobody listed, taught once (issue 59's open bench).

Each habit of a YAML file (default ``config/lessons/habits.yaml``) is taught once in one
session and asked for in NEW processes on the same memory, as a person restarting the robot:

* *teach*: a request, the robot's attempt, then the habit in the user's words (``learned``:
  a lesson was stored);
* *check*: a request in other words where the habit holds (``used``: its facts hold);
* *other_thing* (a habit whose condition is a kind or any thing): the same with another thing
  (``generalized``);
* *unrelated*: a request the habit must leave as it was (``over_applied``: its facts fail).

Facts are judged on the world (where things are, what was handed over, the skill log: hands,
speeds, where the robot ended) and on what the robot said, by meaning: a ``says`` fact holds
where a sentence the robot said is near it in the embedding the memory uses (cosine >=
:data:`SAYS_AT`), so "Careful, it is hot!" counts for "warn that it is hot". Every record
carries the commit, whether the tree was dirty, the habit file's hash and the command.

    python -m llm_interaction_node.bench.household_habits [--habits FILE] [--only ID ...]
        [--phases teach check other_thing unrelated] [--out docs/eval/habits/<run>]
        [--read-only] [--llm-base-url URL --llm-model NAME]

``--read-only``: no sessions; each habit's teach wording read as an edit by the model in the
habit's world, against the habit's ``edit`` (op, skill, thing, place compared): the reading's
accuracy per field, in seconds instead of hours.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..llm_options import add_llm_options, llm_overrides
from ..provenance import file_hash
from ..provenance import record as provenance
from . import household_situations as H
from .session_process import add_session_option, in_new_process, run_agent, served_session

MODULE = "llm_interaction_node.bench.household_habits"
DEFAULT = Path(__file__).resolve().parents[2] / "config" / "lessons" / "habits.yaml"
PHASES = ("teach", "check", "other_thing", "unrelated")
SESSION_TIMEOUT_S = 1800
YES = "yes, go ahead"            # the user's answer to any question the robot asks
SAYS_AT = 0.5                    # cosine of a said sentence and a `says` fact's meaning


@dataclass(frozen=True)
class Habit:
    """One habit of the file: ``teach`` (the request, the habit in words), ``check``,
    ``other_thing``, ``unrelated`` (each ``{said: ..., expect: {...facts}}``), ``edit`` (the
    line a right reading writes: for ``--read-only``)."""

    id: str
    kind: str
    world: str
    teach: tuple[str, ...]
    check: dict
    unrelated: dict
    other_thing: dict | None = None
    edit: str | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)


def load(path: str | Path = DEFAULT) -> list[Habit]:
    """The habits of ``path``; ValueError naming the habit where one is malformed."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    out = []
    for n, raw in enumerate(data.get("habits") or (), 1):
        try:
            habit = Habit(id=raw["id"], kind=raw["kind"], world=raw["world"],
                          teach=tuple(raw["teach"]), check=raw["check"],
                          unrelated=raw["unrelated"], other_thing=raw.get("other_thing"),
                          edit=raw.get("edit"), tags=tuple(raw.get("tags") or ()))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path}: habit #{n} lacks {exc}") from exc
        if habit.world not in H.WORLDS and not (Path(habit.world).suffix == ".yaml"):
            raise ValueError(f"{path}: habit {habit.id}: unknown world {habit.world!r}")
        for phase in ("check", "unrelated", "other_thing"):
            spec = getattr(habit, phase)
            if spec is not None and not (isinstance(spec, dict) and "said" in spec):
                raise ValueError(f"{path}: habit {habit.id}: {phase} needs 'said'")
        out.append(habit)
    ids = [h.id for h in out]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{path}: habit ids repeat")
    return out


# -- judging -----------------------------------------------------------------------------------

def _similarity(spoken: list[str], meaning: str) -> float:
    if not spoken:
        return 0.0
    from ..core.memory.embedding import embed
    vectors = embed([meaning, *spoken])
    return float(max(vectors[1:] @ vectors[0]))


def judge(expect: dict, world, spoken: list[str], asks: list[int], initial: dict) -> dict:
    """Each fact of ``expect`` -> whether it holds (see the YAML file's header)."""
    log = world.log
    now = H.state(world)
    handed = [c.args.get("object_name") for c in log
              if c.skill == "handover" and c.result == "success"]
    out: dict[str, bool] = {}
    for thing, place in (expect.get("at") or {}).items():
        out[f"at {thing} {place}"] = now.get(thing, (None,))[0] == place
    for thing, place in (expect.get("not_at") or {}).items():
        out[f"not_at {thing} {place}"] = now.get(thing, (None,))[0] != place
    for thing in expect.get("handed") or ():
        out[f"handed {thing}"] = thing in handed
    for thing in expect.get("not_handed") or ():
        out[f"not_handed {thing}"] = thing not in handed
    for thing, hand in (expect.get("hand") or {}).items():
        grasps = [c.args.get("hand") for c in log if c.skill == "grasp"
                  and c.args.get("object_name") == thing and c.result == "success"]
        out[f"hand {thing} {hand}"] = bool(grasps) and grasps[-1] == hand
    if "carrying_speed" in expect:
        speeds = _carrying_speeds(log)
        want = expect["carrying_speed"]
        out[f"carrying_speed {want}"] = bool(speeds) and all(
            (s < 1.0) if want == "slow" else (s > 1.0) if want == "fast" else (s == 1.0)
            for s in speeds)
    if "ends_at" in expect:
        moves = [c.args.get("location") for c in log
                 if c.skill == "move_to" and c.result == "success"]
        out[f"ends_at {expect['ends_at']}"] = bool(moves) and moves[-1] == expect["ends_at"]
    if "asked_before" in expect:
        thing = expect["asked_before"]
        first = next((i for i, c in enumerate(log) if c.skill == "grasp"
                      and c.args.get("object_name") == thing), None)
        out[f"asked_before {thing}"] = first is not None and any(a <= first for a in asks)
    if "asked" in expect:
        out[f"asked {expect['asked']}"] = bool(asks) == bool(expect["asked"])
    for meaning in _listed(expect.get("says")):
        out[f"says {meaning!r}"] = _similarity(spoken, meaning) >= SAYS_AT
    for meaning in _listed(expect.get("not_says")):
        out[f"not_says {meaning!r}"] = _similarity(spoken, meaning) < SAYS_AT
    if "unchanged_except" in expect:
        keep = set(expect["unchanged_except"])
        out["unchanged"] = all(now.get(t) == initial.get(t) for t in initial
                               if t not in keep and not t.startswith(H.FAST))
    return out


def _listed(value) -> list[str]:
    return [value] if isinstance(value, str) else list(value or ())


def _carrying_speeds(log) -> list[float]:
    """The speed factors of the drives made while the robot held something."""
    held: set[str] = set()
    speeds = []
    for call in log:
        if call.result != "success":
            continue
        if call.skill in ("grasp", "receive"):
            held.add(call.args.get("object_name"))
        elif call.skill in ("handover", "place"):
            held.discard(call.args.get("object_name"))
        elif call.skill == "move_to" and held:
            speeds.append(call.speed_factor or 1.0)
    return speeds


# -- one session ---------------------------------------------------------------------------------

def run_session(spec: dict, llm=None) -> dict:
    """One phase of the habit ``spec['habit']`` on the memory ``spec['memory']``."""
    from ..core.llm import make_client
    from ..core.user.channel import CallbackUser
    from ..session import build_session
    from ..settings import Settings

    habit = Habit(**{k: tuple(v) if k in ("teach", "tags") else v
                     for k, v in spec["habit"].items()})
    phase = spec["phase"]
    part = None if phase == "teach" else getattr(habit, phase)
    said = list(habit.teach) if phase == "teach" else [part["said"]]
    utterances = list(said)
    world = H.household_world(habit.world)
    initial = H.state(world)
    settings = Settings().with_overrides({"memory.path": spec["memory"],
                                          **spec.get("settings", {})})
    llm = llm if llm is not None else make_client(settings.llm)
    asks: list[int] = []
    spoken: list[str] = []

    def respond(purpose, prompt):
        if purpose == "ask":
            asks.append(len(world.log))          # skills done before the question
            return YES
        return said.pop(0) if said else None

    session = build_session("humanoid", world, CallbackUser(respond), settings, llm=llm,
                            speak=spoken.append, reader_llm=spec.get("reader_llm"))
    error, wall = run_agent(session)
    outcomes = session.learner.outcomes if session.learner is not None else []
    usage = session.ledger.total
    session.console.close()
    facts = judge(part.get("expect") or {}, world, spoken, asks, initial) if part else {}
    return {"habit": habit.id, "kind": habit.kind, "phase": phase, "world": habit.world,
            "said": utterances, "wall_s": round(wall, 1), "error": error,
            "learn_calls": [str(o.status) for o in outcomes],
            "learned": any(o.stored for o in outcomes),
            "lessons": [o.message for o in outcomes], "spoken": spoken, "facts": facts,
            "holds": bool(facts) and all(facts.values()),
            "calls": usage.calls, "evaluated": usage.evaluated_prompt_tokens,
            "transcript": session.console.transcript.render()}


def _spawn(spec: dict, out: Path) -> dict:
    return in_new_process(MODULE, spec, out, {"learned": False, "holds": False},
                          SESSION_TIMEOUT_S)


def bench(habits: list[Habit], out_dir: Path, echo=print, settings: dict | None = None,
          session=None, phases=PHASES, record: dict | None = None) -> list[dict]:
    """Each habit's phases (see the module docstring); ``session``: how a session runs
    (default: a new process each; tests run it in-process)."""
    rows = []
    run = session or _spawn
    for habit in habits:
        memory = out_dir / "memory" / habit.id
        spec = {"habit": habit.__dict__ | {"teach": list(habit.teach), "tags": list(habit.tags)},
                "memory": str(memory), "settings": settings or {}, **(record or {})}
        base = out_dir / habit.id
        teach = run({**spec, "phase": "teach"}, Path(f"{base}-teach.json"))
        row = {"habit": habit.id, "kind": habit.kind, "world": habit.world,
               "learned": bool(teach.get("learned")), "learn_calls": teach.get("learn_calls"),
               "lessons": teach.get("lessons"), "error": teach.get("error")}
        for phase, key, good in (("check", "used", True), ("other_thing", "generalized", True),
                                 ("unrelated", "over_applied", False)):
            if phase not in phases or getattr(habit, phase) is None or not row["learned"]:
                row[key] = None
                continue
            got = run({**spec, "phase": phase}, Path(f"{base}-{phase}.json"))
            row[key] = bool(got.get("holds")) if good else not got.get("holds")
            row[f"{phase}_facts"] = got.get("facts")
            row["error"] = row["error"] or got.get("error")
        rows.append(row)
        echo(f"{habit.id}: learned={row['learned']} used={row.get('used')} "
             f"generalized={row.get('generalized')} over_applied={row.get('over_applied')}")
    return rows


def summary(rows: list[dict]) -> dict:
    def count(key):
        judged = [r[key] for r in rows if r.get(key) is not None]
        return {"true": sum(judged), "judged": len(judged)}
    return {"benchmark": "household_habits", "habits": len(rows),
            "kinds": len({r["kind"] for r in rows}),
            "learned": sum(r["learned"] for r in rows),
            "used": sum(bool(r.get("used")) for r in rows),
            "used_of_all": f"{sum(bool(r.get('used')) for r in rows)}/{len(rows)}",
            "generalized": count("generalized"), "over_applied": count("over_applied"),
            "rows": rows}


# -- the reading alone ---------------------------------------------------------------------------

def read_only(habits: list[Habit], settings: dict, echo=print) -> list[dict]:
    """Each habit's teach wording read as an edit by the model, in its world, after the
    habit's request was done the usual way (``did``: its request's reading is not needed)."""
    from ..core.llm import make_client
    from ..core.reading.edit_reading import MAX_TOKENS, STOP, EditReader, EditReadingError, parse
    from ..settings import Settings
    from .reading_items import household_vocabulary

    config = Settings().with_overrides(settings)
    llm = make_client(config.llm)

    def ask(prompt, grammar):
        return llm.complete(prompt, stop=STOP, temperature=0.0, max_tokens=MAX_TOKENS,
                            grammar=grammar).text

    reader = EditReader(ask)
    rows = []
    for habit in habits:
        vocabulary = household_vocabulary(H.household_world(habit.world))
        t0 = time.perf_counter()
        got = reader(habit.teach[-1], vocabulary, habit.check.get("did", ""))
        wall = time.perf_counter() - t0
        try:
            want = parse(habit.edit, vocabulary) if habit.edit else None
        except EditReadingError as exc:
            raise ValueError(f"habit {habit.id}: its edit does not parse: {exc}") from exc
        fields = {}
        if want is not None:
            fields = {"op": got is not None and got.op == want.op,
                      "skill": got is not None and got.when.skill == want.when.skill,
                      "thing": got is not None and got.when.thing == want.when.thing,
                      "place": got is not None and got.when.place == want.when.place}
        row = {"habit": habit.id, "said": habit.teach[-1], "want": habit.edit,
               "got": got.in_words() if got else None,
               "got_json": got.to_json() if got else None, "failure": reader.last_failure,
               "fields": fields, "right": bool(fields) and all(fields.values()),
               "wall_s": round(wall, 2)}
        rows.append(row)
        echo(f"{habit.id}: {'right' if row['right'] else 'WRONG'} "
             f"({', '.join(k for k, v in fields.items() if not v) or '-'}) {wall:.1f}s")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {MODULE}",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--habits", default=str(DEFAULT), help="the habit file (YAML)")
    parser.add_argument("--only", nargs="+", metavar="ID", help="these habits only")
    parser.add_argument("--phases", nargs="+", choices=PHASES, default=list(PHASES))
    parser.add_argument("--out", default="docs/eval/habits/run")
    parser.add_argument("--read-only", action="store_true",
                        help="only read each habit's wording as an edit (no sessions)")
    parser.add_argument("--list", action="store_true", help="print the habits and stop")
    add_llm_options(parser)
    add_session_option(parser)
    args = parser.parse_args(argv)
    if served_session(args, run_session):
        return 0
    try:
        habits = load(args.habits)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    if args.only:
        unknown = set(args.only) - {h.id for h in habits}
        if unknown:
            parser.error(f"unknown habit(s): {', '.join(sorted(unknown))}")
        habits = [h for h in habits if h.id in args.only]
    if args.list:
        for habit in habits:
            print(f"{habit.id:28} {habit.kind:28} {habit.world:18} {habit.teach[-1]}")
        return 0
    settings = {"agent.function_generation": False, **llm_overrides(args)}
    record = {**provenance(["python", "-m", MODULE, *(argv or sys.argv[1:])]),
              "habits_file": str(args.habits), "habits_hash": file_hash(args.habits)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    echo = lambda s: print(s, file=sys.stderr, flush=True)   # noqa: E731
    if args.read_only:
        rows = read_only(habits, settings, echo)
        right = sum(r["right"] for r in rows if r["fields"])
        judged = sum(bool(r["fields"]) for r in rows)
        per_field = {f: sum(r["fields"].get(f, False) for r in rows) for f in
                     ("op", "skill", "thing", "place")}
        result = {"benchmark": "habit_reading", **record, "right": right, "judged": judged,
                  "per_field": per_field, "rows": rows}
        (out / "reading.json").write_text(json.dumps(result, indent=1) + "\n")
        print(f"edits read right {right}/{judged}; per field {per_field}")
        return 0
    print(f"{len(habits)} habits of {len({h.kind for h in habits})} kinds", file=sys.stderr)
    rows = bench(habits, out, echo=echo, settings=settings, phases=args.phases, record=record)
    result = {**summary(rows), **record, "settings": settings}
    (out / "summary.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"learned {result['learned']}/{result['habits']}, used {result['used_of_all']}, "
          f"generalized {result['generalized']['true']}/{result['generalized']['judged']}, "
          f"over-applied {result['over_applied']['true']}/{result['over_applied']['judged']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: the household's teach-once pairs. Is a lesson taught in one wording used by a NEW
process when the request comes in another wording, and left alone where it does not belong?

A pair (:class:`TeachOnce`, drawn by :func:`teach_once_pairs` from the household worlds, worded
from a wording pool's ``household`` part) has four kinds of lesson:

* ``also_bring``: "whenever you bring me the juice, also bring me the cup" -> asked for the juice
  in other words, the user gets the juice and the cup; asked for something else, not the cup;
* ``put_on``: "from now on, put the sponge on the dishwasher" -> "tidy up the sponge" puts it
  there; asked for something else, the sponge stays where it is;
* ``faster``: "the route from the long table to the workbench is safe, you can go faster there"
  -> the drive on that route is faster than normal and no other is; on another route, none is;
* ``ask_first``: "always ask me before you take the juice" -> the robot asks before it grasps
  the juice; asked for something else, it asks nothing;
* ``hand``: "use your left hand for the juice from now on" -> asked for the juice in other
  words, the robot grasps it with the left; asked for something else, it grasps that with the
  right, the hand it takes when nobody says (:data:`TAUGHT_HAND` is the other one).

Per pair, on a fresh memory, three sessions, each in its own process (as a person restarting
the robot): *teach* (the request in one wording, the model's attempt, the lesson in the pool's
words; ``learned``: the learner stored a lesson), *check* (the request in another wording:
``used``, judged by the world) and *other* (an unrelated request: ``over_applied``). The check
and the other session run only where a lesson was stored. How a lesson is stored and reused is
the lesson mechanism's (issue 43); this harness only says whether it worked.

    python -m llm_interaction_node.bench.household_lessons [--pairs 2] [--kinds ...]
        [--phrasings config/phrasings/development.yaml] [--out docs/eval/household/teach_once]
        [--set learning.mode=final] [--llm-base-url URL --llm-model NAME]

Without an ``--llm-*`` option each session runs the embedded model (one embedded-model
process at a time on a small machine); ``--set KEY=VALUE`` (repeatable) overrides a setting
of every session (dotted, as in ``config/agent.yaml``).

Each session is written to ``OUT/<pair>-{teach,check,other}.json`` (resumable), the totals to
``OUT/summary.json``.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import provenance
from ..eval.harness import run_seed
from ..llm_options import add_llm_options, llm_overrides
from . import household_situations as H
from .session_process import add_session_option, in_new_process, run_agent, served_session

KINDS = ("also_bring", "put_on", "faster", "ask_first", "hand")
TAUGHT_HAND = "left"              # the humanoid API takes the right where no hand is said
MODULE = "llm_interaction_node.bench.household_lessons"
SESSION_TIMEOUT_S = 1800
YES = "yes, go ahead"             # the user's answer to any question the robot asks
# also_bring: what comes along with an object of a sort (household_situations.SORTS)
COMPANIONS = {"drink": "vessel", "vessel": "drink", "cleaning": "cleaning", "fruit": "fruit",
              "living": "living"}
# built-in wordings where a pool has none (the development pool has all of these)
REQUESTS = {"bring_one": ("bring me the {a}, please", "could I have the {a}?"),
            "take_to": ("take the {a} to {place}", "could you carry the {a} over to {place}?"),
            "put_away": ("put the {a} away", "could you tidy up the {a}?")}
LESSONS = {"also_bring": ("whenever you bring me the {a}, also bring me the {b}. remember that",),
           "put_on": ("from now on, put the {a} on {place}",),
           "faster": ("the route from {from} to {to} is safe, you can go faster there from now "
                      "on",),
           "ask_first": ("always ask me before you take the {a}",),
           "hand": ("use your {hand} hand for the {a} from now on",)}


@dataclass(frozen=True)
class TeachOnce:
    """One teach-once pair (see the module docstring). ``a``: the object the lesson is about;
    ``b``: what comes with it (``also_bring``); ``place``: the surface it goes on (``put_on``)
    or the route's end (``faster``: a navigation location), ``start`` the route's start;
    ``other``: the unrelated request's object."""

    id: str
    kind: str
    seed: int
    world: str
    teach: tuple[str, ...]
    check: str
    unrelated: str
    a: str
    other: str
    b: str | None = None
    place: str | None = None
    start: str | None = None


def _pool(phrasings, part: str, kind: str, built_in: tuple[str, ...]) -> tuple[str, ...]:
    pool = phrasings.household_pool(part, kind) if phrasings is not None else ()
    return tuple(pool) or built_in


def _two(rng: random.Random, wordings: tuple[str, ...]) -> tuple[str, str]:
    """Two different wordings (the same twice only where the pool has one)."""
    if len(wordings) < 2:
        return wordings[0], wordings[0]
    first, second = rng.sample(list(wordings), 2)
    return first, second


def plan(kind: str, seed: int, worlds=H.WORLDS, phrasings=None) -> TeachOnce:
    """The pair of lesson ``kind`` drawn with ``seed``."""
    if kind not in KINDS:
        raise ValueError(f"unknown lesson {kind!r}; use one of {', '.join(KINDS)}")
    rng = random.Random(seed)
    usable = [w for w in worlds if len(H._scene(H.household_world(w))[0]) >= 3
              and len(H._scene(H.household_world(w))[1]) >= 2]
    name = rng.choice(usable)
    world = H.household_world(name)
    objects, surfaces = H._scene(world)
    words = H._words(world)
    initial = H.state(world)
    a, b, other = rng.sample(objects, 3)
    if kind == "also_bring":          # what comes along is of the companion sort (a cup: a drink)
        sort = {o: H.SORTS.get(o.rsplit("_", 1)[0]) for o in objects}
        pairs = [(x, y) for x in objects for y in objects
                 if x != y and sort[x] and sort[y] == COMPANIONS.get(sort[x])]
        if pairs:
            a, b = rng.choice(pairs)
            other = rng.choice([o for o in objects if o not in (a, b)])
    home = initial[a][0][len("on_"):]
    elsewhere = [s for s in surfaces if s != home]
    fields = {"a": H.said(a), "b": H.said(b)}
    place = start = None
    lesson_wording = rng.choice(_pool(phrasings, "lessons", kind, LESSONS[kind]))
    if kind == "hand":       # a wording of the pool that names the hand ("carry both": not this)
        wordings = tuple(w for w in _pool(phrasings, "lessons", kind, LESSONS[kind])
                         if "{hand}" in w) or LESSONS[kind]
        lesson_wording = rng.choice(wordings)
        fields["hand"] = TAUGHT_HAND
    if kind in ("also_bring", "ask_first", "hand"):
        asked, again = _two(rng, _pool(phrasings, "requests", "bring_one", REQUESTS["bring_one"]))
        teach, check = asked.format(a=fields["a"]), again.format(a=fields["a"])
        unrelated = rng.choice(_pool(phrasings, "requests", "bring_one",
                                     REQUESTS["bring_one"])).format(a=H.said(other))
    elif kind == "put_on":
        place = H.surface_name(rng.choice(elsewhere))
        fields["place"] = words.place(place)[3:]
        asked, again = _two(rng, _pool(phrasings, "requests", "put_away", REQUESTS["put_away"]))
        teach, check = asked.format(a=fields["a"]), again.format(a=fields["a"])
        unrelated = rng.choice(_pool(phrasings, "requests", "bring_one",
                                     REQUESTS["bring_one"])).format(a=H.said(other))
    else:                                                   # faster
        target = rng.choice(elsewhere)
        place, start = H.navigation_location(target), H.navigation_location(home)
        fields.update({"place": words.furniture(target), "from": words.furniture(home),
                       "to": words.furniture(target)})
        asked, again = _two(rng, _pool(phrasings, "requests", "take_to", REQUESTS["take_to"]))
        teach = asked.format(a=fields["a"], place=fields["place"])
        check = again.format(a=fields["a"], place=fields["place"])
        other_home = initial[other][0][len("on_"):]
        away = [s for s in surfaces if s not in (other_home, target)] or \
            [s for s in surfaces if s != other_home]
        unrelated = rng.choice(_pool(phrasings, "requests", "take_to", REQUESTS["take_to"])) \
            .format(a=H.said(other), place=words.furniture(rng.choice(away)))
    lesson = lesson_wording.format(**{k: v for k, v in fields.items()
                                      if "{" + k + "}" in lesson_wording})
    if kind == "faster" and "{from}" not in lesson_wording:
        start = None                          # "faster to the workbench": from anywhere
    ident = "-".join([kind, str(seed), name, a.rsplit("_", 1)[0]])
    return TeachOnce(ident, kind, seed, name, (teach, lesson), check, unrelated, a, other,
                     b if kind == "also_bring" else None, place, start)


def teach_once_pairs(per_kind: int = 2, seed_base: int = 0, kinds=KINDS, worlds=H.WORLDS,
                     phrasings=None) -> list[TeachOnce]:
    """``per_kind`` distinct pairs of each lesson kind (10 by default)."""
    out: list[TeachOnce] = []
    for kind in kinds:
        found, r = 0, 0
        while found < per_kind and r < per_kind + 20:
            r += 1
            pair = plan(kind, run_seed(seed_base, "household_lessons", kind, r), worlds,
                        phrasings)
            if any((p.world, p.a, p.kind) == (pair.world, pair.a, pair.kind) for p in out):
                continue
            out.append(pair)
            found += 1
    return out


# -- what the world shows ---------------------------------------------------------------------

def _fast_moves(world) -> list[tuple[str | None, str | None]]:
    """(from, to) of every drive that worked faster than normal (navigation locations; None:
    a pose of its own)."""
    where, out = None, []
    for call in world.log:
        if call.skill != "move_to" or call.result != "success":
            continue
        to = call.args.get("location")
        if (call.speed_factor or 1.0) > 1.0:
            out.append((where, to))
        where = to
    return out


def _grasp_hands(world, name: str) -> list[str]:
    """The hands of the grasps (and takes from the human) of ``name`` that worked."""
    return [call.args.get("hand") for call in world.log
            if call.skill in ("grasp", "receive") and call.result == "success"
            and call.args.get("object_name") == name]


def used(pair: TeachOnce, world, trace: dict) -> bool:
    """The lesson shows in the world of the check session."""
    objects = world.snapshot()["objects"]
    if pair.kind == "also_bring":
        return all(objects[n]["held_by"] == H.HUMAN for n in (pair.a, pair.b))
    if pair.kind == "put_on":
        return objects[pair.a]["location"] == pair.place and objects[pair.a]["held_by"] is None
    if pair.kind == "faster":     # every fast drive on the route (to its end, from its start)
        fast = _fast_moves(world)
        return bool(fast) and all(t == pair.place and pair.start in (None, f) for f, t in fast)
    if pair.kind == "hand":       # every grasp of the thing with the taught hand
        hands = _grasp_hands(world, pair.a)
        return bool(hands) and set(hands) == {TAUGHT_HAND}
    grasped = next((i for i, call in enumerate(world.log) if call.skill == "grasp"
                    and call.result == "success" and call.args.get("object_name") == pair.a),
                   None)
    return grasped is not None and any(at <= grasped for at in trace["asks"])


def over_applied(pair: TeachOnce, world, trace: dict, initial: dict) -> bool:
    """The lesson shows in the world of the unrelated request's session."""
    objects = world.snapshot()["objects"]
    if pair.kind == "also_bring":
        return objects[pair.b]["held_by"] == H.HUMAN
    if pair.kind == "put_on":
        return (objects[pair.a]["location"], objects[pair.a]["held_by"]) != initial[pair.a]
    if pair.kind == "faster":
        return bool(_fast_moves(world))
    if pair.kind == "hand":
        return TAUGHT_HAND in _grasp_hands(world, pair.other)
    return bool(trace["asks"])


# -- one session (its own process) ------------------------------------------------------------

def run_session(spec: dict, llm=None) -> dict:
    """One teach, check or other session of the pair ``spec['pair']`` (a dict of
    :class:`TeachOnce`) on the memory ``spec['memory']`` with the settings overrides
    ``spec['settings']``; ``llm`` None: the client those settings name (no endpoint: the
    embedded model), else the given client (tests script it)."""
    from ..core.llm import make_client
    from ..core.user.channel import CallbackUser
    from ..session import build_session
    from ..settings import Settings

    pair = TeachOnce(**{k: tuple(v) if k == "teach" else v for k, v in spec["pair"].items()})
    phase = spec["phase"]
    said = list({"teach": pair.teach, "check": (pair.check,),
                 "other": (pair.unrelated,)}[phase])
    world = H.household_world(pair.world)
    initial = H.state(world)
    settings = Settings().with_overrides({"memory.path": spec["memory"],
                                          **spec.get("settings", {})})
    t0 = time.perf_counter()
    if llm is None:
        llm = make_client(settings.llm)
    load_s = time.perf_counter() - t0
    trace: dict = {"asks": []}

    def respond(purpose, prompt):
        if purpose == "ask":
            trace["asks"].append(len(world.log))         # skills done before the question
            return YES
        return said.pop(0) if said else None

    session = build_session("humanoid", world, CallbackUser(respond), settings, llm=llm,
                            reader_llm=spec.get("reader_llm"))
    error, wall = run_agent(session)
    learner = session.learner
    outcomes = learner.outcomes if learner is not None else []
    usage = session.ledger.total
    session.console.close()
    return {"pair": pair.id, "kind": pair.kind, "phase": phase, "world": pair.world,
            "said": list({"teach": pair.teach, "check": (pair.check,),
                          "other": (pair.unrelated,)}[phase]),
            "load_s": round(load_s, 1), "wall_s": round(wall, 1),
            "error": error, "learn_calls": [str(o.status) for o in outcomes],
            "learned": any(o.stored for o in outcomes),
            "stored": [o.example.transcript for o in outcomes
                       if o.stored and o.example is not None],
            "used": used(pair, world, trace),
            "over_applied": over_applied(pair, world, trace, initial),
            "asks": len(trace["asks"]), "unsaid": said, "calls": usage.calls,
            "evaluated": usage.evaluated_prompt_tokens, "generated": usage.completion_tokens,
            "transcript": session.console.transcript.render()}


def _spawn(spec: dict, out: Path) -> dict:
    """The session of ``spec`` in a new process (its record in ``out``; kept: not run again)."""
    return in_new_process(MODULE, spec, out,
                          {"learned": False, "used": False, "over_applied": False},
                          SESSION_TIMEOUT_S)


def bench(pairs: list[TeachOnce], out_dir: Path, echo=print, settings: dict | None = None,
          session=None) -> list[dict]:
    """Teach, check and the unrelated request per pair; ``session``: how a session runs
    (default: in a new process, :func:`_spawn`; tests run it in-process)."""
    rows = []
    run = session or _spawn
    for pair in pairs:
        memory = out_dir / "memory" / pair.id
        spec = {"pair": asdict(pair), "memory": str(memory), "settings": settings or {}}
        base = out_dir / pair.id
        teach = run({**spec, "phase": "teach"}, Path(f"{base}-teach.json"))
        learned = bool(teach.get("learned"))
        check = run({**spec, "phase": "check"}, Path(f"{base}-check.json")) if learned else None
        other = run({**spec, "phase": "other"}, Path(f"{base}-other.json")) if learned else None
        row = {"pair": pair.id, "kind": pair.kind, "world": pair.world,
               "teach": list(pair.teach), "check": pair.check, "unrelated": pair.unrelated,
               "learned": learned, "used": bool(check and check.get("used")),
               "over_applied": bool(other and other.get("over_applied")),
               "learn_calls": teach.get("learn_calls", []),
               "error": teach.get("error") or (check or {}).get("error")
               or (other or {}).get("error")}
        rows.append(row)
        echo(f"{pair.id}: learned={row['learned']} used={row['used']} "
             f"over_applied={row['over_applied']} {row['learn_calls']}")
    return rows


def summary(rows: list[dict], phrasings_label: str) -> dict:
    return {"benchmark": "household_teach_once", "phrasings": phrasings_label,
            "pairs": len(rows), "learned": sum(r["learned"] for r in rows),
            "used": sum(r["used"] for r in rows),
            "over_applied": sum(r["over_applied"] for r in rows),
            "per_kind": {k: [sum(r["kind"] == k for r in rows),
                             sum(r["kind"] == k and r["used"] for r in rows)]
                         for k in dict.fromkeys(r["kind"] for r in rows)},
            "rows": rows}


def setting_overrides(pairs: list[str]) -> dict:
    """``KEY=VALUE`` texts -> dotted settings overrides (the value read as YAML)."""
    import yaml
    out = {}
    for text in pairs:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {text!r}: expected KEY=VALUE, e.g. learning.mode=final")
        out[key.strip()] = yaml.safe_load(value)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {MODULE}",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=2, help="pairs per lesson kind (2: 10)")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--seed-base", type=int, default=0)
    parser.add_argument("--phrasings", metavar="YAML", help="the wording pool (its household "
                        "part), e.g. config/phrasings/development.yaml; default built-in")
    parser.add_argument("--out", default="docs/eval/household/teach_once")
    parser.add_argument("--list", action="store_true", help="print the pairs and stop")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting of every session, e.g. learning.mode=final")
    add_llm_options(parser)
    add_session_option(parser)
    args = parser.parse_args(argv)
    if served_session(args, run_session):
        return 0
    from ..eval.phrasings import load_phrasings
    from ..settings import Settings
    try:
        phrasings = load_phrasings(args.phrasings)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        settings = {**setting_overrides(args.set), **llm_overrides(args)}
        Settings().with_overrides(settings)             # an unknown key or a bad value: now
    except ValueError as exc:
        parser.error(str(exc))
    pairs = teach_once_pairs(args.pairs, args.seed_base, args.kinds, phrasings=phrasings)
    if args.list:
        for pair in pairs:
            print(json.dumps(asdict(pair)))
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"{len(pairs)} pairs, wordings {phrasings.label}", file=sys.stderr)
    rows = bench(pairs, out, echo=lambda s: print(s, file=sys.stderr, flush=True),
                 settings=settings)
    result = {**summary(rows, phrasings.label), "settings": settings,
              "seed_base": args.seed_base, **provenance.record()}
    (out / "summary.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"learned {result['learned']}/{result['pairs']}, used {result['used']}/"
          f"{result['pairs']}, over-applied {result['over_applied']}/{result['pairs']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

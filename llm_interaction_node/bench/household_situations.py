"""The household situations of the correction bench: a request, a wrong first attempt, the
user's feedback, judged by the household world's state.

A situation is generated, not recorded: one of the household worlds (``config/worlds``: the
three of the paper's scenarios and ``living_room``, loaded without their injected failures: the
bench asks whether a correction is understood, not whether a handover fails), objects and
surfaces drawn from its scene, a request in the user's words, the goal it sets on the world's
state, and one of six mistakes (``kind``), written as the model writes its household attempts
(the seed transcripts: look the objects up, say what it will do, then the skill calls):

* ``forgotten``: "bring me the cup and the milk" -> only the cup is brought;
* ``wrong_object``: "bring me the milk" -> the juice is brought;
* ``wrong_place``: "put the sponge on the dining table" -> it goes on another surface;
* ``handed_over``: "put the sponge on the dining table" -> it is handed to the user;
* ``wrong_hand``: "pick up the juice with your left hand" -> the right hand takes it;
* ``too_slow``: "take the sponge to the workbench" -> the robot takes it and dawdles off at a
  third of its speed (and hands back on the way): the user asks it to hurry.

A goal is a tuple of facts ``(object, where)``: ``where`` is ``'human'`` (handed over: the human
holds it), a surface ``'on_<furniture>'`` (the object stands on it), ``'left'`` / ``'right'``
(the robot holds it in that hand), or, for the fact ``('fast to <location>', <location>)``, a
navigation location the robot drove to faster than normal (``speed_factor`` > 1; the world's
skill log). :func:`unmet` judges them on :func:`state`, the world's own record of where each
object is, who holds it and how it drove. The user's answer (:func:`feedback`) says what is
wrong as the user sees it, read from the state the attempt left: "you forgot the milk", "that
is the juice, I asked for the milk", "not on the kitchen counter, on the dining table", "I
didn't want it in my hand", "wrong hand", "you are too slow"; never how to do it.

Teach-once pairs (:class:`TeachOnce`, :func:`teach_once_pairs`) are the other half of the
household bench (run by :mod:`.household_lessons`): a request and a lesson in one wording, the
request again in another wording in a new process (is the lesson used?) and an unrelated
request (is it applied where it does not belong?), judged by the world as well.
"""
from __future__ import annotations

import random
import string
from dataclasses import dataclass

import yaml

from ..core.apis.humanoid import (
    GRASP,
    HANDOVER_LOCATION,
    HANDS,
    HUMAN,
    PLACE_ON_TOP,
    HumanoidApi,
    navigation_location,
    surface_name,
)
from ..core.apis.humanoid_words import Words
from ..core.apis.registry import QUERY_ATTR
from ..eval.harness import run_seed
from ..paths import world_path
from ..sims.household import HouseholdWorld

WORLDS = ("drinks_and_cup", "ladder_and_shelf", "sponge_workbench", "living_room")
# each mistake and the request it gets wrong (the record's ``template``)
KINDS = {"forgotten": "bring_two_objects", "wrong_object": "bring_object",
         "wrong_place": "put_object_on", "handed_over": "put_object_on",
         "wrong_hand": "hold_object", "too_slow": "take_object_to"}
FAST = "fast to "            # a fact's key: the robot drove to <location> faster than normal
SLOW = 0.3                   # the dawdling attempt's speed_factor (too_slow)
FASTER = 2.0                 # the scripted solution's
# a move of an attempt, as put_first_on_second is one on the tabletop: a statement calling a
# skill that acts on an object, i.e. an API function that is no query (registry.query), but
# move_to: the way to the object is part of the tabletop's one move too, and a right next turn
# may well start at the counter the rejected one went to
MOVES = tuple(n for n in HumanoidApi.API if n != "move_to"
              and not getattr(getattr(HumanoidApi, n), QUERY_ATTR, False))
# what a user calls an object of a class (else the class name in words)
SAID = {"milk-carton": "milk", "mango-juice": "juice", "coffee-cup": "cup", "tumbler": "glass",
        "kitchen-sponge": "sponge", "muesli-box": "cereals", "mineral-water": "water",
        "cleaning-spray": "cleaning spray", "empty-mug": "mug", "water-bottle": "water bottle",
        "remote-control": "remote", "reading-glasses": "glasses"}
# what can be taken for what: the wrong object is one of the same sort (a drink for a drink)
SORTS = {"milk-carton": "drink", "mango-juice": "drink", "mineral-water": "drink",
         "orange-juice": "drink", "water-bottle": "drink",
         "coffee-cup": "vessel", "tumbler": "vessel", "empty-mug": "vessel", "tea-cup": "vessel",
         "kitchen-sponge": "cleaning", "cleaning-spray": "cleaning",
         "apple": "fruit", "banana": "fruit",
         "remote-control": "living", "book": "living", "reading-glasses": "living"}
REQUESTS = {
    "forgotten": ("could you bring me the {a} and the {b} please", "bring me the {a} and the {b}",
                  "I would like the {a} and the {b}, can you bring them to me"),
    "wrong_object": ("bring me the {a}, please", "could you get me the {a}",
                     "I need the {a}, can you bring it to me"),
    "wrong_place": ("put the {a} on {place}", "please move the {a} to {place}",
                    "could you leave the {a} on {place}"),
    "handed_over": ("put the {a} on {place}", "please move the {a} to {place}",
                    "could you leave the {a} on {place}"),
    "wrong_hand": ("pick up the {a} with your {hand} hand", "hold the {a} in your {hand} hand",
                   "take the {a} in your {hand} hand"),
    "too_slow": ("take the {a} to {place}", "bring the {a} over to {place}",
                 "the {a} has to go to {place}"),
}
FORGOTTEN = ("you forgot the {a}", "the {a} is still missing", "where is the {a}? You forgot it")
OTHER_OBJECT = ("that is the {b}, I asked for the {a}", "I wanted the {a}, not the {b}",
                "this is the {b}; I asked you for the {a}")
OTHER_PLACE = ("not on {wrong}, on {place}", "that is {wrong}, I said {place}",
               "the {a} should be on {place}, not on {wrong}")
HANDED_OVER = ("I did not want the {a} in my hand, it goes on {place}",
               "not to me, put the {a} on {place}", "I said on {place}, not to me")
WRONG_HAND = ("that is the wrong hand, I said your {hand} hand", "use your {hand} hand, please",
              "the other hand, the {hand} one")
TOO_SLOW = ("you are far too slow, hurry up", "faster please, the {a} has to get to {place}",
            "this is taking forever, drive faster")
NOT_THERE = ("the {a} is not on {place}", "I wanted the {a} on {place}")

Fact = tuple[str, str]
State = dict[str, tuple[str | None, str | None]]     # object -> (location, held_by)


@dataclass
class HouseholdSituation:
    """One wrong first attempt in one household world (see the module docstring)."""

    id: str
    template: str
    kind: str
    seed: int
    world: str
    instruction: str
    goal: tuple[Fact, ...]
    mistake: tuple[Fact, ...]            # what the attempt does instead
    attempt: list[str]                   # console inputs, after the instruction

    def build(self) -> HouseholdWorld:
        return household_world(self.world)


def household_world(name: str) -> HouseholdWorld:
    """The world file ``name`` as ``make run`` loads it, without its injected failures."""
    path = world_path(name)
    config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    config.pop("failures", None)
    config.pop("random_failures", None)
    return HouseholdWorld.from_dict(config, source=str(path))


def state(world: HouseholdWorld) -> State:
    """Where each object is and who holds it, as the world records it; and, as the entries
    ``'fast to <location>'``, each navigation location the robot drove to faster than normal
    (its skill log: a move that worked with ``speed_factor`` > 1)."""
    out: State = {n: (o["location"], o["held_by"])
                  for n, o in world.snapshot()["objects"].items()}
    for call in world.log:
        to = call.args.get("location") if call.skill == "move_to" else None
        if to and call.result == "success" and (call.speed_factor or 1.0) > 1.0:
            out[FAST + to] = (to, None)
    return out


def holds(fact: Fact, now: State) -> bool:
    obj, where = fact
    location, held_by = now.get(obj, (None, None))
    if where == HUMAN or where in HANDS:
        return held_by == where
    return held_by is None and location == where


def unmet(goal, now: State) -> list[Fact]:
    """The facts of ``goal`` that do not hold in ``now``."""
    return [f for f in goal if not holds(f, now)]


def after(moves, now: State) -> State:
    """The state ``moves`` leave when every skill works (the planned end of an attempt)."""
    out = dict(now)
    for obj, where in moves:
        out[obj] = (None, where) if where == HUMAN or where in HANDS else (where, None)
    return out


def said(name: str) -> str:
    """``'milk-carton_0'`` -> ``'milk'``: the user's word for an object."""
    klass = name.rsplit("_", 1)[0]
    return SAID.get(klass, klass.replace("-", " "))


def _go(location: str) -> str:
    return f"move_to(get_location_coordinates({location!r}))"


def steps(moves, now: State, home: State | None = None, speed: float | None = None) -> list[str]:
    """The skill calls that take each object where ``moves`` say, from the state ``now``, as
    the seed transcripts write them: to the human fetched, carried and handed over; to a
    surface with ``bring_object_to`` (``speed``: its ``speed_factor``); into a hand grasped
    with it (an object in the other hand put back on its surface in ``home`` first). A
    ``'fast to'`` fact is no move: the speed of the moves makes it."""
    home = home or now
    out = []
    for obj, where in moves:
        if obj.startswith(FAST):
            continue
        location, held_by = now[obj]
        if where in HANDS:
            if held_by in HANDS:
                out.append(f"place_object({obj!r}, {home[obj][0]!r})")
            else:
                out.append(_go(navigation_location(location[len("on_"):])))
            out.append(f"grasp({obj!r}, {where!r})")
            continue
        if where != HUMAN:
            fast = f", speed_factor={speed}" if speed else ""
            out.append(f"bring_object_to({obj!r}, {where!r}{fast})")
            continue
        if held_by == HUMAN:
            out += [_go(HANDOVER_LOCATION), f"receive_object_from_human({obj!r})"]
        if held_by not in HANDS:
            out += [_go(navigation_location(location[len("on_"):])), f"grasp({obj!r})"]
        out += [_go(HANDOVER_LOCATION), f"handover_object_to_human({obj!r})"]
    return out


def solution(situation: HouseholdSituation, initial: State) -> list[str]:
    """The skill calls that put the planned end of the attempt right."""
    left = after(situation.mistake, initial)
    fast = any(obj.startswith(FAST) for obj, _ in situation.goal)
    return steps(unmet(situation.goal, left), left, initial, FASTER if fast else None)


def _scene(world: HouseholdWorld) -> tuple[list[str], list[str]]:
    """The graspable objects standing on a surface the robot reaches, and those surfaces."""
    surfaces = [f.name for f in world.furniture.values()
                if PLACE_ON_TOP in f.affordances and f.height <= world.max_reach_height
                and navigation_location(f.name) in world.named_locations()]
    objects = [o.name for o in world.objects.values()
               if GRASP in o.affordances and o.held_by is None and "ladder" not in o.object_class
               and o.location in {surface_name(s) for s in surfaces}]
    return objects, surfaces


def _mixups(objects: list[str]) -> list[tuple[str, str]]:
    """(meant, taken instead) pairs of objects of one sort."""
    sort = {o: SORTS.get(o.rsplit("_", 1)[0]) for o in objects}
    return [(a, b) for a in objects for b in objects if a != b and sort[a] and sort[a] == sort[b]]


def _usable(kind: str, world: HouseholdWorld) -> bool:
    objects, surfaces = _scene(world)
    if kind == "wrong_place":
        return len(surfaces) >= 3
    if kind in ("handed_over", "too_slow"):
        return len(surfaces) >= 2 and bool(objects)
    if kind == "wrong_hand":
        return bool(objects)
    return bool(_mixups(objects)) if kind == "wrong_object" else len(objects) >= 2


def _words(world: HouseholdWorld) -> Words:
    return Words(world.scene(), world.named_locations(), None)


# a mistake's request and the user's answer in a wording pool (eval/phrasings.py: household)
POOL_KEYS = {"forgotten": "bring_two", "wrong_object": "bring_one", "wrong_place": "put_on",
             "handed_over": "put_on", "wrong_hand": "hold_in", "too_slow": "take_to"}


def plan(kind: str, seed: int, worlds=WORLDS, phrasings=None) -> HouseholdSituation:
    """The situation of mistake ``kind`` drawn with ``seed``; the request worded from
    ``phrasings`` (a wording pool) where it has one for the kind."""
    rng = random.Random(seed)
    if kind not in KINDS:
        raise ValueError(f"unknown mistake {kind!r}; use one of {', '.join(KINDS)}")
    name = rng.choice([w for w in worlds if _usable(kind, household_world(w))])
    world = household_world(name)
    objects, surfaces = _scene(world)
    initial = state(world)
    words = _words(world)
    if kind == "forgotten":
        a, b = rng.sample(objects, 2)
        goal, mistake = ((a, HUMAN), (b, HUMAN)), ((a, HUMAN),)
        fields = {"a": said(a), "b": said(b)}
        intent = f"Sure, I will bring you the {said(a)} and the {said(b)}."
        parts = [a, b]
    elif kind == "wrong_object":
        a, b = rng.choice(_mixups(objects))
        goal, mistake = ((a, HUMAN),), ((b, HUMAN),)
        fields, intent = {"a": said(a)}, f"Sure, here comes the {said(b)}."
        parts = [a, b]
    elif kind == "wrong_place":
        a = rng.choice(objects)
        here = initial[a][0][len("on_"):]
        place, wrong = rng.sample([s for s in surfaces if s != here], 2)
        goal, mistake = ((a, surface_name(place)),), ((a, surface_name(wrong)),)
        fields = {"a": said(a), "place": words.furniture(place)}
        intent = f"Okay, I am moving the {said(a)}."
        parts = [a, place, wrong]
    elif kind == "handed_over":
        a = rng.choice(objects)
        here = initial[a][0][len("on_"):]
        place = rng.choice([s for s in surfaces if s != here])
        goal, mistake = ((a, surface_name(place)),), ((a, HUMAN),)
        fields = {"a": said(a), "place": words.furniture(place)}
        intent = f"Okay, here comes the {said(a)}."
        parts = [a, place]
    elif kind == "wrong_hand":
        a, hand = rng.choice(objects), rng.choice(HANDS)
        other = next(h for h in HANDS if h != hand)
        goal, mistake = ((a, hand),), ((a, other),)
        fields = {"a": said(a), "hand": hand}
        intent = f"Okay, I am picking up the {said(a)}."
        parts = [a, hand]
    else:                                                  # too_slow
        a = rng.choice(objects)
        here = initial[a][0][len("on_"):]
        place = rng.choice([s for s in surfaces if s != here])
        to = navigation_location(place)
        goal, mistake = ((a, surface_name(place)), (FAST + to, to)), ((a, "right"),)
        fields = {"a": said(a), "place": words.furniture(place)}
        intent = f"I am bringing the {said(a)} to {words.furniture(place)}."
        parts = [a, place]
    pool = phrasings.household_pool("requests", POOL_KEYS[kind]) if phrasings else ()
    instruction = rng.choice(pool or REQUESTS[kind]).format(**fields)
    attempt = ["list_object_locations(affordance='grasp')", f"say({intent!r})"]
    if kind == "too_slow":              # it takes the object and dawdles off, then hands back
        source = navigation_location(initial[a][0][len("on_"):])
        attempt += [_go(source), f"grasp({a!r})",
                    f"move_to(get_location_coordinates('room_center'), speed_factor={SLOW})"]
    elif kind == "wrong_hand":
        source = navigation_location(initial[a][0][len("on_"):])
        attempt += [_go(source), f"grasp({a!r}, {mistake[0][1]!r})"]
    else:
        attempt += steps(mistake, initial)
    ident = "-".join([kind, str(seed), name] + [p.rsplit("_", 1)[0] for p in parts])
    return HouseholdSituation(ident, KINDS[kind], kind, seed, name, instruction, goal, mistake,
                              attempt)


def situations(per_kind: int = 2, seed_base: int = 0, kinds=tuple(KINDS),
               worlds=WORLDS, phrasings=None) -> list[HouseholdSituation]:
    """``per_kind`` distinct situations of each mistake (requests worded from
    ``phrasings`` where it has them)."""
    out: list[HouseholdSituation] = []
    for kind in kinds:
        found, r = 0, 0
        while found < per_kind and r < per_kind + 20:
            r += 1
            situation = plan(kind, run_seed(seed_base, "household", kind, r), worlds, phrasings)
            if any((s.world, s.goal, s.mistake) == (situation.world, situation.goal,
                                                    situation.mistake) for s in out):
                continue
            out.append(situation)
            found += 1
    return out


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def feedback(situation: HouseholdSituation, initial: State, now: State,
             world: HouseholdWorld, phrasings=None) -> str | None:
    """The user's high-level answer on the world the attempt left (None: nothing is wrong):
    what is missing, which object came instead, where an object ended; never how. Worded
    from ``phrasings`` (a wording pool) where it has sentences for the kind."""
    missing = unmet(situation.goal, now)
    if not missing:
        return None
    rng = random.Random(situation.seed + 1)
    words = _words(world)
    asked = {obj for obj, _ in situation.goal}
    given = [o for o, (_, held_by) in now.items()
             if held_by == HUMAN and initial[o][1] != HUMAN and o not in asked]
    parts = []
    def worded(kind: str, built_in: tuple[str, ...], **fields: str) -> str:
        """A sentence of the pool's for ``kind`` that uses only ``fields`` (else built-in)."""
        pool = phrasings.household_pool("feedback", kind) if phrasings else ()
        usable = [t for t in pool if _fields(t) <= set(fields)] or list(built_in)
        return rng.choice(usable).format(**fields)

    fast = next((f for f in situation.goal if f[0].startswith(FAST)), None)
    if fast is not None and not holds(fast, now):      # the robot dawdles: it hears that alone
        obj, where = next(f for f in situation.goal if f != fast)
        return _sentence(worded("too_slow", TOO_SLOW, a=said(obj), place=words.place(where)[3:]))
    for obj, where in missing[:2]:
        location, held_by = now[obj]
        if where == HUMAN and given:
            text = worded("wrong_object", OTHER_OBJECT, a=said(obj), b=said(given[0]))
        elif where == HUMAN:
            text = worded("forgotten", FORGOTTEN, a=said(obj))
        elif where in HANDS:
            text = worded("wrong_hand", WRONG_HAND, a=said(obj), hand=where)
        elif held_by == HUMAN:
            text = worded("handed_over", HANDED_OVER, a=said(obj), place=words.place(where)[3:])
        elif location and location.startswith("on_") and location != initial[obj][0]:
            text = worded("wrong_place", OTHER_PLACE, a=said(obj), place=words.place(where)[3:],
                          wrong=words.place(location)[3:])
        else:
            text = rng.choice(NOT_THERE).format(a=said(obj), place=words.place(where)[3:])
        parts.append(_sentence(text))
    return " ".join(parts)


def _sentence(text: str) -> str:
    """A sentence: capitalised, with a full stop unless it ends with a mark of its own."""
    return text[0].upper() + text[1:] + ("" if text.endswith(("?", "!", ".")) else ".")


__all__ = ["HouseholdSituation", "KINDS", "MOVES", "WORLDS", "household_world", "state",
           "holds", "unmet", "after", "steps", "solution", "plan", "situations", "feedback",
           "said"]

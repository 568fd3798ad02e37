"""The items of the reading bench: an utterance, the scene it is said in, and the reading it
means (the gold), generated from a wording pool (:mod:`..eval.phrasings`).

The gold comes from what a wording is about, never from its words:

* an instruction of a template: what the template asks (:func:`template_reading`: "put the
  blocks in the {bowl}" is ``do: every block -> <bowl>`` whatever the wording);
* a feedback sentence of a fact kind: ``do`` for a thing missing or in the wrong place, with
  the objects the sentence names (it uses ``{things}``) and where they go (it uses
  ``{wanted}``); ``wrong object`` for a wrong block, with a ``do`` of the block meant where
  the sentence says it (``{meant}`` or ``{wanted}``: the task's selection); read from the fact
  of a generated mistake (:func:`feedback_items`:
  the correction bench's mistakes applied to a sampled scene, observed as the simulated user
  observes);
* learn requests ``learn``; closing replies ``done``;
* household requests, feedback and lessons: the kind's clause over the objects and places the
  sentence's fields name, in one of the household worlds (:func:`household_items`).
"""
from __future__ import annotations

import random
import string
from dataclasses import dataclass, field

import numpy as np

from ..core.reading.attempt import answering
from ..core.reading.structure import Clause, Reading, Selection, Target
from ..core.reading.vocabulary import ReadingVocabulary
from ..eval import tasks as T
from ..eval.harness import run_seed
from ..eval.observe import PLACES, observe, place_phrase
from ..eval.phrasings import Phrasings, meant_phrase
from ..eval.simulated_user import FACT_WORDING, fact_fields
from ..eval.tasks.relations import NTH
from .correction_situations import MISTAKES, mistaken_moves, solution_moves

BLOCK_Z, BOWL_RIM = 0.02, 0.03


@dataclass
class Item:
    """One utterance to read: ``category`` (request / feedback:<kind> / learn / closing /
    household:<part>:<kind>), ``source`` (the wording it came from), the vocabulary of its
    scene and the ``gold`` clauses."""

    category: str
    source: str
    utterance: str
    vocabulary: ReadingVocabulary = field(repr=False)
    gold: tuple[Clause, ...]
    template: str = ""
    moved: tuple[str, ...] = ()     # what the robot's attempt moved (a reply answers it)

    @property
    def expected(self) -> tuple[Clause, ...]:
        """The gold as a reply's reading is compared: "the one you moved" said one way
        (:func:`~..core.reading.attempt.answering`)."""
        if not self.reply:
            return self.gold
        return answering(Reading(self.utterance, self.gold), self.moved).clauses

    @property
    def reply(self) -> bool:
        """The utterance answers an attempt (not the task's request)."""
        return not (self.category == "request"
                    or self.category.startswith("household:requests:"))


def tabletop_vocabulary(names) -> ReadingVocabulary:
    """A tabletop scene's reading vocabulary: its objects (the blocks movable), the API's named
    places, as :func:`..core.reading.select.reading_scene` builds it."""
    from ..core.apis.tabletop import MOVE
    return ReadingVocabulary.of(list(names), list(PLACES), show_places=False,
                                movable=MOVE.movable)


def _named(*names: str) -> Selection:
    return Selection("named", names=tuple(names))


def _at(name: str) -> Target:
    return Target("named", name)


def template_reading(task: T.Task) -> Clause:
    """What ``task``'s instruction asks, as a ``do`` clause (the gold of every wording)."""
    a, t = task.attributes, task.template_id
    every = Selection("every", kind="block")
    if t == "block_on_block":
        return Clause("do", _named(a["block1"]), _at(a["block2"]))
    if t == "block_in_bowl":
        return Clause("do", _named(a["block"]), _at(a["bowl"]))
    if t in ("blocks_on_place", "stack_on_place"):
        return Clause("do", every, _at(a["place"]))
    if t == "blocks_in_bowl":
        return Clause("do", every, _at(a["bowl"]))
    if t == "matching_bowls":
        return Clause("do", every, Target("same color"))
    if t == "mismatched_bowls":
        return Clause("do", every, Target("other color"))
    if t in ("block_direction_of_bowl", "block_distance_to_bowl", "nth_block_from_direction"):
        return Clause("do", task_selection(task), _at(a["place"]))
    if t in ("block_magnitude_direction_of_bowl", "block_corner_distance_to_bowl"):
        return Clause("do", _named(a["block"]), Target("elsewhere"))
    return Clause("do", every, Target("elsewhere"))        # corners, lines


def task_selection(task: T.Task) -> Selection:
    """The block a selection task means, as a :class:`Selection`."""
    a, t = task.attributes, task.template_id
    if t == "block_direction_of_bowl":
        return Selection("side", kind="block", side=a["direction"], reference=a["bowl"])
    if t == "block_distance_to_bowl":
        how = "nearest" if a["distance"] == "closest" else "farthest"
        return Selection(how, kind="block", reference=a["bowl"])
    if t == "nth_block_from_direction":
        return Selection("nth", kind="block", side=a["direction"], nth=NTH[a["nth"]] + 1)
    raise ValueError(f"{t} selects no block")


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def request_items(pool: Phrasings, templates, seed_base: int) -> list[Item]:
    """Every wording of each template, said in a scene sampled for it."""
    out = []
    for template in templates:
        wordings = pool.instructions.get(template) or (None,)
        for r, _ in enumerate(wordings, 1):
            task = T.make_task(template, "sa_si", run_seed(seed_base, "reading", template, r))
            text = pool.instruction(task, r)
            source = wordings[r - 1] or task.template.pattern
            out.append(Item("request", source, text, tabletop_vocabulary(task.objects),
                            (template_reading(task),), template))
    return out


# -- feedback: facts of generated mistakes ---------------------------------------------------

def _place(pos, block: str, target: str) -> np.ndarray:
    if target in PLACES:
        return np.array([*PLACES[target], BLOCK_Z])
    base = np.asarray(pos[target], dtype=float)
    return np.array([base[0], base[1], base[2] + (BOWL_RIM if target.endswith(" bowl") else 0.04)])


def _after(moves, pos) -> dict:
    out = {n: np.asarray(p, dtype=float) for n, p in pos.items()}
    for block, target in moves:
        out[block] = _place(out, block, target)
    return out


def _facts(template: str, seed: int, factory) -> list[tuple[T.Task, object, tuple[str, ...]]]:
    """(task, fact, what the attempt moved) of each mistake of ``template`` on the scene of
    ``seed``, plus a block that is not the one asked for (``extra``) and nothing moved."""
    task = T.make_task(template, "sa_si", seed)
    world = T.feasible_world(task, factory)
    try:
        pos = T.world_positions(world)
    finally:
        close = getattr(world, "close", None)
        if close:
            close()
    right = solution_moves(task, pos)
    tries = [mistaken_moves(k, task, pos, right) for k in MISTAKES[template]] + [[]]
    if template == "block_in_bowl":
        others = [b for b in pos if b.endswith(" block") and b != task.attributes["block"]]
        tries.append([(others[0], task.attributes["bowl"])] if others else None)
    out = []
    for moves in tries:
        if moves is None:
            continue
        seen = observe(task, pos, _after(moves, pos))
        moved = tuple(dict.fromkeys(block for block, _ in moves))
        out += [(task, f, moved) for f in seen.unmet]
    return out


def _target_of(phrase: str, task: T.Task) -> Target | None:
    """The target a fact's ``wanted`` phrase names ("in the blue bowl", "on the top side")."""
    for name in list(task.objects) + list(PLACES):
        if phrase in (place_phrase(name), f"in the {name}", f"on the {name}", f"the {name}"):
            return _at(name)
    return None


def feedback_gold(kind: str, text: str, task: T.Task, fact) -> tuple[Clause, ...]:
    """The clauses a feedback sentence of ``kind`` means (see the module docstring)."""
    used = _fields(text)
    named = bool(used & {"things", "Things"}) and bool(fact.objects)
    objects = _named(*fact.objects) if named else None
    wrong = Clause("wrong object")
    if kind == "wrong_block":
        meant = used & {"meant", "wanted"}
        return (wrong, Clause("do", task_selection(task))) if meant else (wrong,)
    if kind == "extra":
        wanted = _target_of(fact.wanted, task) if "wanted" in used else None
        return (wrong, Clause("do", _named(wanted.name))) if wanted else (wrong,)
    if kind == "nothing_moved":
        return (Clause("do", None, None),)
    where = _target_of(fact.wanted, task) if "wanted" in used else None
    return (Clause("do", objects, where),)


def feedback_items(pool: Phrasings, seed_base: int, factory) -> list[Item]:
    """Every feedback sentence of the pool (the built-in sentences for the kinds it leaves
    out), each filled with a fact of its kind from a generated mistake whose fields it can
    use."""
    facts: dict[str, list] = {}
    for template in MISTAKES:
        for r in range(1, 4):
            for task, fact, moved in _facts(template, run_seed(seed_base, "reading-fb", template,
                                                               r), factory):
                facts.setdefault(fact.kind, []).append((task, fact, moved))
    rng = random.Random(seed_base)
    out = []
    for kind in ("missing", "wrong_place", "wrong_block", "extra", "nothing_moved"):
        sentences = pool.feedback.get(kind) or FACT_WORDING[kind]
        for text in sentences:
            fitting = [(task, f, moved) for task, f, moved in facts.get(kind, ())
                       if all(fact_fields(f, meant_phrase(task)).get(x)
                              for x in _fields(text))]
            if not fitting:
                continue
            task, fact, moved = rng.choice(fitting)
            said = text.format(**fact_fields(fact, meant_phrase(task)))
            said = said[:1].upper() + said[1:]
            out.append(Item(f"feedback:{kind}", text, said, tabletop_vocabulary(task.objects),
                            feedback_gold(kind, text, task, fact), task.template_id, moved))
    return out


def reply_items(pool: Phrasings, seed_base: int) -> list[Item]:
    """The learn requests (``learn``) and closing replies (``done``), each in a scene."""
    from ..eval.simulated_user import LEARN
    out = []
    for category, texts, clause in (("learn", pool.learn or LEARN, "learn"),
                                    ("closing", pool.closing, "done")):
        for i, text in enumerate(texts):
            template = list(MISTAKES)[i % len(MISTAKES)]
            task = T.make_task(template, "sa_si", run_seed(seed_base, "reading-reply",
                                                          template, i))
            asked = template_reading(task).objects
            moved = asked.names if asked.how == "named" else tuple(
                o for o in task.objects if o.endswith(" block"))
            out.append(Item(category, text, text, tabletop_vocabulary(task.objects),
                            (Clause(clause),), template, moved))
    return out


# -- household ---------------------------------------------------------------------------

def household_vocabulary(world) -> ReadingVocabulary:
    """A household world's reading vocabulary, as the agent builds it from the API."""
    from ..core.apis.humanoid import HumanoidApi
    from ..core.reading.vocabulary import split_household
    api = HumanoidApi(world)
    things, surfaces = split_household(api.list_objects(affordance=None))
    return ReadingVocabulary.of(things, surfaces, api.list_locations(), me=True,
                                lying=dict(api.list_object_locations(affordance="grasp")))


def household_items(pool: Phrasings, seed_base: int) -> list[Item]:
    """Every household wording of the pool in one of the three worlds, with its gold."""
    from . import household_situations as H
    rng = random.Random(seed_base + 7)
    worlds = {name: H.household_world(name) for name in H.WORLDS}
    out = []
    for part in ("requests", "feedback", "lessons"):
        kinds = pool.household.get(part, {})
        for kind, texts in kinds.items():
            for text in texts:
                item = _household_item(part, kind, text, worlds, rng)
                if item is not None:
                    out.append(item)
    return out


def _household_item(part: str, kind: str, text: str, worlds: dict, rng) -> Item | None:
    from ..core.apis.humanoid import navigation_location, surface_name
    from ..core.apis.humanoid_words import Words
    from . import household_situations as H
    name = rng.choice(sorted(worlds))
    world = worlds[name]
    objects, surfaces = H._scene(world)
    if len(objects) < 2 or len(surfaces) < 2:
        return None
    words = Words(world.scene(), world.named_locations(), None)
    a, b = rng.sample(objects, 2)
    place, wrong = rng.sample(surfaces, 2)
    if part == "requests" and world.objects[a].location == surface_name(place):
        place, wrong = wrong, place      # nobody asks for a thing where it lies already
    locations = [loc for loc in world.named_locations() if loc.startswith("inFrontOf_")]
    frm, to = rng.sample(locations, 2)
    hand = rng.choice(["left", "right"])
    fields = {"a": H.said(a), "b": H.said(b), "place": words.furniture(place),
              "wrong": words.furniture(wrong), "from": words.furniture(frm[len("inFrontOf_"):]),
              "to": words.furniture(to[len("inFrontOf_"):]), "hand": hand}
    used = _fields(text)
    said = text.format(**fields)
    on_place = _at(surface_name(place))
    learn = Clause("learn")
    gold: tuple[Clause, ...]
    held = Clause("hand", hand=hand)
    to_place = (None, navigation_location(place) if "place" in used else None)
    moved: tuple[str, ...] = ()
    if part == "requests":
        gold = {"bring_one": (Clause("do", _named(a), Target("me")),),
                "bring_two": (Clause("do", _named(a, b), Target("me")),),
                "put_on": (Clause("do", _named(a), on_place),),
                "take_to": (Clause("do", _named(a), on_place),),
                "hold_in": (Clause("do", _named(a), None), held),
                "put_away": (Clause("do", _named(a), None),)}[kind]
    elif part == "feedback":
        if kind == "wrong_hand" and "hand" not in used:
            held = Clause("hand", hand="other")   # which one is the attempt's: the code's
        moved = {"forgotten": (b,), "wrong_object": (b,)}.get(kind, (a,))
        gold = {"forgotten": (Clause("do", _named(a), None),),
                "wrong_object": (Clause("wrong object"), Clause("do", _named(a))),
                "wrong_place": (Clause("do", _named(a) if "a" in used else None, on_place),),
                "handed_over": (Clause("do", _named(a) if "a" in used else None, on_place),),
                "wrong_hand": (held,),
                "too_slow": (Clause("faster", route=to_place),),
                }[kind]
    else:
        moved = (a,)
        route = (navigation_location(frm[len("inFrontOf_"):]) if "from" in used else None,
                 navigation_location(to[len("inFrontOf_"):]) if "to" in used else None)
        gold = ({"also_bring": Clause("also", _named(b), companion=_named(a)),
                 "put_on": Clause("do", _named(a), on_place),
                 "faster": Clause("faster", route=route),
                 "ask_first": Clause("ask first"),
                 "hand": Clause("hand", hand=hand if "hand" in used else "both")}[kind], learn)
    return Item(f"household:{part}:{kind}", text, said, household_vocabulary(world), gold, name,
                moved)


def items(pool: Phrasings, seed_base: int = 0, factory=None, templates=None,
          parts=("request", "feedback", "reply", "household")) -> list[Item]:
    """Every item of the bench for ``pool`` (see the module docstring)."""
    from ..eval.worlds import world_factory
    factory = factory or world_factory("2d", "floating")
    templates = list(templates or MISTAKES)
    out: list[Item] = []
    if "request" in parts:
        out += request_items(pool, templates, seed_base)
    if "feedback" in parts:
        out += feedback_items(pool, seed_base, factory)
    if "reply" in parts:
        out += reply_items(pool, seed_base)
    if "household" in parts:
        out += household_items(pool, seed_base)
    return out


def normal(clauses) -> tuple:
    """Clauses compared as a reading: their order aside, and ``done`` beside ``learn`` left
    out (a request to learn approves what it asks to learn)."""
    kinds = {c.kind for c in clauses}
    kept = [c for c in clauses if not (c.kind == "done" and "learn" in kinds)]
    return tuple(sorted(kept, key=repr))


def same(gold, reading: Reading | None) -> bool:
    return reading is not None and normal(gold) == normal(reading.clauses)


__all__ = ["Item", "items", "template_reading", "task_selection", "feedback_gold", "normal",
           "same", "tabletop_vocabulary", "household_vocabulary"]

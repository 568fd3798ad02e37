"""A lesson as an edit of the program: what changes, at which call, under which condition.

The one shape of a taught habit (shared/notes/lessons.md; issue 59): the model reads WHAT TO
CHANGE (:mod:`.edit_reading`), the code applies it (:func:`apply`, before each statement
runs: :mod:`..guides.habits`), the replay checks it (:mod:`..learning.habit`).

    edit      = before | after | instead | set | remove | never
                at an anchor call (a skill: grasp, handover_object_to_human, place_object,
                move_to, bring_object_to, receive_object_from_human, say, ask; or ``request``:
                the end of a request the robot acted in)
    condition = the anchor's thing: a scene name, ``every <kind>``, ``any`` thing, or the
                ``held`` thing (what the robot carries while it calls the anchor), and, where
                said, a place (the anchor's destination, without ``on_`` / ``inFrontOf_``)

* ``before`` / ``after``: ``statements`` run before / after the anchor call (``after`` only
  where it worked);
* ``instead``: ``statements`` run in its place;
* ``set``: the anchor call runs with ``argument=value``;
* ``remove``: the anchor call does not run;
* ``never``: the anchor call does not run and the robot says why (``statements``: what it says).

A statement may hold ``{thing}`` (the anchor's thing as the scene names it) and ``{said}`` (its
spoken form): a condition on a kind or on any thing binds the taught thing to the anchor's
(:func:`bound`), so "say 'careful, the tea is hot' when you hand me the tea" stays about the
tea, and "tell me what you are handing me" says each thing's own name.
"""
from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace

from ..transcript.statements import bare_call
from .vocabulary import NAV_PREFIX, SURFACE_PREFIX, spoken_form

# the humanoid's hand-over destination (core/apis/humanoid_scene.py, above this package)
HANDOVER_LOCATION = "handover_to_human"
OPS = ("before", "after", "instead", "set", "remove", "never")
REQUEST = "request"          # the anchor "the end of a request the robot acted in"
ANY, HELD = "any", "held"
KIND = "every "              # a condition thing "every <kind>"
THING, SAID = "{thing}", "{said}"
# skills whose first argument is the thing they act on
THING_FIRST = ("grasp", "handover_object_to_human", "place_object", "bring_object_to",
               "receive_object_from_human")
# what a one-call move does on its way: a condition on one of these steps holds for it too
# (its drives: a speed set for drives is its speed_factor, which scales each of them)
STEPS_OF_BRING = ("grasp", "handover_object_to_human", "place_object", "move_to")
ACTS = THING_FIRST + ("move_to",)
# which skills take an argument a ``set`` edit writes (the humanoid API's signatures: a
# one-call bring takes a speed and the hand it takes the thing with)
TAKES = {"hand": ("grasp", "bring_object_to"),
         "speed_factor": ("move_to", "bring_object_to")}
# how the robot says what a skill does, and where
VERBS = {"grasp": "take", "handover_object_to_human": "hand you", "place_object": "put down",
         "bring_object_to": "bring", "receive_object_from_human": "take from you"}
PREPOSITIONS = {"place_object": "on", "bring_object_to": "to", "move_to": "to"}


@dataclass(frozen=True)
class Condition:
    """Which calls an edit applies to: ``skill`` (or :data:`REQUEST`), ``thing`` (a scene
    name, ``every <kind>``, :data:`ANY`, :data:`HELD`), ``place`` (a furniture or location
    name, or None: anywhere)."""

    skill: str
    thing: str = ANY
    place: str | None = None

    @property
    def kind(self) -> str | None:
        return self.thing[len(KIND):] if self.thing.startswith(KIND) else None

    @property
    def general(self) -> bool:
        """Holds for more than one thing (a kind, any, the held one)."""
        return self.thing in (ANY, HELD) or self.kind is not None

    def in_words(self) -> str:
        """The anchor in words: "I hand you anything", "I put any glass on the windowsill"."""
        if self.skill == REQUEST:
            return "I am done with a request"
        thing = {ANY: "anything", HELD: "something"}.get(self.thing) or \
            (f"any {self.kind}" if self.kind else f"the {spoken_form(self.thing)}")
        where = f" {PREPOSITIONS.get(self.skill, 'at')} the {spoken_form(place_of(self.place))}" \
            if self.place else ""
        if self.skill == "move_to":
            held = "" if self.thing == ANY else {HELD: " while I carry something"}.get(
                self.thing) or f" while I carry {thing}"
            return f"I drive{where}{held}"
        return f"I {VERBS.get(self.skill, self.skill)} {thing}{where}"


@dataclass(frozen=True)
class Edit:
    """One taught change of the program (see the module docstring). ``said``: the user's
    words it was read from; ``taught``: the thing of the anchor it was taught on (bound away
    where the condition is general)."""

    op: str
    when: Condition
    statements: tuple[str, ...] = ()
    argument: str | None = None
    value: object = None
    said: str = ""
    taught: str | None = None

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"unknown edit {self.op!r}; use one of {', '.join(OPS)}")
        if self.op in ("before", "after", "instead") and not self.statements:
            raise ValueError(f"an edit {self.op!r} needs the statements it adds")
        if self.op == "set" and not self.argument:
            raise ValueError("an edit 'set' needs the argument it sets")
        if self.op in ("instead", "set", "remove", "never") and self.when.skill == REQUEST:
            raise ValueError(f"an edit {self.op!r} needs a call to act on, not the request")
        for source in self.statements:
            if bare_call(source.replace(THING, "x").replace(SAID, "x")) is None:
                raise ValueError(f"an edit's statement must be one call: {source!r}")

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Edit:
        data = json.loads(text)
        data["when"] = Condition(**data["when"])
        data["statements"] = tuple(data.get("statements") or ())
        return cls(**data)

    def in_words(self) -> str:
        """What the robot says it will do, and ``llm-interaction memory show`` shows."""
        named = None if self.when.general else self.when.thing
        what = " and ".join(_call_in_words(written(s, named)) for s in self.statements)
        anchor = self.when.in_words()
        act = anchor.removeprefix("I ")
        if self.op == "set":
            how = f"use my {self.value} hand" if self.argument == "hand" else \
                f"use {self.argument} {self.value}"
            return f"when {anchor}, I will {how}"
        return {
            "before": f"before {anchor}, I will {what}",
            "after": f"when {anchor}, I will then {what}",
            "instead": f"instead of the way {anchor}, I will {what}",
            "remove": f"I will no longer {act}",
            "never": f"I will never {act}" + (f"; I will {what}" if self.statements else ""),
        }[self.op].replace("{", "").replace("}", "")


def _call_in_words(source: str) -> str:
    """``say('Careful.')`` -> ``say "Careful."``; ``move_to(get_location_coordinates('x'))``
    -> ``go to the x``; another call as it is written."""
    call = bare_call(source.replace(THING, "it").replace(SAID, "thing"))
    if call is None:
        return source
    literals = [a.value for a in ast.walk(call) if isinstance(a, ast.Constant)
                and isinstance(a.value, str)]
    if call.func.id in ("say", "ask") and literals:
        return f'{call.func.id} "{literals[0]}"'
    if call.func.id == "move_to" and literals:
        return f"go to the {spoken_form(place_of(literals[0]))}"
    if call.func.id == "place_object" and len(literals) >= 2:
        return f"put it on the {spoken_form(place_of(literals[1]))}"
    return ast.unparse(call)


# -- what a call is about --------------------------------------------------------------------

def place_of(name: str | None) -> str | None:
    """A location or surface name without its prefix (``'on_table_0'`` -> ``'table_0'``)."""
    if name is None:
        return None
    for prefix in (SURFACE_PREFIX, NAV_PREFIX):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


@dataclass(frozen=True)
class Call:
    """A statement that calls one skill: its ``skill``, ``thing`` (the first literal argument
    of a skill in :data:`THING_FIRST`), ``place`` (where it goes, prefixes off)."""

    skill: str
    thing: str | None
    place: str | None
    node: ast.Call

    @classmethod
    def of(cls, source: str) -> Call | None:
        call = bare_call(source)
        if call is None:
            return None
        name = call.func.id

        def literal(i: int, keyword: str) -> str | None:
            arg = call.args[i] if len(call.args) > i else next(
                (k.value for k in call.keywords if k.arg == keyword), None)
            return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) \
                else None

        thing = literal(0, "object_name") if name in THING_FIRST else None
        if name == "place_object":
            thing = literal(0, "object_in_hand_name")
        place = None
        if name in ("place_object", "bring_object_to"):
            place = place_of(literal(1, "destination_object_name"))
        elif name == "move_to":
            inner = call.args[0] if call.args else None
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and \
                    inner.func.id == "get_location_coordinates" and inner.args and \
                    isinstance(inner.args[0], ast.Constant):
                place = place_of(str(inner.args[0].value))
        return cls(name, thing, place, call)

    def is_step(self, skill: str) -> bool:
        """This call does ``skill`` (itself, or a one-call move doing it on its way: a
        ``bring_object_to`` grasps, then hands over or places)."""
        if self.skill == skill:
            return True
        if self.skill != "bring_object_to" or skill not in STEPS_OF_BRING:
            return False
        to_human = self.place == HANDOVER_LOCATION
        return skill in ("grasp", "move_to") or (skill == "handover_object_to_human") == to_human


@dataclass
class Facts:
    """What a condition is judged on besides the call: ``held`` (what the robot carries),
    ``is_a(thing, kind)`` (the model's judgment whether a thing is of a kind, cached);
    ``lies(thing)``: where it lies now (a surface name, None: held or unknown)."""

    held: Iterable[str] = ()
    is_a: Callable[[str, str], bool] = lambda thing, kind: False
    lies: Callable[[str], str | None] = lambda thing: None    # where a thing lies now


def holds(condition: Condition, call: Call, facts: Facts) -> bool:
    """Whether ``condition`` holds for ``call`` (its skill, thing and place)."""
    if condition.skill == REQUEST or not call.is_step(condition.skill):
        return False
    if condition.place is not None and place_of(call.place) != place_of(condition.place):
        return False
    if condition.thing == ANY:
        return True
    if condition.thing == HELD:
        return bool(list(facts.held)) or call.thing is not None and call.skill != "grasp"
    things = [call.thing] if call.thing is not None else list(facts.held)
    kind = condition.kind
    if kind is not None:
        return any(facts.is_a(t, kind) for t in things)
    return condition.thing in things


# -- binding and applying --------------------------------------------------------------------

def bound(edit: Edit) -> Edit:
    """``edit`` with its taught thing made the anchor's (``{thing}``, its spoken form
    ``{said}``) where the condition holds for more than that thing; as it is otherwise."""
    if not edit.when.general or not edit.taught:
        return edit
    said = spoken_form(edit.taught)
    pattern = re.compile(rf"\b{re.escape(said)}\b", re.IGNORECASE)

    def bind(text: str) -> str:
        return THING if text == edit.taught else pattern.sub(SAID, text)

    return replace(edit, statements=tuple(_with_strings(s, bind) for s in edit.statements))


def written(source: str, thing: str | None) -> str:
    """A statement of an edit for the anchor's ``thing``."""
    if thing is None:
        return source
    return _with_strings(source, lambda text: text.replace(THING, thing).replace(
        SAID, spoken_form(thing)))


def _with_strings(source: str, change: Callable[[str], str]) -> str:
    """``source`` (one call) with each string literal in it as ``change`` makes it."""
    call = bare_call(source)
    if call is None:
        return source
    for node in ast.walk(call):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = change(node.value)
    return ast.unparse(call)


def with_argument(call: Call, argument: str, value: object) -> str:
    node = call.node
    node.keywords = [k for k in node.keywords if k.arg != argument] + \
        [ast.keyword(argument, ast.Constant(value))]
    return ast.unparse(node)


@dataclass
class Applied:
    """What runs for one statement under the edits that hold for it: ``before``, then
    ``source`` (None: not run), then ``after`` (only where ``source`` worked); ``refused``:
    why it is not run (said to the user); ``edits``: those that applied."""

    source: str | None
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    refused: str | None = None
    edits: list[Edit] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.edits)


def apply(edits: Iterable[Edit], source: str, facts: Facts) -> Applied:
    """The statements to run for ``source`` under ``edits`` (those whose condition holds for
    its call). ``never`` wins over everything; then ``remove`` / ``instead`` (the first),
    ``set`` (each), ``before`` and ``after`` (each, in the order taught)."""
    call = Call.of(source)
    out = Applied(source)
    if call is None:
        return out
    hold = [e for e in edits if holds(e.when, call, facts)]
    thing = call.thing or next(iter(facts.held), None)
    never = next((e for e in hold if e.op == "never"), None)
    if never is not None:
        why = written(never.statements[0], thing) if never.statements else None
        return Applied(None, before=[why] if why else [], refused=never.said or never.in_words(),
                       edits=[never])
    for edit in hold:
        if edit.op in ("remove", "instead") and out.source == source:
            statements = [written(s, thing) for s in edit.statements]
            if call.skill == "bring_object_to" and edit.op == "instead":
                out.source = _bring_instead(call, statements)
                if out.source is not None:
                    out.edits.append(edit)
                    continue
            out.source = None
            out.before += statements
            out.edits.append(edit)
    for edit in hold:
        if edit.op == "set" and out.source is not None:
            target = Call.of(out.source)
            if target.skill in TAKES.get(edit.argument, (target.skill,)):
                out.source = with_argument(target, edit.argument, edit.value)
                out.edits.append(edit)
        elif edit.op == "before":
            out.before += [written(s, thing) for s in edit.statements]
            out.edits.append(edit)
        elif edit.op == "after":
            out.after += [written(s, thing) for s in edit.statements]
            out.edits.append(edit)
    return out


def _bring_instead(bring: Call, statements: list[str]) -> str | None:
    """A one-call bring whose hand-over or placing an edit replaces by one placing or
    hand-over: the bring to that place (the thing is not held yet where the step would run
    alone), with the bring's own speed and hand; None for any other replacement."""
    if len(statements) != 1 or (new := Call.of(statements[0])) is None or \
            new.thing != bring.thing:
        return None
    if new.skill == "place_object" and new.place:
        to = next((a.value for a in new.node.args[1:2] if isinstance(a, ast.Constant)),
                  new.place)
    elif new.skill == "handover_object_to_human":
        to = HANDOVER_LOCATION
    else:
        return None
    node = bring.node
    keywords = "".join(f", {k.arg}={ast.unparse(k.value)}" for k in node.keywords)
    return f"bring_object_to({bring.thing!r}, {to!r}{keywords})"


def at_request_end(edits: Iterable[Edit], acted: bool) -> list[str]:
    """The statements to run before a request's hand-back (``wait_for_trigger()``), where the
    robot acted in it."""
    if not acted:
        return []
    return [s for e in edits if e.when.skill == REQUEST and e.op in ("before", "after")
            for s in e.statements]


def edits_of(examples: Iterable) -> list[Edit]:
    """The edits kept in habit lessons (each example's ``edit`` JSON); one that does not
    parse is left out."""
    out = []
    for example in examples:
        if not example.edit:
            continue
        try:
            out.append(Edit.from_json(example.edit))
        except (ValueError, TypeError, KeyError):
            continue
    return out


__all__ = ["OPS", "REQUEST", "ANY", "HELD", "KIND", "THING", "SAID", "ACTS", "Condition",
           "Edit", "Call", "Facts", "Applied", "holds", "bound", "written", "apply",
           "at_request_end", "edits_of", "place_of"]

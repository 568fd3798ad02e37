"""What the console accepts as a generated input, as a check and as a grammar for decoders.

A small model copies what it sees: output lines (``cannot``, ``Point``, ``unknown``) come back
as inputs, and object names from an example's scene (``'yellow block'``) come back as
arguments. Both are valid Python, so the console would run them and spend the error budget.
A :class:`Constraint` is a snapshot of what the console knows right now:

* the words an input may start with: the API functions (live registry), the console's
  built-ins, the names bound in this task (its namespace), the statement keywords, a
  comment, or a new name being assigned (``names = ...``);
* the scene functions (parameters named ``*name*`` that take a ``str``, e.g.
  ``put_first_on_second(obj_name_1, target_name_or_xy_pos)``, ``grasp(object_name, hand)``)
  and the names the current scene has: a string literal passed to such a parameter must be
  one of them; an expression (a variable, ``names[0]``, ``denormalize_xy(...)``) is free.

``check(source)`` returns why an input must not run (or None), for endpoints that take no
grammar: echoed output (a bare unknown name, text that is no Python and starts with an
unknown word or with no word at all) and string literals not in the scene. A call of an
unknown function is left to the console: its NameError is the model's feedback, as in the
reference method. ``gbnf()`` renders the rules as a llama.cpp GBNF grammar
of one console continuation (what follows ``>>>``: the input, ``... `` continuation lines,
then whatever the model writes after it, which the client cuts off); the embedded model
decodes with it (through llguidance), and llama.cpp / vLLM servers take it in the request.
The grammar is stricter than the check at the start of an input (only known words, no call
of an unknown function) and looser inside blocks (indented lines may start with any name:
the block binds its own), and it does not let a new name be a word of this task's output.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping

from ..apis.registry import ApiRegistry
from .constraint_rules import _IDENT, SAY, Constraint
from .correction import Focus
from .gbnf import gbnf_literal, word_except  # noqa: F401 - importable from here too
from .scene_functions import SceneFunction, scene_function  # noqa: F401

# Keywords a console input may start with (value keywords like None are echoed output).
STATEMENT_KEYWORDS = ("assert", "break", "class", "continue", "def", "del", "for", "from",
                      "global", "if", "import", "nonlocal", "pass", "raise", "return", "try",
                      "while", "with")
# Registry functions that list the current scene's names, with the arguments that list all
# of them (tabletop: objects; humanoid: objects and surfaces, and the navigation locations).
SCENE_LISTINGS: Mapping[str, Mapping[str, object]] = {
    "get_obj_names": {},
    "list_objects": {"affordance": None},
    "list_locations": {},
}
log = logging.getLogger(__name__)
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


class ConsoleVocabulary:
    """Builds the current :class:`Constraint` of a console: live registry, namespace, scene.

    One vocabulary serves one statement's generation (the agent makes one per statement), so
    the scene is listed once for it and the listing kept: the agent's focus, unblock targets and
    lesson plan and the constraint all read it (on a ROS robot each listing is a service call).
    A listing that raised is not kept."""

    def __init__(self, api: ApiRegistry, namespace: Callable[[], Mapping[str, object]],
                 scene_names: Callable[[], Iterable[str]] | None = None,
                 outputs: Callable[[], Iterable[str]] = tuple):
        self.api = api
        self._namespace = namespace
        self._outputs = outputs
        self.focus: Focus | None = None           # set by the agent for a turn
        self.withheld: frozenset[str] = frozenset()     # set by the agent for a turn
        self.required: str | None = None                # set by the agent for a statement
        self.move_now: bool = False                     # set by the agent for a statement
        self.comment_allowed: bool = True               # set by the agent for a statement
        self.speech: tuple[str, ...] | None = None      # set by the agent (core/decoding/claims.py)
        self.speech_refusal: str = ""
        self._list_scene = scene_names or (lambda: listed_scene_names(api))
        self._listed: tuple[str, ...] | None = None
        self.scene_functions = {f.name: f for f in (scene_function(n, api[n].fn)
                                                    for n in api.names) if f is not None}

    @classmethod
    def of(cls, console) -> ConsoleVocabulary:
        """The vocabulary of a :class:`~..console.ConsoleSession` (its namespace is re-read on
        every call: a new task replaces it)."""
        return cls(console.api, lambda: console.namespace,
                   outputs=lambda: [e.output for e in console.transcript])

    def scene_names(self) -> list[str]:
        """The names of the current scene (raises what the scene's listing raises), listed
        at the first call."""
        return list(self._scene_names())

    def _scene_names(self) -> tuple[str, ...]:
        if self._listed is None:
            self._listed = tuple(str(n) for n in self._list_scene())
        return self._listed

    def current(self) -> Constraint:
        namespace = self._namespace()
        known = {n for n in namespace if not n.startswith("_")}
        builtins = namespace.get("__builtins__", {})
        if isinstance(builtins, Mapping):
            known |= {n for n in builtins if not n.startswith("_")}
        known |= set(self.api.names) | set(STATEMENT_KEYWORDS)
        functions = dict(self.scene_functions)
        try:
            names = tuple(dict.fromkeys(str(n) for n in self._scene_names()))
        except Exception as exc:  # noqa: BLE001 - no scene yet: name arguments stay free
            log.warning("the scene's names are unknown (%s): object names are not checked", exc)
            names, functions = (), {}
        echo = {w for text in self._outputs() for w in _IDENT.findall(_QUOTED.sub(" ", text))}
        focus = self.focus if self.focus is not None and self.focus.function in functions else None
        speech = self.speech if SAY in self.api.names else None
        return Constraint(frozenset(known), functions, names, frozenset(echo - known), focus,
                          frozenset(self.withheld), self.required, frozenset(self.api.names),
                          self.move_now and focus is not None, self.comment_allowed,
                          None if speech is None else tuple(speech), self.speech_refusal)


def program_constraint(functions: Iterable[Callable], scene_names: Iterable[str]) -> Constraint:
    """The constraint of programs over ``functions`` in a scene (CaP, HELPER: no console)."""
    registry = ApiRegistry(functions)
    names = list(scene_names)
    return ConsoleVocabulary(registry, dict, lambda: names).current()


def listed_scene_names(api: ApiRegistry) -> list[str]:
    """The names of the current scene, from the API's listing functions (SCENE_LISTINGS)."""
    names: list[str] = []
    for fn_name, kwargs in SCENE_LISTINGS.items():
        if fn_name in api:
            listed = api[fn_name].fn(**kwargs)
            names += [n for n in listed if isinstance(n, str)]
    return names


def names_to_say(api: ApiRegistry, scene: Iterable[str] | None = None) -> list[str]:
    """The names a request or a move may say in the current scene: the scene's (``scene``, else
    its listings) and the places the move function takes."""
    move = api.move_function()
    names = list(scene) if scene is not None else listed_scene_names(api)
    return names + list(move[1].places if move is not None else ())

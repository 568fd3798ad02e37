"""What a reading may name in the current scene, and how each name is said.

The model reads better in the user's words than in the robot's identifiers: "the juice" is
close to ``mango juice`` and far from ``mango-juice_0``. So every name of the scene has a
spoken form (:func:`spoken_form`: the class in words, a number only where a class repeats;
a surface ``on_dining-table_0`` and the place in front of it ``inFrontOf_dining-table_0`` are
both "dining table", told apart by where the reading uses them); the grammar offers the spoken
forms, and :mod:`.parse` maps them back to the names.

* ``things``: the objects a reading may select or refer to (blocks and bowls, cups, the
  sponge, the ladder);
* ``places``: what else may be a target (the tabletop's named places, the household's
  surfaces);
* ``locations``: where the robot drives (the ends of a route);
* ``kinds``: the words ``every <kind>`` and the relations take (the last word of a thing's
  spoken form: block, bowl, cup, juice).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

SURFACE_PREFIX = "on_"
NAV_PREFIX = "inFrontOf_"
# navigation locations the humanoid worlds name without furniture: how a person says them
LOCATION_WORDS = {"handover_to_human": "handover place", "room_center": "room center"}


def spoken_form(name: str) -> str:
    """A scene name in words: ``'mango-juice_0'`` -> ``'mango juice'``, ``'on_dining-table_0'``
    and ``'inFrontOf_dining-table_0'`` -> ``'dining table'``, ``'red block'`` unchanged."""
    if name in LOCATION_WORDS:
        return LOCATION_WORDS[name]
    for prefix in (SURFACE_PREFIX, NAV_PREFIX):
        if name.startswith(prefix):
            name = name[len(prefix):]
    name = re.sub(r"_\d+$", "", name)
    return " ".join(re.sub(r"[-_]+", " ", name).split())


def kind_word(form: str) -> str | None:
    """The kind of a spoken form: its last word, a number after it aside (``coffee cup 2``
    -> ``cup``)."""
    words = form.split()
    if words and words[-1].isdigit():
        words = words[:-1]
    return words[-1] if words else None


def _index(name: str) -> int:
    found = re.search(r"_(\d+)$", name)
    return int(found.group(1)) if found else 0


def _unique_forms(names: Iterable[str]) -> dict[str, str]:
    """spoken form -> name, in the order given; a form that repeats gets ``1``, ``2`` ...
    after it (numbered in the order of the names' indices)."""
    names = list(dict.fromkeys(names))
    counts = Counter(spoken_form(n) for n in names)
    numbered: dict[str, str] = {}
    seen: Counter = Counter()
    for name in sorted(names, key=lambda n: (spoken_form(n), _index(n), n)):
        form = spoken_form(name)
        if counts[form] > 1:
            seen[form] += 1
            form = f"{form} {seen[form]}"
        numbered[name] = form
    return {numbered[n]: n for n in names}


@dataclass(frozen=True)
class ReadingVocabulary:
    """The names a reading may use in one scene (see the module docstring); each mapping is
    spoken form -> name."""

    things: Mapping[str, str] = field(default_factory=dict)
    places: Mapping[str, str] = field(default_factory=dict)
    locations: Mapping[str, str] = field(default_factory=dict)
    me: bool = False                # the robot can hand things to the user
    show_places: bool = True        # the scene line lists the places (the tabletop's nine
                                    # named places are the API's own: not listed)
    fixed: frozenset[str] = frozenset()   # things the robot cannot move (the tabletop's bowls)
    lying: Mapping[str, str] = field(default_factory=dict)   # thing -> the surface it is on

    @classmethod
    def of(cls, things: Iterable[str], places: Iterable[str] = (),
           locations: Iterable[str] = (), me: bool = False,
           show_places: bool = True, movable=None,
           lying: Mapping[str, str | None] | None = None) -> ReadingVocabulary:
        """``movable(name)``: whether the robot can move a thing (default: every one);
        ``lying``: the surface each thing is on, where the scene tells it (a request's place
        where its things already lie is not a place said: :mod:`.in_place`)."""
        things = [n for n in dict.fromkeys(things) if n]
        places = [p for p in dict.fromkeys(places) if p and p not in things]
        fixed = frozenset(n for n in things if movable is not None and not movable(n))
        lying = {n: p for n, p in (lying or {}).items() if n in things and p in places}
        return cls(_unique_forms(things), _unique_forms(places),
                   _unique_forms(locations), me, show_places, fixed, lying)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(sorted({k for k in map(kind_word, self.things) if k}))

    @property
    def movers(self) -> dict[str, str]:
        """The things the robot can move (spoken form -> name)."""
        return {f: n for f, n in self.things.items() if n not in self.fixed}

    @property
    def mover_kinds(self) -> tuple[str, ...]:
        return tuple(sorted({k for k in map(kind_word, self.movers) if k}))

    @property
    def bowls(self) -> bool:
        """Whether ``the same color bowl`` and ``a different color bowl`` mean something
        here: there are bowls and other objects with colours."""
        return any(f.endswith(" bowl") for f in self.things) and \
            any(not f.endswith(" bowl") for f in self.things)

    @property
    def targets(self) -> dict[str, str]:
        """Everything a ``<where>`` may name: the things, then the places."""
        return {**self.things, **{f: n for f, n in self.places.items() if f not in self.things}}

    def spoken(self, name: str | None) -> str:
        """How ``name`` is said (its own text where this vocabulary does not know it)."""
        if name is None:
            return "none"
        for forms in (self.things, self.places, self.locations):
            for form, known in forms.items():
                if known == name:
                    return form
        return name

    def names(self) -> list[str]:
        return list(self.things.values()) + list(self.places.values())

    def of_kind(self, kind: str) -> list[str]:
        """The things of ``kind`` (:func:`kind_word` of their spoken form)."""
        return [name for form, name in self.things.items() if kind_word(form) == kind]

    def key(self) -> tuple:
        """What identifies this vocabulary (a reading is cached per utterance and key)."""
        return (tuple(self.things.items()), tuple(self.places.items()),
                tuple(self.locations.items()), self.me, self.show_places, self.fixed,
                tuple(sorted(self.lying.items())))

    def scene_line(self) -> str:
        """The scene as the reading prompt shows it."""
        parts = [", ".join(self.things)]
        if self.places and self.show_places:
            parts.append("places: " + ", ".join(self.places))
        if self.locations:
            parts.append("rooms: " + ", ".join(f for f in self.locations
                                               if f not in self.places))
        return "; ".join(p for p in parts if p and p != "rooms: ")


def split_household(listed: Iterable[str]) -> tuple[list[str], list[str]]:
    """(things, surfaces) of a humanoid ``list_objects()`` listing: a surface is ``on_<x>``."""
    listed = list(listed)
    return ([n for n in listed if not n.startswith(SURFACE_PREFIX)],
            [n for n in listed if n.startswith(SURFACE_PREFIX)])


__all__ = ["ReadingVocabulary", "spoken_form", "kind_word", "split_household", "SURFACE_PREFIX",
           "NAV_PREFIX", "LOCATION_WORDS"]

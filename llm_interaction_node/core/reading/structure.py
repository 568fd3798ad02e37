"""The typed reading of what a user said: clauses of a few kinds, each with the objects meant
and where they go.

A reading is what the model reads from one utterance (:mod:`.reader`), written in a small
line language the grammar (:mod:`.grammar`) allows and :func:`parse` turns back into these
types; the code computes with it (:mod:`.select`: which objects a selection means in a scene,
where a target is). The names in a reading are the scene's own names (``'mango-juice_0'``);
the model writes and reads their spoken forms (:class:`~.vocabulary.ReadingVocabulary`).

The line language, one clause per line (``- `` before each in the prompt)::

    do: <objects> -> <where>            what the user wants done: a request, or, in a reply,
                                        what is not done yet (a thing forgotten, left out, or
                                        in the wrong place: where it goes)
    wrong object                        the robot took the wrong one (the one meant, if said,
                                        is a ``do`` clause beside it)
    retry: <objects>                    it failed or was dropped: do that again
    done                                approval, thanks, closing ("perfect", "that's all")
    learn                               remember this for the future
    stop                                stop now
    forget: <objects>                   forget what was learned (about these)
    faster: <from> -> <to>              drive faster on a route (``anywhere`` as an end)
    slower: <from> -> <to>
    hand: left | right | both | other   which hand (both at once; other: not the one it used)
    also: <objects> with <objects>      bring the first along whenever the second
    ask first                           ask before doing it
    question                            the user asks something
    other                               none of these

    <objects>: none | <name> (and <name>)* | every <kind> | the <kind> left of <name>
               | the <kind> right of <name> | the <kind> above <name> | the <kind> below <name>
               | the <kind> nearest to <name> | the <kind> farthest from <name>
               | the <kind> number <n> from the <left|right|top|bottom>
    <where>:   none | <name> | <place> | the same color bowl | a different color bowl | me
               | elsewhere
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

# clause kinds whose line is "<kind>: <objects> -> <where>". A thing still missing and a thing
# in the wrong place are one kind, "do" (what is to be done): measured on the development pool,
# the 1.5B model told them apart in 3 of 17 sentences, and nothing that acts on a reading needs
# the difference (both say which objects go where). "wrong object" is a bare clause, the object
# meant a "do" beside it: measured, after "wrong object:" the model filled the slot with a
# relation nobody said ("Wrong cube." -> "the block number 1 from the left")
MOVES = ("do",)
SPEEDS = ("faster", "slower")
BARE = ("wrong object", "done", "learn", "stop", "ask first", "question", "other")
KINDS = MOVES + ("retry", "forget") + SPEEDS + ("hand", "also") + BARE
CORRECTIONS = ("wrong object", "retry")
LASTING = ("also", "ask first")   # kinds that are a lesson by what they say
# a lesson's conditions, not part of what its request asks (core/memory/meaning.py; lessons
# stored before they were habits): "also bring the juice with the milk" is a habit now (an
# edit after the hand-over of the milk), as "always ask before you take the juice" (an edit
# before the grasp of the juice, core/learning/habit.py)
CONDITIONS = ("also", "ask first")
SIDES = ("left", "right", "top", "bottom")
# how a side relation is said in the line language, and back
SIDE_WORDS = {"left": "left of", "right": "right of", "top": "above", "bottom": "below"}
DISTANCES = {"nearest": "nearest to", "farthest": "farthest from"}
# "other" is the hand the robot did not use: which one that is, the code knows (what each hand
# holds, core/learning/hand.py), the words do not ("the other hand, please")
HANDS = ("left", "right", "both", "other")
SAME_COLOR = "the same color bowl"
OTHER_COLOR = "a different color bowl"
ME = "me"
ELSEWHERE = "elsewhere"
NONE = "none"
ANYWHERE = "anywhere"


@dataclass(frozen=True)
class Selection:
    """Which objects are meant.

    ``how``: ``named`` (``names``), ``every`` (every
    ``kind``), ``side`` (the ``kind`` on the ``side`` of ``reference``: the nearest of those
    on that side), ``nearest`` / ``farthest`` (the ``kind`` nearest to / farthest from
    ``reference``), ``nth`` (the ``nth`` ``kind`` counted from the ``side`` edge, 1-based)."""

    how: str
    names: tuple[str, ...] = ()
    kind: str | None = None
    side: str | None = None
    reference: str | None = None
    nth: int | None = None

    def render(self, spoken=str) -> str:
        """The line language's text (``spoken``: a name as the model writes it)."""
        if self.how == "named":
            return " and ".join(spoken(n) for n in self.names)
        if self.how == "every":
            return f"every {self.kind}"
        if self.how == "side":
            return f"the {self.kind} {SIDE_WORDS[self.side]} {spoken(self.reference)}"
        if self.how in DISTANCES:
            return f"the {self.kind} {DISTANCES[self.how]} {spoken(self.reference)}"
        if self.how == "nth":
            return f"the {self.kind} number {self.nth} from the {self.side}"
        raise ValueError(f"unknown selection {self.how!r}")


def names_said(selection: Selection | None) -> tuple[str, ...]:
    """The names a selection says outright (empty for a relation, a kind, or none)."""
    return selection.names if selection is not None and selection.how == "named" else ()


def named_things(reading: Reading | None) -> tuple[str, ...]:
    """The things a reading's ``do`` clauses name outright, each once, in order (none for a
    relation, a kind, ...)."""
    if reading is None:
        return ()
    return tuple(dict.fromkeys(name for clause in reading.clauses if clause.kind == "do"
                               for name in names_said(clause.objects)))


@dataclass(frozen=True)
class Target:
    """Where objects go: ``named`` (``name``: a scene name or a named place), ``same color``
    (the bowl of each object's colour), ``other color`` (a bowl of another colour), ``me``
    (handed to the user), ``elsewhere`` (a point no name gives: an offset, a line)."""

    how: str
    name: str | None = None

    def render(self, spoken=str) -> str:
        return {"named": lambda: spoken(self.name), "same color": lambda: SAME_COLOR,
                "other color": lambda: OTHER_COLOR, "me": lambda: ME,
                "elsewhere": lambda: ELSEWHERE}[self.how]()


@dataclass(frozen=True)
class Clause:
    """One thing the user said (see the module docstring for the kinds). ``route``: the two
    ends of a route (None: anywhere); ``hand``: left / right / both / other; ``companion``: for
    ``also``, what the objects come with."""

    kind: str
    objects: Selection | None = None
    where: Target | None = None
    route: tuple[str | None, str | None] | None = None
    hand: str | None = None
    companion: Selection | None = None

    def render(self, spoken=str) -> str:
        def objects(s: Selection | None) -> str:
            return s.render(spoken) if s is not None else NONE

        if self.kind in MOVES:
            where = self.where.render(spoken) if self.where is not None else NONE
            return f"{self.kind}: {objects(self.objects)} -> {where}"
        if self.kind in ("retry", "forget"):
            return f"{self.kind}: {objects(self.objects)}"
        if self.kind in SPEEDS:
            a, b = self.route or (None, None)
            return f"{self.kind}: {spoken(a) if a else ANYWHERE} -> {spoken(b) if b else ANYWHERE}"
        if self.kind == "hand":
            return f"hand: {self.hand}"
        if self.kind == "also":
            return f"also: {objects(self.objects)} with {objects(self.companion)}"
        return self.kind


@dataclass(frozen=True)
class Reading:
    """The clauses the model read from ``utterance`` (in the order said)."""

    utterance: str
    clauses: tuple[Clause, ...] = field(default_factory=tuple)

    def render(self, spoken=str) -> str:
        return "\n".join(c.render(spoken) for c in self.clauses)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(c.kind for c in self.clauses)

    def of_kind(self, *kinds: str) -> list[Clause]:
        return [c for c in self.clauses if c.kind in kinds]

    # what the agent and the learner ask of a reading
    @property
    def asks_to_learn(self) -> bool:
        """A ``learn`` clause, or a lasting rule (``also``: "always bring the first along with
        the second" is a lesson by what it says; measured, "from now on, bring the sponge along
        with the cleaning spray" was read as ``also`` without ``learn``; ``ask first``: "always
        ask me before you take the juice")."""
        return "learn" in self.kinds or any(k in LASTING for k in self.kinds)

    @property
    def asks_to_forget(self) -> bool:
        return "forget" in self.kinds

    @property
    def closes(self) -> bool:
        """Approval or thanks and nothing more to do (learning aside): the robot may hand back."""
        return bool(self.clauses) and all(k in ("done", "learn") for k in self.kinds)

    @property
    def only_learn(self) -> bool:
        """A request to learn that says nothing a lesson could show (no objects, places,
        speeds, hands): "perfect, make a note of that"."""
        return self.asks_to_learn and self.closes

    @property
    def rejects_choice(self) -> bool:
        """The user says the robot took the wrong object."""
        return "wrong object" in self.kinds

    @property
    def asks_again(self) -> bool:
        """The user asks for what was tried to be done again (it failed or fell)."""
        return "retry" in self.kinds

    @property
    def moves(self) -> list[Clause]:
        """The clauses that say what goes where (requests and corrections)."""
        return self.of_kind(*MOVES)

    def with_moves(self, change: Callable[[Clause], Clause]) -> Reading:
        """This reading with each move clause as ``change`` makes it; itself where none
        changes."""
        moves = {id(c) for c in self.moves}
        clauses = tuple(change(c) if id(c) in moves else c for c in self.clauses)
        return self if clauses == self.clauses else replace(self, clauses=clauses)

    @property
    def speed(self) -> Clause | None:
        found = self.of_kind(*SPEEDS)
        return found[0] if found else None


__all__ = ["Selection", "names_said", "Target", "Clause", "Reading", "KINDS", "MOVES",
           "CORRECTIONS", "CONDITIONS", "LASTING", "SIDES",
           "SIDE_WORDS", "DISTANCES", "HANDS", "SPEEDS", "BARE", "SAME_COLOR", "OTHER_COLOR",
           "ME", "ELSEWHERE", "NONE", "ANYWHERE"]

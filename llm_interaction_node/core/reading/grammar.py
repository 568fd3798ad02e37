"""The grammar of a reading in one scene: the model can only write a well-formed reading that
names what exists.

:func:`reading_gbnf` renders the line language of :mod:`.structure` as a llama.cpp GBNF
grammar over a :class:`~.vocabulary.ReadingVocabulary`: each ``<name>`` is one of the scene's
spoken forms, the objects to move only those the robot can move (a bowl on the tabletop is a
reference or a target, never moved: measured, "not in the green bowl, in the red bowl" was
read as moving the red bowl), each ``<kind>`` one of theirs, routes end at its locations. The
prompt ends with ``reading:\\n-``; the grammar is the rest (a space first): one to
:data:`MAX_CLAUSES` clauses, one per line, then an empty line, as after each example (the
model ends a reading the way it saw them end; measured: with one line end only it wrote three
clauses every time). The embedded model decodes under it (llguidance); an endpoint takes it
where it can (``llm.endpoint_grammar``), and :func:`.parse.parse` checks what comes back either
way.
"""
from __future__ import annotations

from .structure import (
    BARE,
    DISTANCES,
    ELSEWHERE,
    HANDS,
    ME,
    NONE,
    OTHER_COLOR,
    SAME_COLOR,
    SIDE_WORDS,
    SIDES,
    SPEEDS,
)
from .vocabulary import ReadingVocabulary

MAX_CLAUSES = 3
# a name may follow an article, as the user said it ("the orange block"): measured, without it
# the model's " the" could only start a relation ("the block farthest from ...")
ARTICLES = ("the ", "a ", "an ", "my ")
MAX_COUNT = 9            # "the block number <n> from the left": n in 1..9


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _choice(options) -> str:
    options = list(dict.fromkeys(options))
    return " | ".join(_literal(o) for o in options) if options else '"\\x00"'


def reading_gbnf(vocabulary: ReadingVocabulary) -> str:
    """The GBNF grammar of a reading's clauses after ``reading:\\n-`` (see the module)."""
    more = '("\\n- " clause' * (MAX_CLAUSES - 1) + ")?" * (MAX_CLAUSES - 1)
    return _grammar(f'root ::= " " clause {more} "\\n\\n"', vocabulary)


def move_rest_gbnf(vocabulary: ReadingVocabulary) -> str:
    """The grammar of the rest of one ``do`` line after ``- do:``, the reading's last
    (:mod:`.omission`: the model, asked, says the user named the one meant)."""
    return _grammar('root ::= " " objects " -> " where "\\n\\n"', vocabulary)


def also_rest_gbnf(vocabulary: ReadingVocabulary) -> str:
    """The grammar of the rest of one ``also`` line after ``- also:`` (:mod:`.asked_hand`: a
    reply's "both" the model, asked, says is no hand): one thing with one thing (measured:
    with ``objects`` the model wrote "cleaning spray and kitchen sponge and mineral water and
    ..." until the token limit)."""
    return _grammar('root ::= " " mover " with " mover "\\n\\n"', vocabulary)


def _grammar(root: str, vocabulary: ReadingVocabulary) -> str:
    targets = list(vocabulary.targets)
    extra = [SAME_COLOR, OTHER_COLOR] if vocabulary.bowls else []
    extra += [ME] if vocabulary.me else []
    relations = [*SIDE_WORDS.values(), *DISTANCES.values()]
    rules = [
        root,
        "clause ::= move | retry | forget | speed | hand | also | bare",
        'move ::= "do: " objects " -> " where',
        'retry ::= "retry: " objects',
        'forget ::= "forget: " objects',
        f'speed ::= ({_choice(SPEEDS)}) ": " end " -> " end',
        f'hand ::= "hand: " ({_choice(HANDS)})',
        'also ::= "also: " objects " with " objects',
        f"bare ::= {_choice(BARE)}",
        f'objects ::= "{NONE}" | mover (" and " mover)* | "every " kind '
        f'| "the " kind " " relation " " thing '
        f'| "the " kind " number " [1-{MAX_COUNT}] " from the " side',
        f"relation ::= {_choice(relations)}",
        f"side ::= {_choice(SIDES)}",
        f'where ::= "{NONE}" | "{ELSEWHERE}" | target'
        + (f" | {_choice(extra)}" if extra else ""),
        f"thing ::= article? ({_choice(vocabulary.things)})",
        f"mover ::= article? ({_choice(vocabulary.movers)})",
        f"target ::= article? ({_choice(targets)})",
        f"kind ::= {_choice(vocabulary.mover_kinds or ['object'])}",
        'end ::= "anywhere"' + (f" | article? ({_choice(vocabulary.locations)})"
                                if vocabulary.locations else ""),
        f"article ::= {_choice(ARTICLES)}",
    ]
    return "\n".join(rules) + "\n"


__all__ = ["reading_gbnf", "move_rest_gbnf", "also_rest_gbnf", "MAX_CLAUSES", "MAX_COUNT",
           "ARTICLES"]

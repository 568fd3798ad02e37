"""Mismatch diagnosis shared by the templates: what a person sees is wrong after a failed round
(a block left behind, put elsewhere, the wrong block taken), as :class:`~..observe.Fact` records."""
from __future__ import annotations

from collections.abc import Callable

from ..observe import Fact, Positions, base_where, moved_objects, place_phrase, where


def misplaced(names, initial: Positions, final: Positions, wanted: str,
              anonymous: bool = False, by_place: bool = False) -> list[Fact]:
    """For objects not where ``wanted``: ``missing`` if the robot left them, else
    ``wrong_place`` with where they ended (``anonymous``: without naming them; ``by_place``:
    a block in a stack is where the stack stands)."""
    moved = set(moved_objects(initial, final))
    out = []
    for n in names:
        objects = () if anonymous else (n,)
        if n in moved:
            at = base_where(n, final) if by_place else where(n, final)
            out.append(Fact("wrong_place", objects, at, wanted))
        else:
            out.append(Fact("missing", objects, where(n, final), wanted))
    return out


def moved_blocks(initial: Positions, final: Positions) -> list[str]:
    return [n for n in moved_objects(initial, final) if n.endswith(" block")]


def named_block_mismatch(block: str, initial: Positions, final: Positions,
                         wanted: str) -> list[Fact]:
    """The named ``block`` is not ``wanted``: where it is, and which other block was moved
    in its place."""
    facts = misplaced([block], initial, final, wanted)
    if facts[0].kind == "missing":
        facts += [Fact("extra", (b,), where(b, final), f"the {block}")
                  for b in moved_blocks(initial, final) if b != block]
    return facts


def selected_mismatch(meant: str | None, describe: Callable[[str], tuple[str, str]],
                      place: str, initial: Positions, final: Positions,
                      start: Positions | None) -> list[Fact]:
    """For a selection task (the block meant by a relation goes to ``place``): a block other
    than the meant one was taken -> ``wrong_block`` with what it is (``describe`` gives
    (what it is, what was asked)); the meant block ended elsewhere -> ``wrong_place``. The
    meant block is never named."""
    moved = moved_blocks(initial, final)
    if meant in moved:
        return misplaced([meant], initial, final, place_phrase(place), anonymous=True,
                         by_place=True)
    this_round = moved_blocks(start, final) if start is not None else []
    wrong = [b for b in this_round + moved if b != meant]
    if not wrong:
        return [Fact("missing", (), "", place_phrase(place))]
    what, asked = describe(wrong[0])
    return [Fact("wrong_block", (), where(wrong[0], final), asked, what)]

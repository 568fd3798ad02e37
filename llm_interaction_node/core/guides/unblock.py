"""Unblock first (``agent.unblock_first``): after a move refused because another object lies
on the one named (``errors.BlockedError``: "cannot pick ...: ... lies on top of it"), the next
input moves that object (grammar only): the move function may only take the blocker, to any
place but the two, what lies where they lie and where the readings want things. Measured: the
1.5B model repeated the refused move up to 8 times in one interaction, the hint unread; the
blocker put back into the bowl of the pile covered the block again."""
from __future__ import annotations

import logging

from ..decoding.constraint import ConsoleVocabulary, names_to_say
from ..decoding.correction import Focus
from .state import Guidance, GuideState

log = logging.getLogger(__name__)


def unblock_focus(state: GuideState, vocabulary: ConsoleVocabulary) -> Focus | None:
    """After a move refused because ``blocker`` lies on the object it named: the move
    function may only take ``blocker``, to any place but the two and what lies where
    they lie (``unblock_first``; measured: the blocker put back into the bowl of the
    pile covered the block again)."""
    blocked, move = state.blocked, state.console.api.move_function()
    if blocked is None or move is None:
        return None
    function, spec = move
    try:
        names = list(dict.fromkeys(vocabulary.scene_names()))
    except Exception as exc:  # noqa: BLE001 - no scene: the names stay free
        log.warning("no unblocking move: the scene's names are unknown (%s)", exc)
        return None
    if blocked.blocker not in names:
        return None
    mislaid = {blocked.blocked, blocked.blocker, *blocked.around}   # back onto the pile
    mislaid |= state.wanted_targets()      # nor where the user wants things to go
    targets = tuple(t for t in dict.fromkeys(names_to_say(state.console.api, names))
                    if t not in mislaid)
    log.info("%s lies on %s: the next input moves it (%d targets)", blocked.blocker,
             blocked.blocked, len(targets))
    return Focus(function.name, spec, (blocked.blocker,), targets, free_targets=True)


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance | None:
    focus = unblock_focus(state, vocabulary)
    return Guidance(focus=focus, move_now=True) if focus is not None else None

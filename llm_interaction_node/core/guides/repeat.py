"""The repeat note (``agent.repeat_notes``, ``agent.repeat_actions_only``): a turn about to
redo, statement for statement, the attempt the user just answered gets a note in place of the
statement that completes the copy (a small model copies its last turn after a correction),
this often per turn; then it runs (0: the reference's rule). With ``repeat_actions_only`` the
comparison takes actions only: statements that only query (``get_obj_names()``, ...) are left
out of both attempts. A wanted repeat ("you dropped it, try again", a reply read as
``retry``) gets no note. After the answer: the agent notes instead of running."""
from __future__ import annotations

import ast
from collections.abc import Sequence

from ..transcript.statements import code_lines
from .calls import WAIT
from .state import GuideState


def actions(state: GuideState, statements: Sequence[str]) -> list[str]:
    """The statements without comment lines, blank ones and hand-backs, and (with
    ``repeat_actions_only``) without those that only query: whitespace-normalised."""
    queries = state.console.api.queries if state.config.repeat_actions_only else None
    out = []
    for source in statements:
        code = " ".join(" ".join(line.split()) for line in code_lines(source))
        if code and code != WAIT and not (queries is not None
                                          and only_queries(source, queries, state.console.api)):
            out.append(code)
    return out


def repeats_the_answered_attempt(state: GuideState, source: str) -> bool:
    """Running ``source`` would complete, statement for statement, the attempt that the
    user's last utterance answered (comments and the hand-back left out): after a
    correction a small model copies its last turn instead of acting on the words. A
    wanted repeat ("you dropped it, try again") is only delayed: the note comes once."""
    attempt = state.answered
    reply = state.reply_reading()
    if reply is not None and reply.asks_again:
        return False                     # "you dropped it, try again": the repeat is wanted
    return bool(attempt) and actions(state, state.turn.statements + [source]) == attempt


def only_queries(source: str, queries: frozenset[str], api) -> bool:
    """Whether ``source`` calls no API function but queries (``get_obj_names()``, ...)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    called = {n.func.id for n in ast.walk(tree)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in api}
    return called <= queries

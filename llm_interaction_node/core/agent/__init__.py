"""The interaction loop (L_interact) and its parts, by concept: :class:`~.loop.Agent` (ask the
LLM for a statement, run it, repeat), one LLM call with the grammar of the decoding guides
(:mod:`.generate`; the guides themselves: :mod:`..guides`), how a turn ends (:mod:`.endings`)
and what it records (:mod:`.records`), the per-turn limits on what the LLM may get wrong
(:mod:`.limits`: error budgets, loop detection, the statement cap), the task's memory
(:mod:`.task`), the readings of the user's words (:mod:`.readings`), the examples and the
prefills of a stateful LLM (:mod:`.prefill`), the functions a statement calls that nobody
defined, written by a second prompt first (:mod:`.fgen`), and the ``agent`` settings section
(:mod:`.config`). The names other modules import from ``core.agent`` are re-exported here.
"""
from ..guides.calls import FORGET_ONLY_ASKED, LEARN_CALL, LEARN_FUNCTION, WAIT, WAIT_FUNCTION
from ..transcript.notes import LOOP_NOTE, REPEAT_NOTE
from .config import AgentConfig
from .endings import SORRY, STOPPED
from .loop import Agent
from .prefill import ExampleSource, fitting_examples
from .records import FAILED_STATUSES, TurnRecord, TurnStatus

__all__ = ["FAILED_STATUSES", "FORGET_ONLY_ASKED", "LEARN_CALL", "LEARN_FUNCTION", "LOOP_NOTE",
           "REPEAT_NOTE", "SORRY", "STOPPED", "WAIT", "WAIT_FUNCTION", "Agent", "AgentConfig",
           "ExampleSource", "TurnRecord", "TurnStatus", "fitting_examples"]

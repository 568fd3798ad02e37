"""Learning from interaction (F_learn): the gate, the modes that build a lesson, the learner.

A *lesson* is what a learn request stores in the memory (:class:`Lesson`).

* :mod:`.gate` - is a learn call honoured now? (its position; the model's reading of the reply)
* :mod:`.transcripts` - cutting an interaction into the pieces a lesson is built from
* :mod:`.improve` - L_improve (``improve.improve`` gives an ImproveResult; the package
  attribute ``improve`` is the module, not that function): problem, improvement, rewrite
* :mod:`.validation` - whether a rewrite may be stored (console transcript, sandbox, names)
* :mod:`.shape` - a rewrite must answer the request the improved way in its first turn
* the modes, each a module with its store function: :mod:`.auto` (the default: L_improve's
  rewrite, else the ``final`` lesson), :mod:`.rewrite` (mode ``improve``), :mod:`.final` (the
  request and only the attempt the user accepted, replayed), :mod:`.corrected` (the request,
  what worked, the corrections as comments), :mod:`.raw` (the interaction itself)
* :mod:`.replay_check` - the protocol of the replay check a lesson must pass
* :mod:`.outcome` - what a learn request did (:class:`LearnOutcome`, :class:`LearnStatus`,
  :class:`Lesson`)
* :mod:`.learner` - :class:`Learner`, the hook ``learn_from_interaction()`` calls: checks,
  stores, speaks; the table of modes (``STORES``)
"""
from .gate import GateDecision, accepts
from .improve_result import Improvement, ImproveResult, ImproveStatus
from .learner import LEARNING_DISABLED, Learner
from .outcome import Lesson
from .validation import InvalidTranscript, validate_transcript

__all__ = [
    "GateDecision", "accepts",
    "Improvement", "ImproveResult", "ImproveStatus", "InvalidTranscript",
    "validate_transcript",
    "Learner", "Lesson", "LEARNING_DISABLED",
]

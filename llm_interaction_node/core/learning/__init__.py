"""Learning from interaction (F_learn): the gate, L_improve and the console's learner hook.

* :mod:`.gate` - did the user explicitly ask to learn? (:func:`is_learning_request`)
* :mod:`.improve` - L_improve (``improve.improve`` gives an ImproveResult; the package
  attribute ``improve`` is the module, not that function): problem, improvement, improved transcript, validated
* :mod:`.shape` - a rewrite must answer the request the improved way in its first turn
* :mod:`.auto` - mode ``auto`` (the default): L_improve's rewrite, else the ``final`` example
* :mod:`.corrected` - mode ``corrected``: the request, what worked, the corrections as comments
* :mod:`.final` - mode ``final``: the request and only the attempt the user accepted, replayed
* :mod:`.replay_check` - the protocol of the replay check a learned example must pass
* :mod:`.outcome` - what a learn request did (:class:`LearnOutcome`, :class:`LearnStatus`)
* :mod:`.learner` - :class:`Learner`, the hook ``learn_from_interaction()`` calls; the table
  of modes (``STORES``)
"""
from .gate import GateDecision, explain, is_learning_request
from .improve import (Improvement, ImproveResult, ImproveStatus, InvalidTranscript,
                      validate_transcript)
from .learner import LEARNING_DISABLED, Learner, LearnedExample

__all__ = [
    "GateDecision", "explain", "is_learning_request",
    "Improvement", "ImproveResult", "ImproveStatus", "InvalidTranscript",
    "validate_transcript",
    "Learner", "LearnedExample", "LEARNING_DISABLED",
]

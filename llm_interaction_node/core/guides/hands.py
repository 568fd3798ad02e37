"""The change of hands (always on; it acts on a reply read as a hand only): where the robot
stands at a surface holding the thing in another hand than the reply asks for, the code
writes the change statement by statement as the required statements
(:func:`..learning.hand.change_of_hands`: ``place_object`` there, ``grasp`` with the asked
hand), until an input of the turn fails. "The other hand" is resolved against what the hands
hold now (:func:`..learning.hand.resolved`), and a bare complaint to an attempt holding the
request's thing in another hand than the request said asks for the request's hand
(:func:`..learning.hand.with_unmet_hand`). Measured on the household correction bench
(issue 44): the wrong-hand situations were put right 0 of 4 times; nothing acted on the hand
the reply named, and where the model was told to grasp with the left, it grasped another thing
("The other hand, please." -> ``grasp('coffee-cup_0', 'right')`` while the juice stayed in the
left). The agent computes the program once a turn (:func:`plan`); the guide gives its next
statement."""
from __future__ import annotations

import logging

from ..decoding.constraint import ConsoleVocabulary
from ..decoding.lesson_follow import LessonPlan
from ..learning.hand import change_of_hands, holding_of, resolved, with_unmet_hand
from ..learning.route import destination
from ..transcript.transcript import Entry
from .state import Guidance, GuideState

log = logging.getLogger(__name__)


def plan(state: GuideState) -> LessonPlan | None:
    """The program that holds the thing in the hand the reply asks for
    (:func:`..learning.hand.change_of_hands`), with "the other hand" resolved against what
    the hands hold now (:func:`..learning.hand.resolved`) and a bare complaint read as the
    request's hand where that is what the attempt missed (``with_unmet_hand``); None where
    there is none. The reply's reading is kept so resolved (``state.keep_reply_reading``): the
    turn's grasps take that hand (:func:`.as_asked.as_asked`)."""
    reply = state.reply_reading()
    request = state.readings[0] if state.readings else None
    if reply is None or not (reply.of_kind("hand") or request and request.of_kind("hand")):
        return None
    holding = holding_of(state.console.api)
    reply = with_unmet_hand(request, resolved(reply, holding), holding)
    state.keep_reply_reading(reply)
    here = next((d for e in reversed(state.console.transcript.entries)
                 if not e.is_comment and (d := destination(e.source))), None)
    program = change_of_hands(reply, holding, here)
    return LessonPlan("", program) if program else None


def decide(state: GuideState, vocabulary: ConsoleVocabulary, so_far: Guidance) -> Guidance | None:
    if so_far.required is not None:
        return None
    if state.hand_change is not None and not state.turn_failed:
        done = [s for s in state.turn.statements if not Entry(s).is_comment]
        statement = state.hand_change.next_after(done)
        if statement is not None:
            log.info("the user asked for the other hand: the code writes %s", statement)
            return Guidance(required=statement)
    return None

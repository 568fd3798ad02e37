"""The decoding guides in the order the agent composes them (:func:`guidance`), each with the
``AgentConfig`` switch that turns it on, and the composition written into a statement's
vocabulary (:func:`guide`). The order matters: the hand-back and the move read ``must_act``,
the move reads the correction's focus, the first required statement stands (the learn call,
then the change of hands, then the lesson; no question is left out where a lesson's statement is
required), and unblocking replaces the correction's focus."""
from __future__ import annotations

from ..decoding.constraint import ConsoleVocabulary
from .act import decide as act_on_correction
from .comments import decide as comments_in_a_row
from .focus import decide as correction_focus
from .forget import decide as forget_only_asked
from .hand_back import decide as no_bare_hand_back
from .hands import decide as change_of_hands
from .learn import decide as learn_on_request
from .learn_withheld import decide as learn_only_asked
from .lessons import decide as follow_lessons
from .move_now import decide as move_after_correction
from .needless_question import decide as no_needless_question
from .speech import decide as say_what_happened
from .state import Guidance, Guide, GuideState
from .unblock import decide as unblock_first

GUIDES: tuple[Guide, ...] = (
    Guide("correction focus", "correction_focus", correction_focus),
    Guide("act on correction", "act_on_correction", act_on_correction),
    Guide("forget only when asked", None, forget_only_asked),
    Guide("learn only when asked", None, learn_only_asked),
    Guide("no bare hand-back", "act_on_correction", no_bare_hand_back),
    Guide("learn on request", "learn_on_request", learn_on_request),
    Guide("change of hands", None, change_of_hands),
    Guide("follow lessons", "follow_lessons", follow_lessons),
    Guide("no needless question", "no_needless_question", no_needless_question),
    Guide("move after correction", "move_after_correction", move_after_correction),
    Guide("comments in a row", "comments_in_a_row", comments_in_a_row),
    Guide("say what happened", "say_what_happened", say_what_happened),
    Guide("unblock first", "unblock_first", unblock_first),
)


def guidance(state: GuideState, vocabulary: ConsoleVocabulary,
             guides: tuple[Guide, ...] = GUIDES) -> Guidance:
    """What the guides that are on decide for the next console input, in their order."""
    composed = Guidance()
    for one in guides:
        if one.on(state.config):
            composed = composed.then(one.decide(state, vocabulary, composed))
    return composed


def guide(state: GuideState, vocabulary: ConsoleVocabulary) -> Guidance:
    """Write the guides' restriction into ``vocabulary`` (the statement's grammar); returned
    too."""
    composed = guidance(state, vocabulary)
    vocabulary.focus = composed.focus
    vocabulary.withheld = composed.withheld
    vocabulary.required = composed.required
    vocabulary.move_now = composed.move_now
    vocabulary.comment_allowed = composed.comment_allowed
    if composed.speech is not None:
        vocabulary.speech = composed.speech
        vocabulary.speech_refusal = composed.speech_refusal
    return composed

"""The learning gate: a learn call is honoured right after the user's reply (the reference's
position rule) and only where the model read that reply as a request to learn; no rule over
the user's words decides (the words of a reply read two ways give two decisions)."""
import pytest

from llm_interaction_node.core.learning.gate import accepts, follows_user_reply
from llm_interaction_node.core.reading import Clause, Reading
from llm_interaction_node.core.transcript import Entry

REPLY = "Perfect, please keep that in mind for the future."
ANSWERED = [Entry("wait_for_trigger()", repr({"type": "dialog", "text": "bring me the juice"})),
            Entry("grasp('mango-juice_0')", "'success'"),
            Entry("wait_for_trigger()", repr({"type": "dialog", "text": REPLY}))]


def reading(*kinds: str) -> Reading:
    return Reading(REPLY, tuple(Clause(k) for k in kinds))


def test_the_call_must_follow_the_reply_comments_and_say_aside():
    assert follows_user_reply(ANSWERED)
    assert follows_user_reply(ANSWERED + [Entry("# noted"), Entry("say('ok')", "")])
    assert not follows_user_reply(ANSWERED + [Entry("grasp('coffee-cup_0')", "'success'")])
    assert not follows_user_reply(ANSWERED[:2])
    assert not follows_user_reply([Entry("wait_for_trigger()")])          # no reply yet


@pytest.mark.parametrize("kinds, honoured", [
    (("learn",), True),
    (("done", "learn"), True),
    (("learn", "faster"), True),
    (("done",), False),                    # thanks alone
    (("missing",), False),                 # "you forgot the milk": a complaint, no lesson
    (("wrong object",), False),
    (("question",), False),
])
def test_the_reading_decides_right_after_the_reply(kinds, honoured):
    decision = accepts(ANSWERED, REPLY, reading(*kinds))
    assert decision.is_request is honoured and decision.rule == "reading"


def test_the_same_words_read_two_ways_give_two_decisions():
    """No rule over the words: the reply's text is the same, the model's reading differs."""
    assert accepts(ANSWERED, REPLY, reading("learn")).is_request
    assert not accepts(ANSWERED, REPLY, reading("done")).is_request


def test_without_a_reading_the_position_alone_decides_as_in_the_reference():
    assert accepts(ANSWERED, REPLY, None) == accepts(ANSWERED, "anything at all", None)
    assert accepts(ANSWERED, REPLY, None).is_request
    late = accepts(ANSWERED + [Entry("grasp('coffee-cup_0')", "'success'")], REPLY,
                   reading("learn"))
    assert not late.is_request and late.rule == "position"

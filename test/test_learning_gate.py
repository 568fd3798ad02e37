"""The learning gate: a learn call is honoured right after the user's reply (the reference's
position rule) and only where the model read that reply as a request to learn; no rule over
the user's words decides (the words of a reply read two ways give two decisions)."""
import pytest

from llm_interaction_node.core.learning.gate import accepts, follows_user_reply
from llm_interaction_node.core.reading import Clause, Reading
from llm_interaction_node.core.transcript.transcript import Entry

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


def test_an_approval_is_honoured_where_an_earlier_reply_of_the_task_asked_to_learn():
    """The agent holds back a request to learn said with a change still to make; the reply
    that accepts the change (read as done) is honoured as that request, and only then."""
    accepted = accepts(ANSWERED, REPLY, reading("done"), asked_before=True)
    assert accepted.is_request and accepted.rule == "accepted"
    assert not accepts(ANSWERED, REPLY, reading("done"), asked_before=False).is_request
    assert not accepts(ANSWERED, REPLY, reading("wrong object"), asked_before=True).is_request
    late = ANSWERED + [Entry("grasp('coffee-cup_0')", "'success'")]
    assert not accepts(late, REPLY, reading("done"), asked_before=True).is_request


ASKED = "and the cup, bring it too. remember that"
JUICE = "bring_object_to('mango-juice_0', 'handover_to_human')"
CUP = "bring_object_to('coffee-cup_0', 'handover_to_human')"


def held_back(memory, said, statements, asked_reads):
    """A console session on the household world: the juice brought, then ``ASKED`` (read as
    ``asked_reads``), then ``statements``; then learn_from_interaction()."""
    from learning_support import learning_session
    request = "could I have the juice please"
    s = learning_session([request, ASKED, *said], memory,
                         ["wait_for_trigger()", JUICE, "wait_for_trigger()", *statements],
                         mode="final", all_ok=True,
                         readings={request: "do: mango juice -> me", ASKED: asked_reads,
                                   **{x: "done" for x in said}})
    return s, s.console.execute("learn_from_interaction()").entry


def assert_learned_with_the_cup(s, entry, memory, rule):
    """The lesson is stored by the gate's ``rule``, holds the cup's move and the request to
    learn as its comment."""
    from llm_interaction_node.core.learning.learner import LearnStatus
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert s.learner.last_outcome.gate.rule == rule
    [example] = memory.list("final")
    assert f">>> {CUP}" in example.transcript.splitlines()
    assert f"# The user's lesson for this request: {ASKED!r}" in example.transcript


def test_the_learner_stores_the_accepted_attempt_after_the_request_it_held_back(memory):
    """Through the console and the learner (the household world, ChromaDB): the request to
    learn came with a change; after the change and "thanks" the lesson is the attempt that
    was accepted, and a second approval in the task stores nothing more."""
    thanks = "thanks, that's all"
    s, entry = held_back(memory, [thanks, thanks], [CUP, "wait_for_trigger()"],
                         "do: coffee cup -> none\nlearn")
    assert_learned_with_the_cup(s, entry, memory, "accepted")
    s.console.execute("wait_for_trigger()")
    again = s.console.execute("learn_from_interaction()").entry
    assert not s.learner.last_outcome.stored, again.output


def test_the_learn_call_right_after_the_change_a_request_to_learn_asked_for_is_honoured(memory):
    """"And the cup, bring it too. Remember that": the robot brings the cup, then calls
    learn_from_interaction() (the agent forces it once the change is made): the position rule
    gives way (rule "done first") and the lesson holds the change, the request as its comment."""
    s, entry = held_back(memory, [], [CUP], "do: coffee cup -> me\nlearn")
    assert_learned_with_the_cup(s, entry, memory, "done first")
    # a correction alone (no request to learn) still needs the position
    assert not accepts(ANSWERED + [Entry(CUP, "'success'")], ASKED,
                       Reading(ASKED, (Clause("do"),))).is_request

"""Which replies to an attempt close it (core/replies.py): the agent lets only those be
answered by a bare hand-back."""
import itertools

import pytest

from llm_interaction_node.core.replies import closes_the_attempt, rejects_the_choice
from llm_interaction_node.eval import simulated_user as U


@pytest.mark.parametrize("reply", ["Thanks!", "thank you", "Perfect, well done.", "Great job!",
                                   "never mind", "Nevermind.", "no thanks", "No, thank you.",
                                   "Thanks, that's all for now", "ok, thanks", "That's right."])
def test_thanks_praise_and_dismissal_close_the_attempt(reply):
    assert closes_the_attempt(reply)


@pytest.mark.parametrize("reply", ["", "no", "No, that is wrong.", "ok?", "thanks, but the cup too",
                                   "the red block is on the right",
                                   "Good, now bring me the cup.", "is that all?",
                                   "That is right now. Please keep that in mind for the future."])
def test_corrections_questions_and_new_requests_do_not(reply):
    assert not closes_the_attempt(reply)


def test_no_feedback_of_the_papers_simulated_user_reads_as_closing():
    """Every phrasing the simulated user answers a failure with (openers, closers, retries,
    solutions, the facts it names, filled with a block and a place) asks for more."""
    fill = dict(things="the gray block", Things="The gray block", it="it", they="it", is_="is",
                where="in the bottom right corner", wanted="in the green bowl",
                detail="the first block from the bottom", blocks="the gray block", sol="")
    facts = [t.replace("{is}", "is").format(**fill) for wording in U.FACT_WORDING.values()
             for t in wording]
    others = [t.replace("{is}", "is").format(**fill)
              for t in U.RETRY + U.SOLUTION + U.SOLUTION_DESTROYED]
    openers = [" ".join(p).strip() for p in itertools.product(U.OPENERS, U.CLOSERS)]
    said = [t for t in facts + others + openers if t.strip()]
    assert len(said) > 40
    assert [t for t in said if closes_the_attempt(t)] == []


@pytest.mark.parametrize("reply", [
    "You picked the blue block instead of the block left of the yellow bowl.",
    "The block you picked was a block below the yellow bowl.",
    "You did not take the block I meant. You took a block above the orange bowl.",
    "That was the green block, and I meant the one to the left.",
    "you took the wrong one", "that's not the cup I wanted"])
def test_a_reply_that_says_the_robot_took_the_wrong_object_rejects_the_choice(reply):
    assert rejects_the_choice(reply)


@pytest.mark.parametrize("reply", [
    "the red block is in the blue bowl, it belongs in the red bowl",
    "That is in the green bowl, not on the left side.", "you put it in the wrong corner",
    "you picked it up and dropped it", "Thanks!"])
def test_a_reply_about_where_things_went_rejects_no_choice(reply):
    assert not rejects_the_choice(reply)

"""The learning gate: explicit requests to learn are recognised, tasks with the words are not.

The labelled set below was written in three rounds: the first (the brief's cases and
more) was used to design the rules and thresholds; the second and third were written
afterwards, before looking at the gate's answers on them (first-look accuracy 84 % and
96 %), and the gate was then corrected on them. One label was reconsidered after the
first look: "never put glasses on the edge" is a standing rule (counted as a request).
"""
import pytest

from llm_interaction_node.core.learning import gate
from llm_interaction_node.core.learning.gate import asks_only_to_learn, explain, is_learning_request

POSITIVE = [
    # the brief's paraphrases
    "remember that",
    "thanks, but next time bring both at once, you have two hands - remember that",
    "keep that in mind for next time",
    "learn from your mistakes",
    "please memorize this",
    "next time do it like this, note that",
    "don't forget this in future",
    "well done, learn that for next time",
    "make a note of that for the future",
    # the paper's scenarios, reworded
    "ok, but that was quite slow. remember that the route from the table to the bench is safe, you "
    "can go faster",
    "Next time, please put everything directly on the table, and do it more efficiently by using "
    "both of your hands",
    "when I say serve, I mean that you should put it on the table",
    # more phrasings
    "Could you remember this for next time?",
    "please learn from this interaction",
    "Remember: when I say serve, I mean put it on the table",
    "store this as a lesson for later",
    "you should learn from this",
    "do not forget that next time",
    "memorise how you did that",
    "try to remember this in the future, ok?",
    "from now on always use both hands, please remember it",
    "please keep in mind that I take my coffee without sugar",
    "learn this",
    "good job! remember how you did it",
    "I want you to remember this for the future",
    "take note of that, please",
    "that's the right way, memorize it",
    "never forget that the red cup is mine",
    "from now on, when I ask for juice, also bring a glass",
    "remember to always use both hands when you carry two things",
    "Thanks! Remember this for the next time I ask.",
    "perfect, that's how it should be done. Learn that.",
    "in the future, bring the drinks to the table instead of handing them over",
    "you got it right this time, so please remember what you did",
    "Don\u2019t forget it: the blue bowl is on the left",
    "next time you should go faster on that route",
    "use both hands from now on",
    "whenever I ask for water, bring a glass as well",
    "learn to carry two things at once",  # decided by the embedding
    "you need to learn to hand things over more slowly",  # decided by the embedding
    "always ask before you move the ladder",
    # second round
    "ok good, please remember this for future tasks",
    "note to self for you: the sponge belongs on the sink",
    "try to learn from that",
    "so in future you go around the table on the left side",
    "keep this in memory",
    "i'd like you to remember that i hate cold coffee",
    "that was correct, remember it for next time please",
    "when I ask you to clean, always bring the sponge and the spray",
    "you should memorize where the ladder is",  # decided by the embedding
    "From now on please speak slower",
    "could you keep that in mind?",
    "save this lesson",
    "never put glasses on the edge",
    # third round
    "great, remember this next time",
    "please learn this for the future",
    "you must remember that the fridge door sticks",
    "from now on, put my keys in the bowl",
    "next time hand me the cup with the handle towards me",
    "in general, ask before grabbing things from my desk",
    "next time, check whether the glass is clean first",
    "whenever I say I'm thirsty, bring water",
    "keep in mind, the cat sleeps on the sofa",
    "learn from what happened just now",
    "nice, memorize this procedure",
    "I want you to learn that I prefer tea",
]

# Utterances that must never start learning: tasks and questions that merely contain the
# words, reminders for the current task, deferred one-off tasks, small talk, retractions.
MUST_NOT_LEARN = [
    "learn from the table which cup is mine",          # = find out from the table: a task
    "bring me the book 'Learn Python'",
    "do you remember where the cup is?",
    "I forgot my keys, can you find them",
    "next time is fine, just put it down",
    "remember to bring the cup now",                   # a reminder for this task, not a lesson
    "did you remember to close the fridge?",
    "forget it, never mind",
    "don't remember that, it was a one-off",
    "no need to learn anything from this",
    "stop, don't learn that",
    "see you next time!",
    "the next time you go to the kitchen, bring me a cup",
    "can you remember where the sponge is?",
    "I remember that the milk was on the table, can you check?",
    "don't forget to take the sponge",
    "please remember the milk",                        # decided by the embedding
    "next time you pass the fridge, grab me a soda",
    "let's do it next time",
    "can you learn the names of the things on the table",
]

NEGATIVE = MUST_NOT_LEARN + [
    "bring me the juice",
    "thanks, that was much quicker",
    "maybe next time",
    "put the notebook on the table",
    "bring me the \"Note to Self\" notepad",
    "what did you learn today?",
    "where is the memory stick?",
    "you have two hands, use both now",
    "thanks, but that was slow",
    "remember where you put my keys?",
    "learning is fun, bring me the textbook",
    "I don't mind, any cup is fine",
    "hand me the learning tablet from the shelf",
    "I always drink juice in the morning, can you get me some",
    "put the red block in the green bowl",
    "thank you, that is all",
    "that was wrong, try again and put it on the table",
    "can you find out which of the cups is mine",
    "next time I will do it myself",
    "ok, next time then",
    "mind the step",
    "whenever you are ready, bring the juice",
    "in the future, the cups will be in the cupboard",
    # second round
    "remember when we cleaned the kitchen? that was fun",
    "bring me the memory card",
    "what do you remember about the kitchen?",
    "do not put the cup on the table",
    "can you note the time",
    "i keep forgetting where my phone is, can you look for it",
    "next time around, the table will be moved",
    "go to the kitchen and learn which drinks are there",
    "the next time you see the cat, tell me",
    "please bring me the notes from the desk",
    "i learned that from my mother, now bring me the milk",
    "that's enough for now, thank you",
    # third round
    "remember? I told you yesterday",
    "bring me the remote",
    "the learning app is on my phone, bring it",
    "do you still remember my name?",
    "forgot the milk again? go get it",
    "next time is tomorrow",
    "you forgot the spoon",
    "can you help me remember my dentist appointment? put the card on the desk",
    "I never liked that cup",
    "mind your own business",
    "the note is on the fridge",
]


def test_the_labelled_set_is_big_enough():
    assert len(POSITIVE) >= 20 and len(NEGATIVE) >= 20
    assert len(set(POSITIVE) | set(NEGATIVE)) == len(POSITIVE) + len(NEGATIVE)


def test_accuracy_on_the_labelled_set():
    wrong = [(u, label, explain(u)) for label, items in ((True, POSITIVE), (False, NEGATIVE))
             for u in items if is_learning_request(u) != label]
    accuracy = 1 - len(wrong) / (len(POSITIVE) + len(NEGATIVE))
    assert accuracy >= 0.95, "\n".join(f"{label}: {u!r} -> {d}" for u, label, d in wrong)


@pytest.mark.parametrize("utterance", MUST_NOT_LEARN)
def test_no_false_positive_on_the_must_not_learn_subset(utterance):
    assert not is_learning_request(utterance), explain(utterance)


def test_the_embedding_decides_what_the_rules_leave_open():
    learn_to = explain("learn to carry two things at once")
    assert learn_to.rule == "embedding" and learn_to.is_request
    assert learn_to.positive_similarity - learn_to.negative_similarity >= gate.MARGIN
    milk = explain("please remember the milk")
    assert milk.rule == "embedding" and not milk.is_request


def test_retractions_veto_and_deterministic():
    assert explain("remember that... no wait, forget it").rule == "retraction"
    first = [is_learning_request(u) for u in POSITIVE + NEGATIVE]
    assert first == [is_learning_request(u) for u in POSITIVE + NEGATIVE]


def test_no_cue_no_embedding(monkeypatch):
    """Utterances without a word of learning, memory or future behaviour embed nothing."""
    def fail(*_):
        raise AssertionError("embedded")
    monkeypatch.setattr(gate._PROTOTYPES, "similarities", fail)
    assert not is_learning_request("bring me the juice and a cup")
    assert not is_learning_request("")


@pytest.mark.parametrize("utterance", [
    "Well done, remember that for next time.", "Great, learn from that for next time.",
    "That is right now. Please keep that in mind for the future.",
    "Good job, learn from your mistakes.", "Perfect, make a note of that for the future.",
    "Now it is correct. Memorize how you did that.", "good, remember that"])
def test_a_reply_that_only_praises_and_asks_to_learn_says_nothing_more(utterance):
    assert asks_only_to_learn(utterance)


@pytest.mark.parametrize("utterance", [
    "thanks. but when you bring me juice, always bring me a cup as well. remember that",
    "remember that the cup goes on the table", "remember the juice",
    "thanks, but next time bring both at once, you have two hands - remember that",
    "Memorize how you did that: the blue block first.", ""])
def test_a_reply_that_says_how_says_more_than_learn_this(utterance):
    assert not asks_only_to_learn(utterance)

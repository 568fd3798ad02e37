"""L_improve and the learner hook; only the LLM is scripted (ScriptedLLM).

The learner tests run a real console session against the household world and store into
a real ExampleMemory (ChromaDB in tmp_path).
"""
import pytest

from learning_support import (
    COUNTER,
    HANDED_THEN_PUT,
    HUMAN,
    JUICE_TRIP,
    LOCATIONS,
    THERE,
    TIDY,
    both_hands_trip,
    learning_session,
)
from llm_interaction_node.core.learning.improve import (
    QUESTIONS,
    SYSTEM,
    ImproveStatus,
    extract_transcript,
    improve,
    load_few_shot_examples,
    says_no_problem,
)
from llm_interaction_node.core.learning.learner import LEARN_REFUSAL, LEARNING_DISABLED, LearnStatus
from llm_interaction_node.core.learning.rewrite import first_person
from llm_interaction_node.core.learning.transcripts import without_closing_reply
from llm_interaction_node.core.learning.validation import InvalidTranscript, validate_transcript
from llm_interaction_node.core.llm import LLMError, ScriptedLLM, TokenLedger
from llm_interaction_node.core.transcript.transcript import Transcript

LISTING = """def say(text: str) -> None
def ask(question: str) -> str
def wait_for_trigger() -> dict[str, str]
def list_locations() -> list[str]
def get_location_coordinates(location_name: str) -> np.ndarray
def move_to(position: np.ndarray, speed_factor: float = 1.0) -> str  # Change speed only on user \
request
def grasp(object_name: str, hand: Literal['left', 'right', None] = None) -> str
def place_object(object_in_hand_name: str, destination_object_name: str) -> str
def learn_from_interaction() -> None"""
API_NAMES = {"say", "ask", "wait_for_trigger", "list_locations", "get_location_coordinates",
             "move_to", "grasp", "place_object", "learn_from_interaction"}

SPONGE = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'I need the sponge at the workbench'}
>>> move_to(get_location_coordinates('inFrontOf_long-table_0'))
'success'
>>> grasp('kitchen-sponge_0')
'success'
>>> move_to(get_location_coordinates('inFrontOf_workshop-bench_0'))
'success'
>>> place_object('kitchen-sponge_0', 'workshop-bench_0')
'success'
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'that was slow; the way from the table to the bench is clear, you can \
go faster there. remember that'}
>>> learn_from_interaction()"""

SPONGE_FASTER = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'I need the sponge at the workbench'}
>>> move_to(get_location_coordinates('inFrontOf_long-table_0'))
'success'
>>> grasp('kitchen-sponge_0')
'success'
>>> # The way from the table to the bench is clear: go faster.
... move_to(get_location_coordinates('inFrontOf_workshop-bench_0'), speed_factor=2.0)
'success'
>>> place_object('kitchen-sponge_0', 'workshop-bench_0')
'success'
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'that was quick, thanks'}
>>> wait_for_trigger()"""

PROBLEM = "The robot drove slowly on a route the user had said was clear."
BETTER = "The robot should move faster between the table and the workbench."


def run(answers, interaction=SPONGE, **kwargs):
    llm = ScriptedLLM(answers)
    ledger = TokenLedger()
    result = improve(llm, LISTING, interaction, ledger, api_names=API_NAMES, **kwargs)
    return result, llm, ledger


# -- the conversation ------------------------------------------------------------------------

def test_three_questions_in_one_growing_chat_with_examples_listing_and_interaction():
    result, llm, ledger = run([PROBLEM, BETTER, SPONGE_FASTER])
    assert result.status == ImproveStatus.IMPROVED and len(llm.calls) == 3
    assert all(c["method"] == "chat" and c["temperature"] == 0.0 for c in llm.calls)
    first, second, third = (c["messages"] for c in llm.calls)
    assert first[0] == {"role": "system", "content": SYSTEM}
    # the two few-shot examples as complete prior rounds, before the interaction
    examples = load_few_shot_examples()
    assert len(examples) == 2
    shots = first[1:-1]
    assert len(shots) == 12
    assert [m["role"] for m in shots] == ["user", "assistant"] * 6
    for n, ex in enumerate(examples):
        block = shots[6 * n: 6 * n + 6]
        assert ex.interaction in block[0]["content"] and block[0]["content"].endswith(QUESTIONS[0])
        assert [m["content"] for m in block[1::2]] == [ex.problem, ex.improvement, ex.improved]
        assert [m["content"] for m in block[2::2]] == [QUESTIONS[1], QUESTIONS[2]]
    task = first[-1]["content"]
    assert task.index(LISTING) < task.index("I need the sponge at the workbench") \
        < task.index(QUESTIONS[0])
    assert "learn_from_interaction()\n" not in task.split("Interaction:")[-1]   # call removed
    assert "remember that" in task                                             # request kept
    # the conversation grows: each question follows the previous answer
    assert second == first + [{"role": "assistant", "content": PROBLEM},
                              {"role": "user", "content": QUESTIONS[1]}]
    assert third == second + [{"role": "assistant", "content": BETTER},
                              {"role": "user", "content": QUESTIONS[2]}]
    assert llm.calls[0]["max_tokens"] < llm.calls[2]["max_tokens"]
    assert ledger.by_purpose()["improve"].calls == 3 and set(ledger.by_purpose()) == {"improve"}


def test_a_good_rewrite_is_returned():
    improvement = improve(ScriptedLLM([PROBLEM, BETTER, SPONGE_FASTER]), LISTING, SPONGE,
                          api_names=API_NAMES).improvement
    assert improvement.problem == PROBLEM and improvement.improvement == BETTER
    assert improvement.transcript == Transcript.parse(SPONGE_FASTER).render()


@pytest.mark.parametrize(
    "answer",
    [
        "No problem.",
        "none",
        "There is no problem in this interaction.",
        "Nothing.",
        "**No problem**",
        "I see no issues.",
        "The robot did everything correctly.",
    ],
)
def test_no_problem_stops_after_the_first_question(answer):
    result, llm, _ = run([answer])
    assert result.status == ImproveStatus.NO_PROBLEM and result.improvement is None
    assert len(llm.calls) == 1


def test_a_problem_with_but_is_a_problem():
    assert not says_no_problem("There is no problem with grasping, but it made two trips.")
    assert not says_no_problem("The robot fetched the items one at a time.")


def test_an_unchanged_rewrite_stores_nothing():
    same = SPONGE.replace(">>> learn_from_interaction()", ">>> wait_for_trigger()") \
        .replace("move_to(get_location_coordinates('inFrontOf_long-table_0'))",
                 "move_to(get_location_coordinates( 'inFrontOf_long-table_0' ))  # go")
    result, _, _ = run([PROBLEM, BETTER, same.rsplit("\n>>> wait_for_trigger()", 1)[0]])
    assert result.status == ImproveStatus.UNCHANGED and result.improvement is None
    # a copy with the learn call: invalid, asked once more, the same again
    assert improve(ScriptedLLM([PROBLEM, BETTER, SPONGE, SPONGE]), LISTING, SPONGE,
                   api_names=API_NAMES).improvement is None


@pytest.mark.parametrize("bad, why", [
    (SPONGE_FASTER.replace("grasp('kitchen-sponge_0')", "pick_up('kitchen-sponge_0')"),
     "unknown function pick_up()"),
    (SPONGE_FASTER.replace("grasp('kitchen-sponge_0')", "grasp('kitchen-sponge_0'"),
     "invalid Python"),
    (SPONGE_FASTER + "\n>>> learn_from_interaction()", "calls learn_from_interaction()"),
    (SPONGE_FASTER.split("\n", 2)[2], "does not start with wait_for_trigger()"),
    (SPONGE_FASTER.replace(">>> grasp(", ">>> import os\n>>> grasp("), "console would refuse"),
    ("I think the robot should simply go faster.", "no console transcript"),
])
def test_invalid_rewrites_are_rejected_with_a_reason(bad, why):
    result, llm, _ = run([PROBLEM, BETTER, bad, bad])
    assert result.status == ImproveStatus.INVALID and result.improvement is None
    assert why in result.reason
    # asked once more, in the same chat, with the reason; the second answer is final
    assert len(llm.calls) == 4
    reask = llm.calls[3]["messages"][-1]
    assert reask["role"] == "user" and why in reask["content"]
    assert reask["content"].startswith("This transcript cannot be stored")


def test_an_invalid_rewrite_fixed_on_the_reask_is_returned():
    bad = SPONGE_FASTER.replace("grasp('kitchen-sponge_0')", "pick_up('kitchen-sponge_0')")
    result, llm, ledger = run([PROBLEM, BETTER, bad, SPONGE_FASTER])
    assert result.status == ImproveStatus.IMPROVED and len(llm.calls) == 4
    assert result.improvement.transcript == Transcript.parse(SPONGE_FASTER).render()
    assert ledger.by_purpose()["improve"].calls == 4


def test_too_long_rewrites_are_rejected():
    spam = SPONGE_FASTER + "".join(f"\n>>> say('step {i}')" for i in range(40))
    result, _, _ = run([PROBLEM, BETTER, spam, spam])
    assert result.status == ImproveStatus.INVALID and "too long" in result.reason


FENCED = f"""Sure! Here is the improved transcript, with the faster move:

```python
{SPONGE_FASTER}
```

The robot now uses speed_factor=2.0 on the clear route."""


@pytest.mark.parametrize("answer", [
    FENCED,
    "Improved transcript:\n\n" + SPONGE_FASTER + "\n\nI only changed the speed.",
    "\n".join("    " + ln for ln in SPONGE_FASTER.splitlines()),   # indented
])
def test_fenced_and_prosey_answers_are_parsed(answer):
    result, _, _ = run([f"Problem: {PROBLEM}", f"**Improvement:** {BETTER}", answer])
    assert result.status == ImproveStatus.IMPROVED, result.reason
    assert result.improvement.transcript == Transcript.parse(SPONGE_FASTER).render()
    assert result.improvement.problem == PROBLEM and result.improvement.improvement == BETTER


def test_prose_after_the_last_wait_is_not_taken_as_its_output():
    text = extract_transcript(SPONGE_FASTER + "\nThe robot now goes faster.")
    assert text == SPONGE_FASTER


def test_validation_accepts_own_definitions_numpy_builtins_and_methods():
    text = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'put all blocks in a row'}
>>> names = [n for n in get_obj_names() if 'block' in n]
>>> def slot(i):
...     return denormalize_xy([0.2 + 0.2 * i, 0.5])
>>> for i, name in enumerate(sorted(names)):
...     put_first_on_second(name, slot(i) + np.array([0.0, 0.0]).round(2))
'success'
>>> print(len(names), names.count('red block'), max(range(3)))
3 1 2"""
    t = validate_transcript(text, {"wait_for_trigger", "get_obj_names", "denormalize_xy",
                                   "put_first_on_second"})
    assert len(t) == 5
    with pytest.raises(InvalidTranscript, match="unknown function os"):
        validate_transcript(text + "\n>>> os.system('ls')", {"wait_for_trigger", "get_obj_names",
                            "denormalize_xy", "put_first_on_second"})


def test_llm_errors_are_a_result_not_a_crash():
    result, _, _ = run([PROBLEM, LLMError("connection refused")])
    assert result.status == ImproveStatus.LLM_FAILED and "connection refused" in result.reason
    down = improve(ScriptedLLM([LLMError("down")]), LISTING, SPONGE)
    assert down.status == ImproveStatus.LLM_FAILED and isinstance(down.error, LLMError)


def test_first_person():
    assert (
        first_person("The robot should use both of its hands.") == "I should use both of my hands."
    )


# -- the learner in a real console session -----------------------------------------------------

TWO_TRIPS = [
    "wait_for_trigger()",
    LOCATIONS,
    "say('Sure, I will bring you the mango juice.')",
    COUNTER,
    "grasp('mango-juice_0')",
    HUMAN,
    "handover_object_to_human('mango-juice_0')",
    "wait_for_trigger()",
    "say('Of course, I will get you a cup.')",
    COUNTER,
    "grasp('coffee-cup_0')",
    HUMAN,
    "handover_object_to_human('coffee-cup_0')",
    "wait_for_trigger()",
]
ASKS = ["could I get some mango juice?", "and a cup to drink from, please"]
REQUEST = "thanks, but next time bring both at once, you have two hands - remember that"
BOTH_HANDS = ("When the user wants a drink and a cup, the robot should carry both in one trip, one "
              "in each hand.")


def bimanual(objects_line: str) -> str:
    return f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': 'could I get some mango juice?'}}
>>> {LOCATIONS}
{objects_line}
>>> say('Sure, I will bring you the mango juice and a cup to drink from.')
{both_hands_trip()}
>>> wait_for_trigger()
{{'type': 'dialog', 'text': 'thanks, that was quick'}}
>>> wait_for_trigger()"""


def session(utterances, memory, responses=(), mode="improve", statements=TWO_TRIPS,
            readings=None):
    """A console on the drinks_and_cup world whose learner learns from it (syntax and names
    checked, no replay); runs the statements, each without an error; ``readings``: how the
    model reads the utterances (none: nothing is read)."""
    console, learner, spoken, _ = learning_session(utterances, memory, statements, mode,
                                                   responses=responses, replay=False,
                                                   all_ok=True, readings=readings)
    return console, learner, learner.llm, learner.ledger, spoken


def test_learning_stores_the_improved_transcript(memory):
    console, learner, _, ledger, spoken = session(ASKS + [REQUEST], memory)
    objects_line = console.transcript.entries[1].output
    learner.llm = llm = ScriptedLLM([
        "The robot made two trips although both things were on the same counter.",
        BOTH_HANDS,
        f"Here is the improved interaction:\n```\n{bimanual(objects_line)}\n```"])
    before = console.transcript.render()
    result = console.execute("learn_from_interaction()")
    entry = result.entry
    assert entry.output == f"Learned from this interaction: {BOTH_HANDS}"
    assert result.lessons == (learner.last_outcome,) and result.lessons[0].stored
    # L_improve saw the whole interaction, with the request, without the learn call
    task = llm.calls[0]["messages"][-1]["content"]
    assert before in task and REQUEST in task
    assert "def handover_object_to_human(object_name: str) -> str" in task
    # the memory holds the improved transcript
    stored = memory.list("learned")
    assert len(stored) == 1 and memory.count() == 1
    example = stored[0]
    # stored as rewritten: the request done the better way, then the user's approval
    assert example.transcript == Transcript.parse(bimanual(objects_line)).render()
    assert example.transcript.endswith("'thanks, that was quick'}\n>>> wait_for_trigger()")
    assert "grasp('coffee-cup_0', 'right')" in example.transcript
    assert example.origin == console.task_id and example.improvement == BOTH_HANDS
    assert example.problem.startswith("The robot made two trips")
    assert learner.last_outcome.status == LearnStatus.LEARNED
    assert learner.last_outcome.example.id == example.id
    # the user was told what was learned
    assert spoken[-1] == ("Thank you, I will remember that. When the user wants a drink and a "
                          "cup, I should carry both in one trip, one in each hand.")
    assert ledger.by_purpose()["improve"].calls == 3
    # retrieval finds it for a similar request
    assert memory.retrieve(["can I have some juice and a cup?"], k=1)[0][0].id == example.id
    # a second call for the same request stores nothing more
    assert "already called" in console.execute("learn_from_interaction()").entry.output
    assert memory.count() == 1 and llm.remaining == 0


def juice_only(objects_line: str) -> str:
    return f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': 'could I get some mango juice?'}}
>>> {LOCATIONS}
{objects_line}
>>> say('Here comes the juice, the cup will follow.')
{JUICE_TRIP}
>>> wait_for_trigger()"""


def test_a_rewrite_that_ends_elsewhere_than_the_live_world_is_not_stored(memory):
    """Every statement works in the replay, but the cup the user got stays on the counter."""
    console, learner, spoken, _ = learning_session(ASKS + [REQUEST], memory, TWO_TRIPS,
                                                   "improve", replay=True, all_ok=True)
    objects_line = console.transcript.entries[1].output
    learner.llm = ScriptedLLM(["The robot made two trips.", BOTH_HANDS,
                               juice_only(objects_line), juice_only(objects_line)])
    console.execute("learn_from_interaction()")
    outcome = learner.last_outcome
    assert not outcome.stored and memory.count() == 0
    assert outcome.improve.status == ImproveStatus.REPLAY_FAILED
    assert "coffee-cup_0" in outcome.improve.reason, outcome.improve.reason
    # the re-ask told the model where its replay ended
    assert "coffee-cup_0" in learner.llm.calls[3]["messages"][-1]["content"]


def test_a_call_that_does_not_follow_the_users_reply_is_refused(memory):
    """The position rule: not the first action after wait_for_trigger() returned the reply
    (here the robot acted in between, as in the paper's refused examples)."""
    console, learner, llm, _, spoken = session(ASKS + [REQUEST], memory)
    console.execute("move_to(get_location_coordinates('room_center'))")
    said = list(spoken)
    entry = console.execute("learn_from_interaction()").entry
    assert entry.output == LEARN_REFUSAL
    assert memory.count() == 0 and llm.calls == [] and spoken == said
    assert learner.last_outcome.status == LearnStatus.REFUSED
    assert learner.last_outcome.gate.rule == "position"


@pytest.mark.parametrize("reply, read", [("thanks, but please do not remember this", "done"),
                                         ("do you remember where the milk is?", "question"),
                                         ("forget it, that was fine", "done")])
def test_right_after_the_reply_a_retraction_or_question_is_still_refused(memory, reply, read):
    """The model read these replies as no request to learn: refused, nothing stored."""
    console, learner, llm, _, _ = session(["could I get some mango juice?", reply], memory,
                                          statements=TWO_TRIPS[:7] + TWO_TRIPS[-1:],
                                          readings={reply: read})
    entry = console.execute("learn_from_interaction()").entry
    assert entry.output == LEARN_REFUSAL and memory.count() == 0 and llm.calls == []


def test_the_paper_accepts_a_correction_without_a_word_of_learning(memory):
    """E3, second test: "you forgot that I told you ..." names no learning at all; the
    reference method honoured it (the LLM decided to learn right after the reply)."""
    reply = ("yes, but you forgot that I told you to go faster from the table to the "
             "workbench. When moving on that route, you should go faster!")
    console, learner, _, _, _ = session(["could I get some mango juice?", reply], memory,
                                        statements=TWO_TRIPS[:7] + TWO_TRIPS[-1:])
    learner.llm = ScriptedLLM(
        [
            "The robot drove slowly.",
            "Go faster on that route.",
            "no transcript",
            "still no transcript",
        ]
    )
    console.execute("learn_from_interaction()")
    assert learner.last_outcome.gate.is_request and learner.last_outcome.gate.rule == "position"


def test_raw_mode_stores_the_interaction_itself(memory):
    console, learner, llm, _, _ = session(ASKS + [REQUEST], memory, mode="raw")
    console.execute("say('I will remember that.')")
    console.execute("learn_from_interaction()")
    console.execute("learn_from_interaction()")       # an earlier learn entry is left out too
    stored = memory.list()
    assert len(stored) == 1 and stored[0].source == "raw" and stored[0].problem is None
    expected = without_closing_reply(Transcript(console.transcript.entries[:-2])).render()
    assert stored[0].transcript == expected and "learn_from_interaction" not in expected
    assert REQUEST in stored[0].utterances and llm.calls == []


def test_off_mode_stores_nothing(memory):
    console, learner, llm, _, _ = session(ASKS + [REQUEST], memory, mode="off")
    assert console.execute("learn_from_interaction()").entry.output == LEARNING_DISABLED
    assert memory.count() == 0 and llm.calls == []


@pytest.mark.parametrize("responses, told", [
    ([LLMError("connection refused")], "language model failed: connection refused"),
    (["No problem."], "has no problem"),
    (["Two trips.", BOTH_HANDS, "The robot should use both hands.", "Use both hands."],
     "invalid"),
])
def test_nothing_stored_is_explained(memory, responses, told):
    console, learner, llm, _, spoken = session(ASKS + [REQUEST], memory, responses)
    entry = console.execute("learn_from_interaction()").entry
    assert entry.output.startswith("Nothing was learned") and told in entry.output
    assert memory.count() == 0
    assert spoken[-1].startswith(("Sorry", "I could not"))


def test_a_stored_example_ends_with_an_action_not_an_unanswered_reply():
    """An example ending in a reply the robot did not act on taught the embedded model to
    answer feedback with wait_for_trigger() (seen in the benchmark): stored examples end with
    the robot's last action and a bare wait_for_trigger()."""
    text = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'put the blocks in the red bowl'}
>>> put_first_on_second('blue block', 'red bowl')
'success'
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'well done, remember that'}
>>> wait_for_trigger()"""
    closed = without_closing_reply(Transcript.parse(text))
    assert [e.source for e in closed] == ["wait_for_trigger()",
                                          "put_first_on_second('blue block', 'red bowl')",
                                          "wait_for_trigger()"]
    assert closed.entries[0].output and not closed.entries[-1].output
    only_request = Transcript.parse(text.split("\n>>> put_first")[0])
    assert [e.source for e in without_closing_reply(only_request)] == \
        ["wait_for_trigger()", "wait_for_trigger()"]          # the request itself stays




def tidy_rewrite(objects_line: str, done: str) -> str:
    return f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': '{TIDY}'}}
>>> {LOCATIONS}
{objects_line}
>>> {COUNTER}
'success'
{done}
>>> wait_for_trigger()"""


NEVER_PUT = """>>> grasp('mango-juice_0')
'success'
>>> say('The juice is on the dining table now.')"""
PUT = """>>> bring_object_to('mango-juice_0', 'on_dining-table_0')
'success'"""


@pytest.mark.parametrize("second, stored", [(NEVER_PUT, False), (PUT, True)])
def test_a_rewrite_must_put_what_the_user_sent_to_a_place_there(memory, second, stored):
    """"from now on, put the juice on the dining table" after the juice was handed over: the
    robot puts it there before the learn call, so the live world shows it there either way;
    the rewrite's replay must end with the juice on the dining table itself (measured on the
    teach-once bench: a grasp and a false ``say`` passed, as the live end of an object the user
    sent to a place was not compared at all)."""
    readings = {TIDY: "do: mango juice -> none", THERE: "do: mango juice -> dining table\nlearn"}
    console, learner, _, robot = learning_session([TIDY, THERE], memory, HANDED_THEN_PUT,
                                                  "improve", all_ok=True, readings=readings)
    assert robot.end().objects["mango-juice_0"] == ("on_dining-table_0", None)
    objects_line = console.transcript.entries[1].output
    learner.llm = ScriptedLLM(["The robot handed the juice over.",
                               "Put the juice on the dining table.",
                               tidy_rewrite(objects_line, NEVER_PUT),
                               tidy_rewrite(objects_line, second)])
    console.execute("learn_from_interaction()")
    outcome = learner.last_outcome
    # the re-ask said where the first rewrite left the juice, and where the user wants it
    reask = learner.llm.calls[3]["messages"][-1]["content"]
    assert "mango-juice_0 ends in the robot's right hand in the replay, not at " \
           "on_dining-table_0" in reask, reask
    assert outcome.stored == stored and memory.count() == int(stored)
    if not stored:
        assert outcome.improve.status == ImproveStatus.REPLAY_FAILED
        assert "on_dining-table_0 where the user wants it" in outcome.improve.reason
    else:
        assert outcome.improve.status == ImproveStatus.IMPROVED

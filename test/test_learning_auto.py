"""Issue 30: a lesson does the request the new way in its first turn; mode ``auto``.

The household case a new user tried: "bring me the juice please" (the robot brings the juice
only), then "thanks. but when you bring me juice, always bring me a cup as well. remember that
for next time". Only the LLM is scripted (ScriptedLLM); the household world, the console, the
replay check and ChromaDB (tmp_path) are real, the learner attached as build_session attaches
it (the world's start taken at the interaction's first input, the live world's end known).
"""
import pytest

from learning_support import (
    COUNTER,
    HUMAN,
    JUICE_TRIP,
    LOCATIONS,
    both_hands_trip,
    learning_session,
)
from llm_interaction_node.core.learning import improve as imp
from llm_interaction_node.core.learning.auto import SAY_KEPT_ACCEPTED
from llm_interaction_node.core.learning.final import SAY_FINAL
from llm_interaction_node.core.learning.learner import MODES, STORES, LearnStatus
from llm_interaction_node.core.learning.shape import shape_problem
from llm_interaction_node.core.learning.transcripts import interaction_text
from llm_interaction_node.core.llm import LLMError, ScriptedLLM
from llm_interaction_node.core.reading import ReadingVocabulary
from llm_interaction_node.core.transcript.notes import (
    HINTS,
    LESSON_COMMENT,
    LOOP_NOTE,
    REPEAT_NOTE,
    is_console_note,
    restate_note,
)
from llm_interaction_node.core.transcript.transcript import Entry, Transcript
from llm_interaction_node.settings import LearningSettings, Settings
from reading_support import reads

REQUEST = "bring me the juice please"
LESSON = ("thanks. but when you bring me juice, always bring me a cup as well. remember that "
          "for next time")
JUICE_ONLY = ["wait_for_trigger()", LOCATIONS, COUNTER, "grasp('mango-juice_0')", HUMAN,
              "handover_object_to_human('mango-juice_0')", "wait_for_trigger()"]
CUP_TRIP = [COUNTER, "grasp('coffee-cup_0')", HUMAN, "handover_object_to_human('coffee-cup_0')"]
PROBLEM = "The robot brought the juice without a cup."
BETTER = "When the user asks for juice, the robot should bring a cup with it."



def dialog(text: str) -> str:
    return repr({"type": "dialog", "text": text})


def juice_then_correction(objects_line: str, correction: str = LESSON) -> str:
    """The bad shape: the old juice-only first turn, the user's correction as a dialog turn,
    then a second trip for the cup (every statement works from the start)."""
    return f""">>> wait_for_trigger()
{dialog(REQUEST)}
>>> {LOCATIONS}
{objects_line}
{JUICE_TRIP}
>>> wait_for_trigger()
{dialog(correction)}
>>> {COUNTER}
'success'
>>> grasp('coffee-cup_0')
'success'
>>> {HUMAN}
'success'
>>> handover_object_to_human('coffee-cup_0')
'success'
>>> wait_for_trigger()"""


def juice_and_cup(objects_line: str, extra: str = "") -> str:
    """The good shape: the request, juice and cup in the first turn, the lesson as a comment."""
    return f""">>> wait_for_trigger()
{dialog(REQUEST)}
>>> # juice always comes with a cup
>>> {LOCATIONS}
{objects_line}
{both_hands_trip(extra)}
>>> wait_for_trigger()"""


# how the model reads the household utterances of these tests (the reading stand-in)
READINGS = {REQUEST: "do: mango juice -> me",
            LESSON: "also: coffee cup with mango juice\nlearn"}


# the lesson read as a plain request to learn (or to bring the cup): no row of the edit shape
# takes it, L_improve does
UNREAD_ALSO = {**READINGS, LESSON: "learn"}
CUP_TOO = {**READINGS, LESSON: "do: coffee cup -> me\nlearn"}


def session(utterances, memory, statements, mode=None, readings=None):
    """A household console with its learner (mode None: the settings' default); the model
    reads the utterances as ``readings`` (default :data:`READINGS`) says."""
    return learning_session(utterances, memory, statements, mode,
                            readings=readings or READINGS)[:3]


def objects_of(console) -> str:
    return console.transcript.entries[1].output


def test_auto_is_the_default_and_every_mode_is_one_entry_of_the_table():
    assert Settings().learning.mode == "auto" and LearningSettings().mode == "auto"
    assert set(STORES) == set(MODES) - {"off"}


def test_the_issues_rewrite_is_re_asked_and_the_request_done_with_the_cup_is_stored(memory):
    console, learner, spoken = session([REQUEST, LESSON], memory, JUICE_ONLY,
                                       readings=CUP_TOO)
    assert learner.mode == "auto"
    objects_line = objects_of(console)
    bad = juice_then_correction(objects_line)
    # every statement of the bad shape works: the replay check alone would pass it
    assert learner.check(imp.stored_example(Transcript.parse(bad))).mismatch is None
    learner.llm = llm = ScriptedLLM([PROBLEM, BETTER, bad, juice_and_cup(objects_line)])
    # the robot brought the cup after the correction (the rewrite is replayed against it)
    console.execute("bring_object_to('coffee-cup_0', 'handover_to_human')")
    entry = console.execute("learn_from_interaction()").entry
    outcome = learner.last_outcome
    assert outcome.status == LearnStatus.LEARNED, entry.output
    assert "L_improve's rewrite stored" in entry.output
    # asked once more, saying that the correction is a dialog turn of the rewrite
    assert len(llm.calls) == 4
    reask = llm.calls[3]["messages"][-1]["content"]
    assert "cannot be stored" in reask and LESSON in reask and "first turn" in reask
    stored = memory.list("learned")
    assert len(stored) == 1
    text = stored[0].transcript
    # the request, then juice AND cup in the first turn, then the end: no dialog turn after it
    example = Transcript.parse(text)
    assert example.user_utterances() == [REQUEST]
    assert "grasp('coffee-cup_0', 'right')" in text and LESSON not in text
    last_handover = text.index("handover_object_to_human('coffee-cup_0')")
    assert last_handover < text.rindex("wait_for_trigger()")
    assert shape_problem(example, Transcript.parse(console.transcript.render())) is None
    assert spoken[-1] == ("Thank you, I will remember that. When the user asks for juice, I "
                          "should bring a cup with it.")


def test_in_mode_improve_the_bad_shape_twice_is_refused(memory):
    console, learner, spoken = session([REQUEST, LESSON], memory, JUICE_ONLY, mode="improve",
                                       readings=UNREAD_ALSO)
    bad = juice_then_correction(objects_of(console))
    learner.llm = llm = ScriptedLLM([PROBLEM, BETTER, bad, bad])
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.WRONG_SHAPE, entry.output
    assert "does not do the request the better way in its first turn" in entry.output
    assert len(llm.calls) == 4 and memory.count() == 0
    assert spoken[-1].startswith("Sorry, I did not learn this")


def test_in_mode_auto_what_comes_along_is_a_habit_and_unread_the_juice_only_turn_is_not_kept(
        memory):
    """Read as ``also: coffee cup with mango juice``, the lesson is a habit (the edit shape's
    row: the cup after the juice's hand-over), the robot brings the cup now; unread, L_improve's
    bad shape twice and the juice-only first turn the lesson asks to change: nothing stored."""
    console, learner, spoken = session([REQUEST, LESSON], memory, JUICE_ONLY)
    bad = juice_then_correction(objects_of(console))
    learner.llm = ScriptedLLM([PROBLEM, BETTER, bad, bad])
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.STORED_HABIT, entry.output
    assert "bring_object_to('coffee-cup_0', 'handover_to_human')" in entry.output
    assert learner.llm.calls == []                        # L_improve never asked
    console, learner, spoken = session([REQUEST, LESSON], memory, JUICE_ONLY)
    learner.read = lambda utterance: None              # the lesson unread: no edit
    learner.llm = ScriptedLLM([PROBLEM, BETTER, bad, bad])
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.WRONG_SHAPE, entry.output
    assert "not stored instead" in entry.output and memory.count(("learned", "final")) == 0
    assert spoken[-1].startswith("Sorry, I did not learn this")


def test_in_mode_auto_no_problem_found_keeps_the_accepted_first_turn(memory):
    praise = "perfect, remember how you did that for next time"
    console, learner, spoken = session([REQUEST, praise], memory, JUICE_ONLY)
    learner.llm = llm = ScriptedLLM(["No problem."])
    entry = console.execute("learn_from_interaction()").entry
    outcome = learner.last_outcome
    assert outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert entry.output.startswith("L_improve's rewrite was not stored (the interaction has no "
                                   "problem to fix). Stored the request and the statements of")
    assert outcome.improve.status == imp.ImproveStatus.NO_PROBLEM and len(llm.calls) == 1
    assert spoken[-1] == SAY_KEPT_ACCEPTED != SAY_FINAL
    assert "handover_object_to_human('mango-juice_0')" in memory.list("final")[0].transcript


TWO_TURNS = JUICE_ONLY + CUP_TRIP + ["wait_for_trigger()"]
TWO_TURNS_SAID = [REQUEST, "and a cup to drink from, please",
                  "thanks, but next time bring the cup with the juice right away - remember that"]


@pytest.mark.parametrize("why", ["wrong shape", "replay", "unchanged", "llm down"])
def test_in_mode_auto_a_refused_rewrite_falls_back_to_the_accepted_attempt(memory, why):
    console, learner, spoken = session(TWO_TURNS_SAID, memory, TWO_TURNS)
    objects_line = objects_of(console)
    if why == "wrong shape":     # the old first turn, the user's correction, the second trip
        bad = juice_then_correction(objects_line, TWO_TURNS_SAID[1]).replace(
            ">>> grasp('coffee-cup_0')", ">>> grasp('coffee-cup_0', 'right')")
        answers, expected = [PROBLEM, BETTER, bad, bad], imp.ImproveStatus.WRONG_SHAPE
    elif why == "replay":        # claims a third grasp worked at the handover place
        bad = juice_and_cup(objects_line).replace(
            f">>> {HUMAN}\n'success'\n>>> handover_object_to_human('mango-juice_0')",
            f">>> {HUMAN}\n'success'\n>>> grasp('tumbler_0')\n'success'\n"
            f">>> handover_object_to_human('mango-juice_0')")
        answers, expected = [PROBLEM, BETTER, bad, bad], imp.ImproveStatus.REPLAY_FAILED
    elif why == "unchanged":     # the interaction itself, statement for statement
        same = interaction_text(console.transcript).render()
        answers, expected = [PROBLEM, BETTER, same], imp.ImproveStatus.UNCHANGED
    else:
        answers, expected = [LLMError("connection refused")], imp.ImproveStatus.LLM_FAILED
    learner.llm = llm = ScriptedLLM(answers)
    entry = console.execute("learn_from_interaction()").entry
    outcome = learner.last_outcome
    assert outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert outcome.improve.status == expected and len(llm.calls) == len(answers)
    assert entry.output.startswith("L_improve's rewrite was not stored (the ")
    assert "Stored the request and the statements of the accepted attempt" in entry.output
    assert spoken[-1] == SAY_KEPT_ACCEPTED
    stored = memory.list("final")
    assert len(stored) == 1 and memory.count() == 1
    # the final example: the request, the lesson as a comment, both things brought
    text = stored[0].transcript
    assert Transcript.parse(text).user_utterances() == [REQUEST]
    assert "handover_object_to_human('coffee-cup_0')" in text
    assert "handover_object_to_human('mango-juice_0')" in text


# -- the shape rules ---------------------------------------------------------------------------

ORIGINAL = Transcript.parse(f""">>> wait_for_trigger()
{dialog(REQUEST)}
{JUICE_TRIP}
>>> wait_for_trigger()
{dialog(LESSON)}""")


def rewrite(*lines: str) -> Transcript:
    return imp.stored_example(Transcript.parse("\n".join(
        [">>> wait_for_trigger()", dialog(REQUEST)] + list(lines))))


def test_the_shape_rules():
    same = [f">>> {COUNTER}", "'success'", ">>> grasp('mango-juice_0')", "'success'",
            f">>> {HUMAN}", "'success'", ">>> handover_object_to_human('mango-juice_0')",
            "'success'"]
    cup = [f">>> {COUNTER}", "'success'", ">>> grasp('coffee-cup_0')", "'success'",
           f">>> {HUMAN}", "'success'", ">>> handover_object_to_human('coffee-cup_0')", "'success'"]
    both = same[:4] + [">>> grasp('coffee-cup_0', 'right')", "'success'"] + same[4:] + \
        [">>> handover_object_to_human('coffee-cup_0')", "'success'"]
    # the correction as something the user says, with a second trip after it
    said = shape_problem(rewrite(*same, ">>> wait_for_trigger()", dialog(LESSON), *cup), ORIGINAL)
    assert said and LESSON in said
    # or as the closing "approval"
    closing = rewrite(*both, ">>> wait_for_trigger()", dialog("and a cup to drink from, please!"))
    corrected = Transcript(ORIGINAL.entries[:-1] + [
        Entry("wait_for_trigger()", dialog("And a cup to drink from, please")),
        ORIGINAL.entries[-1]])
    assert "'And a cup to drink from, please'" in shape_problem(closing, corrected)
    # the correction said as the request
    as_request = imp.stored_example(Transcript.parse("\n".join(
        [">>> wait_for_trigger()", dialog(LESSON)] + both)))
    assert LESSON in shape_problem(as_request, ORIGINAL)
    # a second user turn in other words, then more statements
    second = shape_problem(rewrite(*same, ">>> wait_for_trigger()", dialog("a cup too"), *cup),
                           ORIGINAL)
    assert second and "speaks again" in second
    # the old first turn unchanged, ending with an approval
    unchanged = shape_problem(rewrite(*same, ">>> wait_for_trigger()", dialog("thanks")), ORIGINAL)
    assert unchanged and "unchanged" in unchanged
    # nothing done
    assert "does nothing" in shape_problem(rewrite(">>> wait_for_trigger()", dialog("thanks")),
                                           ORIGINAL)
    # the request done the new way: with the lesson as a comment, an ask() on the way and an
    # approval at the end, or just the end
    good = rewrite(f">>> # {LESSON}", *both[:2], ">>> ask('the coffee cup?')", "'yes'", *both[2:],
                   ">>> wait_for_trigger()", dialog("thanks, that was quick"))
    assert shape_problem(good, ORIGINAL) is None
    assert shape_problem(rewrite(*both), ORIGINAL) is None


def test_after_a_wrong_choice_a_rewrite_that_only_names_another_object_has_the_wrong_shape():
    """Measured (issue 30, f09b4f8): for "the block closest to the orange bowl", after "the
    block you picked was ...", L_improve wrote ``closest_block_pos = get_obj_pos('blue block')``
    and a put of the blue block by name; it was stored, and is right in that scene only."""
    request = "pick up the block closest to the orange bowl and place it on the left side"
    wrong = "That is not what I wanted. The block you picked was the one farthest away."
    original = Transcript.parse(f""">>> wait_for_trigger()
{dialog(request)}
>>> get_obj_names()
['red block', 'blue block', 'orange bowl']
>>> put_first_on_second('red block', 'left side')
'success'
>>> wait_for_trigger()
{dialog(wrong)}
>>> put_first_on_second('blue block', 'left side')
'success'
>>> wait_for_trigger()
{dialog("That is right now. Please keep that in mind for the future.")}""")

    read = reads({wrong: "wrong object", request:
                  "do: the block nearest to orange bowl -> left side"},
                 ReadingVocabulary.of(["red block", "blue block", "orange bowl"], ["left side"]))

    def rewritten(*lines):
        return imp.stored_example(Transcript.parse("\n".join(
            [">>> wait_for_trigger()", dialog(request), ">>> get_obj_names()",
             "['red block', 'blue block', 'orange bowl']", *lines])))

    named = shape_problem(rewritten(">>> # the blue block is the closest",
                                    ">>> put_first_on_second('blue block', 'left side')",
                                    "'success'"), original, read)
    assert shape_problem(rewritten(">>> put_first_on_second('blue block', 'left side')",
                                   "'success'"), original) is None, "not read: no rejection"
    assert named and "only names another one" in named
    computed = rewritten(">>> bowl = get_obj_pos('orange bowl')",
                         ">>> closest = min(['red block', 'blue block'], key=lambda n: "
                         "np.linalg.norm(get_obj_pos(n) - bowl))",
                         ">>> put_first_on_second(closest, 'left side')", "'success'")
    assert shape_problem(computed, original, read) is None
    kind = Transcript.parse(original.render().replace(wrong, "That is on the top side, not on "
                                                             "the left side."))
    assert shape_problem(rewritten(">>> put_first_on_second('blue block', 'left side')",
                                   "'success'"), kind, read) is None, "no choice was rejected"


# -- the console's notes never enter a stored example ------------------------------------------

OWN = "# the cup is on the counter as well"           # a comment of the model's own
GUESSED = f"# {HINTS[0]}\nlist_objects()"              # a copied seed hint above a statement
NOTES = [("note", "not run: 'coffee_cup' is not in the scene"),
         ("note", "not run: " + REPEAT_NOTE.format(source="grasp('mango-juice_0')")),
         ("note", LOOP_NOTE), ("note", "giving up: the limit of 15 statements"),
         ("note", "stopped: stop requested"), ("note", "the language model failed: timeout"),
         ("note", HINTS[0])]
WITH_NOTES = (JUICE_ONLY[:2] + NOTES[:4] + JUICE_ONLY[2:]
              + [("note", restate_note(TWO_TURNS_SAID[1])), OWN, GUESSED] + NOTES[4:] + CUP_TRIP
              + ["wait_for_trigger()", ("note", restate_note(TWO_TURNS_SAID[2]))])


def notes_in(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if is_console_note(ln.removeprefix(">>> "))]


@pytest.mark.parametrize("mode", ["auto", "improve", "final", "corrected", "raw"])
def test_no_console_note_enters_a_stored_example_in_any_mode(memory, mode):
    console, learner, _ = session(TWO_TURNS_SAID, memory, WITH_NOTES, mode=mode)
    live = console.transcript.render()
    assert len(notes_in(live)) == len(NOTES) + 3        # each kind is in the interaction
    objects_line = objects_of(console)
    # L_improve's rewrite (auto, improve) copies a note and the live model's own comment
    learner.llm = llm = ScriptedLLM([PROBLEM, BETTER, juice_and_cup(
        objects_line, extra=f"\n>>> # {LOOP_NOTE}\n>>> {OWN}")])
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.stored, entry.output
    stored = memory.list()
    assert len(stored) == 1
    text = stored[0].transcript
    # the learner's own comment (final, corrected: the user's words after the request) is the
    # one line in the lesson voice, which in a live turn would be a copy (notes.LESSON_COMMENT)
    lesson_voice = [n for n in notes_in(text) if LESSON_COMMENT in n]
    assert [n for n in notes_in(text) if LESSON_COMMENT not in n] == []
    # a lesson built from the interaction leaves the live model's comments out (final, and a
    # rewrite that copies one: core/learning/tidy.py); the ones that store it whole keep it
    assert (OWN in text) == (mode in ("corrected", "raw")), "the model's own comment"
    if mode in ("auto", "improve"):
        assert "# juice always comes with a cup" in text     # the rewrite's own lesson stays
    assert len(lesson_voice) == (1 if mode in ("final", "corrected") else 0), lesson_voice
    if mode in ("auto", "improve"):
        assert notes_in(llm.calls[0]["messages"][-1]["content"]) == []   # L_improve saw none
    if mode in ("final", "corrected", "raw"):
        assert ">>> list_objects()" in text       # the hint's statement stays, the hint goes


# -- a rewrite moves only what the user asked about (blocks_on_place run 5, ours) ------------

TOP = "put_first_on_second('{}', 'top side')"
TOP_SCENE = "orange block,blue bowl,yellow bowl,red bowl"
TOP_SAID = ["put all the blocks on the top side",
            "That is not right. The orange block went in the blue bowl instead of on the top "
            "side. Please try again.",
            "Now it is correct. Memorize how you did that."]
TOP_READ = {TOP_SAID[0]: "do: every block -> top side",
            TOP_SAID[1]: "do: orange block -> top side", TOP_SAID[2]: "learn"}
TOP_LIVE = ["wait_for_trigger()", "get_obj_names()",
            "put_first_on_second('orange block', 'blue bowl')", "wait_for_trigger()",
            TOP.format("orange block"), "wait_for_trigger()"]


def tabletop_memory(tmp_path):
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.store import ExampleMemory
    return ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "tabletop")))


def top_rewrite(*moved: str) -> str:
    """L_improve's rewrite as measured: the request, then ``moved`` put on the top side."""
    puts = "\n".join(f">>> {TOP.format(n)}\n'success'" for n in moved)
    return f""">>> wait_for_trigger()
{dialog(TOP_SAID[0])}
>>> get_obj_names()
['orange block', 'blue bowl', 'yellow bowl', 'red bowl']
{puts}
>>> wait_for_trigger()"""


@pytest.mark.parametrize("mode", ["improve", "auto"])
def test_a_rewrite_that_moves_what_the_user_never_asked_about_is_not_stored(tmp_path, mode):
    """Every statement of the measured rewrite works, but it puts the three bowls on the top
    side too: the user asked for the blocks, named the blue bowl only as where the block went,
    and accepted a world with the bowls in place. Re-asked once with the objects it moves; then
    refused (``improve``) or the accepted attempt stored (``auto``)."""
    table = tabletop_memory(tmp_path)
    console, learner, spoken, _ = learning_session(TOP_SAID, table, TOP_LIVE, mode,
                                                   world=TOP_SCENE, api="tabletop", all_ok=True,
                                                   readings=TOP_READ)
    bowls = top_rewrite("orange block", "blue bowl", "yellow bowl", "red bowl")
    learner.llm = llm = ScriptedLLM([PROBLEM, BETTER, bowls, bowls])
    entry = console.execute("learn_from_interaction()").entry
    assert len(llm.calls) == 4
    reask = llm.calls[3]["messages"][-1]["content"]
    # "went in the blue bowl" is where it lies, not a wish: no reading names the bowls
    assert "it moves the blue bowl, the yellow bowl, the red bowl, which the interaction " \
        "left" in reask
    if mode == "improve":
        assert learner.last_outcome.status == LearnStatus.REPLAY_FAILED, entry.output
        assert table.count() == 0
    else:
        assert learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
        [lesson] = table.list("final")
        assert [e.source for e in Transcript.parse(lesson.transcript)][1:] == [
            "get_obj_names()", TOP.format("orange block"), "wait_for_trigger()"]


def test_a_rewrite_that_moves_only_the_blocks_is_stored(tmp_path):
    table = tabletop_memory(tmp_path)
    console, learner, _, _ = learning_session(TOP_SAID, table, TOP_LIVE, "improve",
                                              world=TOP_SCENE, api="tabletop", all_ok=True)
    learner.llm = ScriptedLLM([PROBLEM, BETTER, top_rewrite("orange block")])
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.LEARNED, entry.output
    assert table.count() == 1


def test_an_object_is_named_where_a_reading_of_the_users_words_names_it():
    from llm_interaction_node.core.learning.scope import named_in, spoken_name, unasked_moves
    house = ["mango-juice_0", "coffee-cup_0", "tumbler_0", "empty-mug_0"]
    assert spoken_name("coffee-cup_0") == "coffee cup"
    v = ReadingVocabulary.of(house, me=True)
    also = reads({"always bring me a cup as well": "also: coffee cup with mango juice\nlearn"},
                 v)("always bring me a cup as well")
    assert named_in([also], house) == {"coffee-cup_0", "mango-juice_0"}
    table = TOP_SCENE.split(",")
    t = ReadingVocabulary.of(table, ["top side"])
    read = reads({TOP_SAID[0]: "do: every block -> top side",
                  TOP_SAID[1]: "do: orange block -> top side", TOP_SAID[2]: "learn"}, t)
    readings = [read(u) for u in TOP_SAID]
    assert unasked_moves(["blue bowl", "orange block"], readings, table) == ["blue bowl"]
    assert unasked_moves(["blue bowl"], [None, None], table) == ["blue bowl"]   # nothing read

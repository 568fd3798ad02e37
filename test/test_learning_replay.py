"""Learned examples are replayed in the simulated world before they are stored.

Only the LLM is scripted (ScriptedLLM): the household / tabletop worlds, the console, the
replay and ChromaDB (tmp_path) are real. The learner is attached as build_session attaches
it (session.learning_console with the world's start taken at the interaction's first input).
"""
import pytest

from learning_support import COUNTER, HUMAN, LOCATIONS, both_hands_trip, learning_session
from llm_interaction_node.core.apis.humanoid import SceneObject
from llm_interaction_node.core.apis.tabletop import PLACE_NAMES
from llm_interaction_node.core.learning import improve as imp
from llm_interaction_node.core.learning.corrected import corrected_example
from llm_interaction_node.core.learning.final import (
    MAX_FINAL_REPLAYS,
    final_example,
    worked_example,
)
from llm_interaction_node.core.learning.learner import LearnStatus
from llm_interaction_node.core.learning.outcome import (
    SAY_END_DIFFERS,
    SAY_ONLY_THE_NAME,
    SAY_REPLAY_FAILED,
)
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.store import ExampleMemory
from llm_interaction_node.core.reading import ReadingVocabulary
from llm_interaction_node.core.transcript.errors import EndOfInteraction
from llm_interaction_node.core.transcript.transcript import Transcript
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.paths import world_path
from llm_interaction_node.replay import (
    household_start_from_scene,
    interaction_start,
    live_end,
    replay_check,
)
from llm_interaction_node.session import build_console, make_world
from llm_interaction_node.sims.tabletop_bullet import TabletopWorldBullet
from reading_support import reads

TABLE = "move_to(get_location_coordinates('inFrontOf_dining-table_0'))"
TWO_TRIPS = ["wait_for_trigger()", LOCATIONS, COUNTER, "grasp('mango-juice_0')", HUMAN,
             "handover_object_to_human('mango-juice_0')", "wait_for_trigger()", COUNTER,
             "grasp('coffee-cup_0')", HUMAN, "handover_object_to_human('coffee-cup_0')",
             "wait_for_trigger()"]
ASKS = ["could I get some mango juice?", "and a cup to drink from, please",
        "thanks, but next time bring both at once, you have two hands - remember that"]
PROBLEM = "The robot made two trips although both things were on the same counter."
BETTER = "The robot should carry the juice and the cup in one trip, one in each hand."


def bimanual(objects_line: str, cup_at_handover: str = "'success'") -> str:
    """The request done the better way; ``cup_at_handover``: what the rewrite claims the
    cup's grasp printed."""
    return f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': 'could I get some mango juice?'}}
>>> {LOCATIONS}
{objects_line}
>>> {COUNTER}
'success'
>>> grasp('mango-juice_0', 'left')
'success'
>>> {HUMAN}
'success'
>>> grasp('coffee-cup_0', 'right')
{cup_at_handover}
>>> handover_object_to_human('mango-juice_0')
'success'
>>> wait_for_trigger()
{{'type': 'dialog', 'text': 'thanks, that was quick'}}"""


def correct(objects_line: str) -> str:
    return f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': 'could I get some mango juice?'}}
>>> {LOCATIONS}
{objects_line}
{both_hands_trip()}
>>> wait_for_trigger()
{{'type': 'dialog', 'text': 'thanks, that was quick'}}"""


# how the model reads what the user says in these tests (the reading stand-in)
READINGS = {
    "could I get some mango juice?": "do: mango juice -> me",
    "and a cup to drink from, please": "do: coffee cup -> me",
    "can I have the milk?": "do: milk carton -> me",
    "then just put it back on the table": "do: milk carton -> dining table",
    "next time, put it on the table right away when the handover fails - remember that":
        "learn\ndo: milk carton -> dining table",
    "well done for trying again, remember that": "learn",
    "that is the cup, not the juice": "wrong object\ndo: mango juice -> none",
    "great, remember that for next time": "learn",
    "put the blocks in the bowls with matching colors": "do: every block -> the same color bowl",
    "the red block is in the blue bowl, it belongs in the red bowl":
        "do: red block -> red bowl",
    "well done, learn that for next time": "learn",
    "put the red block in the red bowl": "do: red block -> red bowl",
    "that is the blue bowl": "do: none -> none",
    "put the red and the blue block in their bowls":
        "do: red block and blue block -> the same color bowl",
    "the red one goes in the red bowl; I put the blue one in myself":
        "do: red block -> red bowl",
    "good, remember that": "learn",
    "put all the blocks on the left side": "do: every block -> left side",
    "That is not right. Look, the blue block is in the orange bowl. I wanted it on the left side.":
        "do: blue block -> left side",
    "Hmm, the yellow block and the green block are in the green bowl. I wanted them on the left "
    "side.": "do: yellow block and green block -> left side",
    "Now it is correct. Memorize how you did that.": "learn",
    "put the yellow, the green and the blue block on the left side":
        "do: yellow block and green block and blue block -> left side",
    "That is not right. That is in the green bowl, not on the left side.":
        "do: none -> left side",
    "That is right now. Please keep that in mind for the future.": "learn",
    "Perfect, make a note of that for the future.": "learn",
    "Good job, learn from your mistakes.": "learn",
    "good, but the red block always goes in the red bowl. remember that":
        "learn\ndo: red block -> red bowl",
    "remember that the red one belongs in the red bowl": "learn\ndo: red block -> red bowl",
    "pick up the block to the left of the yellow bowl and place it on the top right corner":
        "do: the block left of yellow bowl -> top right corner",
    "That is not what I wanted. The block you picked was a block below the yellow bowl. Try "
    "once more, please.": "wrong object",
    "That is in the top right corner, and the yellow block should be there too.":
        "do: yellow block -> top right corner",
    "well done, remember that": "learn",
    "thanks, but next time bring both at once, you have two hands - remember that":
        "learn\nhand: both",
}
TABLE_READS = reads(READINGS, ReadingVocabulary.of(
    ["red block", "blue block", "cyan block", "red bowl", "blue bowl"], PLACE_NAMES,
    show_places=False))


def session(utterances, memory, statements, mode="improve", world="drinks_and_cup",
            live=False, api="humanoid", robot=None):
    """As the ROS node attaches the learner (no live world) unless ``live``; the model reads
    the utterances as :data:`READINGS` says."""
    return learning_session(utterances, memory, statements, mode, world, live, api, robot,
                            readings=READINGS)


def test_a_rewrite_with_an_invented_output_is_refused_after_one_reask(memory):
    console, learner, spoken, _ = session(ASKS, memory, TWO_TRIPS)
    objects_line = console.transcript.entries[1].output
    invented = bimanual(objects_line)      # the cup cannot be grasped at the handover point
    learner.llm = llm = ScriptedLLM([PROBLEM, BETTER, invented, invented])
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.REPLAY_FAILED
    assert (
        entry.output.startswith("Nothing was learned")
        and "does not match the world" in entry.output
    )
    assert memory.count() == 0
    # asked once more, with the mismatch: the input, what it claims, what the world returns
    assert len(llm.calls) == 4
    reask = llm.calls[3]["messages"][-1]["content"]
    assert "grasp('coffee-cup_0', 'right')" in reask and "'success'" in reask
    assert ("the world returns 'failure: coffee-cup_0 is on the kitchen counter; "
            "the robot is at the handover place'") in reask
    assert spoken[-1] == SAY_REPLAY_FAILED


def test_an_invented_output_fixed_on_the_reask_is_stored_and_retrieved(memory):
    console, learner, spoken, robot = session(ASKS, memory, TWO_TRIPS)
    objects_line = console.transcript.entries[1].output
    # the robot's world changed during the interaction; the replay starts from its start
    assert robot.snapshot()["objects"]["coffee-cup_0"]["held_by"] == "human"
    learner.llm = llm = ScriptedLLM(
        [PROBLEM, BETTER, bimanual(objects_line), correct(objects_line)]
    )
    console.execute("learn_from_interaction()")
    assert learner.last_outcome.status == LearnStatus.LEARNED and len(llm.calls) == 4
    stored = memory.list("learned")
    assert len(stored) == 1
    assert (
        stored[0].transcript == imp.stored_example(Transcript.parse(correct(objects_line))).render()
    )
    assert memory.retrieve(["can I have some juice and a cup?"], k=1)[0][0].id == stored[0].id
    assert spoken[-1].startswith("Thank you, I will remember that.")


def test_a_correct_rewrite_is_stored_without_a_reask(memory):
    console, learner, _, _ = session(ASKS, memory, TWO_TRIPS)
    objects_line = console.transcript.entries[1].output
    learner.llm = llm = ScriptedLLM([PROBLEM, BETTER, correct(objects_line)])
    console.execute("learn_from_interaction()")
    assert learner.last_outcome.status == LearnStatus.LEARNED and len(llm.calls) == 3
    assert memory.count() == 1


MILK = ["wait_for_trigger()", LOCATIONS, TABLE,
        "grasp('milk-carton_0')", "grasp('coffee-cup_0')",            # fails: not at the counter
        HUMAN, "handover_object_to_human('milk-carton_0')",           # fails (the world's plan)
        "handover_object_to_human('milk-carton_0')",                  # fails again
        "say('Sorry, I cannot hand it over.')\nwait_for_trigger()",
        TABLE, "place_object('milk-carton_0', 'on_dining-table_0')", "wait_for_trigger()"]
MILK_SAID = ["can I have the milk?", "then just put it back on the table",
             "next time, put it on the table right away when the handover fails - remember that"]


def test_corrected_mode_stores_what_worked_with_the_corrections_as_comments(memory):
    console, learner, spoken, _ = session(MILK_SAID, memory, MILK, mode="corrected")
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.STORED_CORRECTED, entry.output
    assert learner.llm.calls == []                     # no generation
    [example] = memory.list("corrected")
    sources = [e.source for e in Transcript.parse(example.transcript)]
    assert sources == [
        "wait_for_trigger()",
        f"# The user's lesson for this request: {MILK_SAID[2]!r}",
        LOCATIONS, TABLE, "grasp('milk-carton_0')", HUMAN,
        f"# The user said: {MILK_SAID[1]!r}",
        TABLE, "place_object('milk-carton_0', 'on_dining-table_0')", "wait_for_trigger()"]
    # the request with its reply; the outputs are the world's
    parsed = Transcript.parse(example.transcript)
    assert parsed.user_utterances() == [MILK_SAID[0]]
    assert (
        "'failure" not in example.transcript and "learn_from_interaction" not in example.transcript
    )
    assert spoken[-1] == "Thank you, I will remember what worked and what you told me."


def test_a_failure_that_says_why_is_a_failed_statement():
    """Issue 31: 'failure: <why>' is left out of corrected and final examples like 'failure'."""
    from llm_interaction_node.core.learning.transcripts import failed
    from llm_interaction_node.core.transcript.transcript import Entry
    assert failed(Entry("grasp('milk-carton_0')", "'failure: milk-carton_0 is on the dining "
                        "table; the robot is in front of the kitchen counter'"))
    assert failed(Entry("grasp('milk-carton_0')", "'failure'"))
    assert not failed(Entry("grasp('milk-carton_0')", "'success'"))
    assert not failed(Entry("say('x')", "'failure is not an option'"))


def test_corrected_mode_refuses_an_example_the_world_does_not_replay(memory):
    """Dropping the failed handovers makes the kept third one the world's first, which fails."""
    statements = MILK[:8] + ["handover_object_to_human('milk-carton_0')", "wait_for_trigger()"]
    said = ["can I have the milk?", "well done for trying again, remember that"]
    console, learner, spoken, _ = session(said, memory, statements, mode="corrected")
    assert console.transcript.entries[-2].output == "'success'"     # the third handover worked
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.REPLAY_FAILED
    assert "handover_object_to_human('milk-carton_0')" in entry.output
    assert ("the world returns 'failure: the human did not take milk-carton_0; "
            "it is still in the right hand'") in entry.output
    assert memory.count() == 0 and spoken[-1] == SAY_REPLAY_FAILED


WRONG_THEN_RIGHT = ["wait_for_trigger()", LOCATIONS, COUNTER, "grasp('coffee-cup_0')", HUMAN,
                    "handover_object_to_human('coffee-cup_0')", "wait_for_trigger()",
                    COUNTER, "grasp('mango-juice_0')", HUMAN,
                    "handover_object_to_human('mango-juice_0')", "wait_for_trigger()"]
WRONG_THEN_RIGHT_SAID = ["could I get some mango juice?", "that is the cup, not the juice",
                         "great, remember that for next time"]


def test_final_mode_stores_only_the_accepted_attempt_with_the_worlds_outputs(memory):
    """The rejected attempt (the cup: every statement 'success') is not in the example; the
    accepted one is, replayed from the interaction's start, after the interaction's first look
    at the scene (the listing every seed example opens with)."""
    console, learner, spoken, _ = session(WRONG_THEN_RIGHT_SAID, memory, WRONG_THEN_RIGHT,
                                          mode="final")
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert learner.llm.calls == []                     # no generation
    [example] = memory.list("final")
    parsed = Transcript.parse(example.transcript)
    # the closing reply only praises and asks to learn: no comment (gate.asks_only_to_learn)
    assert [e.source for e in parsed] == [
        "wait_for_trigger()", LOCATIONS, COUNTER, "grasp('mango-juice_0')", HUMAN,
        "handover_object_to_human('mango-juice_0')", "wait_for_trigger()"]
    assert parsed.user_utterances() == [WRONG_THEN_RIGHT_SAID[0]]
    assert "mango-juice_0" in parsed.entries[1].output               # the look, as the world said
    assert [e.output for e in parsed][2:6] == ["'success'"] * 4     # the world's outputs
    assert "coffee-cup" not in example.transcript.split(LOCATIONS)[1].split("\n", 2)[2]
    assert spoken[-1] == "Thank you, I will remember how you wanted it done."


def test_final_mode_refuses_an_attempt_that_only_works_after_the_rejected_one(memory):
    """The milk was grasped in the rejected attempt: from the start, placing it fails."""
    console, learner, spoken, _ = session(MILK_SAID, memory, MILK, mode="final")
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.REPLAY_FAILED, entry.output
    assert "place_object('milk-carton_0', 'on_dining-table_0')" in entry.output
    assert "does not work from the start" in entry.output
    assert memory.count() == 0 and spoken[-1] == SAY_REPLAY_FAILED


def test_final_example_keeps_the_earlier_bindings_the_accepted_attempt_reads():
    live = Transcript.parse(""">>> wait_for_trigger()
{'type': 'dialog', 'text': 'put all the blocks in the blue bowl'}
>>> blocks = [n for n in get_obj_names() if 'block' in n]
>>> target = get_obj_pos('red bowl')
>>> for b in blocks:
...     put_first_on_second(b, target)
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'that is the red bowl, not the blue one'}
>>> target = get_obj_pos('blue bowl')
>>> for b in blocks:
...     put_first_on_second(b, target)
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'well done, the blue bowl is the one, learn that for next time'}
>>> learn_from_interaction()""")
    example = final_example(live)
    assert [e.source for e in example] == [
        "wait_for_trigger()",
        "# The user's lesson for this request: "
        "'well done, the blue bowl is the one, learn that for next time'",
        "blocks = [n for n in get_obj_names() if 'block' in n]",      # read, bound earlier
        "target = get_obj_pos('blue bowl')",                          # the red one is not kept
        "for b in blocks:\n    put_first_on_second(b, target)", "wait_for_trigger()"]
    assert all(not e.output for e in example.entries[2:])      # for the replay to fill
    assert final_example(live, outputs=False) == example
    assert final_example(Transcript.parse(">>> say('hello')")) is None


def test_corrected_example_of_an_interaction_without_a_request_is_none():
    assert corrected_example(Transcript.parse(">>> say('hello')")) is None


def test_the_ros_start_builds_the_world_from_its_file_and_the_perceived_scene():
    """The interaction node's start: the knowledge world file + what the robot perceives."""
    file = world_path("drinks_and_cup")
    robot = make_world("humanoid", "drinks_and_cup")
    console = build_console("humanoid", robot, EventQueue(["juice please"], close=True))
    for s in ["wait_for_trigger()", COUNTER, "grasp('mango-juice_0')"]:
        console.execute(s)
    held = Transcript.parse(""">>> wait_for_trigger()
{'type': 'dialog', 'text': 'juice please'}
>>> handover_object_to_human('mango-juice_0')
'success'
>>> wait_for_trigger()""")
    start = household_start_from_scene(file, robot.scene())  # the juice is in a hand now
    assert (
        replay_check("humanoid", start)(held).mismatch is not None
    )  # no base pose: not near the human
    moved = Transcript.parse(held.render().replace(
        ">>> handover", f">>> {HUMAN}\n'success'\n>>> handover"))
    assert replay_check("humanoid", start)(moved).mismatch is None
    fresh = household_start_from_scene(file, make_world("humanoid", "drinks_and_cup").scene())
    assert replay_check("humanoid", fresh)(moved).mismatch.startswith(
        "at input 3 (handover_object_to_human('mango-juice_0')) the transcript shows 'success'")
    # an object the world file does not know: no world, syntax and names only
    alien = SceneObject(
        "alien-cup_0", "cup", robot.scene()[0].pose, "on_kitchen-counter_0", ("grasp",)
    )
    assert household_start_from_scene(file, [alien])() is None
    assert replay_check("humanoid", household_start_from_scene(file, [alien]))(moved) is None


def test_the_tabletop_start_keeps_the_objects_where_they_were():
    robot = make_world("tabletop", "red block,blue bowl", seed=3)
    pos = robot.object_position("red block")
    start = interaction_start(robot)()
    console = build_console(
        "tabletop", robot, EventQueue(["put the red block in the blue bowl"], close=True)
    )
    for s in ["wait_for_trigger()", "get_obj_pos('red block')",
              "put_first_on_second('red block', 'blue bowl')", "wait_for_trigger()"]:
        try:
            console.execute(s)
        except EndOfInteraction:      # the last wait: no more user input
            break
    assert (robot.object_position("red block") != pos).any()
    assert replay_check("tabletop", start)(console.transcript).mismatch is None


def test_outputs_left_out_of_a_rewrite_are_the_worlds_in_the_stored_example(memory):
    """Leaving an output out invents nothing: the stored example gets the world's."""
    console, learner, _, _ = session(ASKS, memory, TWO_TRIPS)
    objects_line = console.transcript.entries[1].output
    bare = correct(objects_line).replace(f"\n{objects_line}", "").replace("\n'success'", "")
    assert "'success'" not in bare
    learner.llm = llm = ScriptedLLM([PROBLEM, BETTER, bare])
    console.execute("learn_from_interaction()")
    assert learner.last_outcome.status == LearnStatus.LEARNED and len(llm.calls) == 3
    [example] = memory.list("learned")
    assert (
        example.transcript == imp.stored_example(Transcript.parse(correct(objects_line))).render()
    )


# -- the replayed world must end like the live one (issue 17: mode final) -------------------
def test_final_mode_with_the_live_world_keeps_the_earlier_statements_the_attempt_needs(memory):
    """The milk was grasped in the rejected attempt: the accepted attempt alone fails from the
    start, so every statement that worked is tried, and what its end does not need dropped."""
    console, learner, spoken, _ = session(MILK_SAID, memory, MILK, mode="final", live=True)
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert "earlier statement(s) that worked" in entry.output
    [example] = memory.list("final")
    sources = [e.source for e in Transcript.parse(example.transcript)]
    assert sources == [
        "wait_for_trigger()",
        f"# The user's lesson for this request: {MILK_SAID[2]!r}",
        LOCATIONS,                 # the first look at the scene, never trimmed
        TABLE,
        "grasp('milk-carton_0')",  # the rejected attempt's
        TABLE,
        "place_object('milk-carton_0', 'on_dining-table_0')",
        "wait_for_trigger()",
    ]
    assert "'failure" not in example.transcript
    assert spoken[-1] == "Thank you, I will remember how you wanted it done."


@pytest.fixture
def table_memory(tmp_path):
    return ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "memory")))


OBJECTS = "red block,blue block,green block,red bowl,blue bowl,green bowl"
PUT = "put_first_on_second('{}', '{}')"
MATCHING = [
    "wait_for_trigger()",
    PUT.format("blue block", "blue bowl"),  # red on blue in PyBullet
    PUT.format("red block", "blue bowl"),
    PUT.format("green block", "green bowl"),
    "wait_for_trigger()",
    PUT.format("red block", "red bowl"),
    "wait_for_trigger()",
]
MATCHING_SAID = ["put the blocks in the bowls with matching colors",
                 "the red block is in the blue bowl, it belongs in the red bowl",
                 "well done, learn that for next time"]


def stored_sources(memory):
    [example] = memory.list("final")
    return example, [e.source for e in Transcript.parse(example.transcript)]


@pytest.mark.parametrize("world", ["2d", "pybullet"])
def test_final_example_that_only_fixes_the_last_block_keeps_the_earlier_working_puts(
        table_memory, world, caplog):
    """matching_bowls as seen (docs/evaluation.md): the accepted attempt moves only the red
    block; replayed alone from the start the other blocks stay on the table. Stored: the puts
    that worked, the rejected red put dropped; replayed, it ends like the live world (also
    when that is PyBullet and the replay the 2-D world)."""
    robot = TabletopWorldBullet.from_names(OBJECTS.split(","), seed=0) if world == "pybullet" \
        else make_world("tabletop", OBJECTS, seed=0)
    try:
        console, learner, spoken, _ = session(MATCHING_SAID, table_memory, MATCHING, mode="final",
                                              live=True, api="tabletop", robot=robot)
        assert [e.output for e in console.transcript.entries[1:4]] == ["'success'"] * 3
        with caplog.at_level("INFO", logger="llm_interaction_node.core.learning.final"):
            entry = console.execute("learn_from_interaction()").entry
        assert learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
        assert entry.output == ("Stored the request and the statements of the accepted attempt "
                                "after 2 earlier statement(s) that worked (the attempt alone does "
                                "not end as the world is now) in the memory.")
        assert "(the world ends differently: the blue block ends on the table at" in caplog.text
        # the net moves (the rejected red put replaced by the accepted one) end like the live
        # world; neither of the two other puts can go: 1 + 1 + 2 replays
        assert "kept 2 of the 3 earlier statements that worked (4 replays)" in caplog.text
        example, sources = stored_sources(table_memory)
        assert sources == [
            "wait_for_trigger()",
            PUT.format("blue block", "blue bowl"),
            PUT.format("green block", "green bowl"),
            PUT.format("red block", "red bowl"),
            "wait_for_trigger()",
        ]
        replayed = replay_check(
            "tabletop",
            interaction_start(make_world("tabletop", OBJECTS, seed=0))(),
            live=live_end(robot),
        )(Transcript.parse(example.transcript))
        assert replayed.end_checked and replayed.end_differs is None and replayed.mismatch is None
        assert spoken[-1] == "Thank you, I will remember how you wanted it done."
    finally:
        if world == "pybullet":
            robot.close()


def test_final_example_whose_accepted_attempt_solves_the_request_is_stored_alone(table_memory):
    statements = ["wait_for_trigger()", PUT.format("red block", "blue bowl"), "wait_for_trigger()",
                  PUT.format("red block", "red bowl"), "wait_for_trigger()"]
    said = ["put the red block in the red bowl", "that is the blue bowl",
            "well done, learn that for next time"]
    console, learner, _, _ = session(said, table_memory, statements, mode="final", live=True,
                                     api="tabletop", world=OBJECTS)
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert entry.output == ("Stored the request and the statements of the accepted attempt in "
                            "the memory.")
    _, sources = stored_sources(table_memory)
    assert sources[1:] == [PUT.format("red block", "red bowl"), "wait_for_trigger()"]


BY_HAND = ["wait_for_trigger()", PUT.format("red block", "blue bowl"), "wait_for_trigger()",
           PUT.format("red block", "red bowl"), "wait_for_trigger()"]
BY_HAND_SAID = ["put the red and the blue block in their bowls",
                "the red one goes in the red bowl; I put the blue one in myself",
                "good, remember that"]


def hand_moved_session(memory, mode):
    """The user puts the blue block into the blue bowl by hand during the interaction: no
    statement did it, so no replay ends like the live world."""
    robot = make_world("tabletop", OBJECTS, seed=0)
    console, learner, spoken, _ = session(BY_HAND_SAID, memory, BY_HAND[:2], mode=mode,
                                          live=True, api="tabletop", robot=robot)
    robot.pick_and_place(robot.object_position("blue block"), robot.object_position("blue bowl"))
    for statement in BY_HAND[2:]:
        console.execute(statement)
    return console, learner, spoken


def test_final_example_whose_live_end_cannot_be_reproduced_is_refused(table_memory):
    console, learner, spoken = hand_moved_session(table_memory, "final")
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.REPLAY_FAILED, entry.output
    assert entry.output.startswith("Nothing was learned: replayed in the simulated world from the "
                                   "start, no form of the example ends as the world is now")
    assert "with every statement that worked: the world ends differently: the blue block ends " \
           "on the table" in entry.output and "in the blue bowl in the live world" in entry.output
    assert table_memory.count() == 0 and spoken[-1] == SAY_END_DIFFERS


def test_corrected_mode_refuses_an_example_that_does_not_end_like_the_live_world(table_memory):
    console, learner, spoken = hand_moved_session(table_memory, "corrected")
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.REPLAY_FAILED, entry.output
    assert "does not end as the world is now: the blue block ends on the table" in entry.output
    assert table_memory.count() == 0 and spoken[-1] == SAY_END_DIFFERS


def test_the_trimming_of_a_final_example_is_bounded(table_memory):
    """Many earlier statements that worked: at most MAX_FINAL_REPLAYS replays, and what was
    not tried to drop is kept (the example still ends like the live world)."""
    queries = ["get_obj_pos('red bowl')"] * (MAX_FINAL_REPLAYS + 2)
    statements = MATCHING[:4] + queries + MATCHING[4:]
    console, learner, _, _ = session(MATCHING_SAID, table_memory, statements, mode="final",
                                     live=True, api="tabletop", world=OBJECTS)
    calls = []
    check = learner.check
    learner.check = lambda t, *ends: calls.append(t) or check(t, *ends)
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert len(calls) == MAX_FINAL_REPLAYS
    _, sources = stored_sources(table_memory)
    assert PUT.format("red block", "blue bowl") not in sources      # replaced by the last put
    # replays: the attempt, the net moves, the two puts that stay, then one per query dropped
    assert sources.count("get_obj_pos('red bowl')") == len(queries) - (MAX_FINAL_REPLAYS - 4)


def test_worked_example_is_every_statement_that_worked_without_the_corrections():
    live = Transcript.parse(""">>> wait_for_trigger()
{'type': 'dialog', 'text': 'put the blocks in their bowls'}
>>> put_first_on_second('red block', 'blue bowl')
'success'
>>> put_first_on_second('cyan block', 'blue bowl')
'failure'
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'the red block goes in the red bowl'}
>>> put_first_on_second('red block', 'red bowl')
'success'
>>> wait_for_trigger()
{'type': 'dialog', 'text': 'well done, remember that'}""")
    assert [e.source for e in worked_example(live)] == [
        "wait_for_trigger()",
        "# The user's lesson for this request: 'well done, remember that'",
        "put_first_on_second('red block', 'blue bowl')",
        "put_first_on_second('red block', 'red bowl')",
        "wait_for_trigger()",
    ]
    assert [e.source for e in final_example(live, read=TABLE_READS)][1:] == [
        "put_first_on_second('red block', 'red bowl')", "wait_for_trigger()"]


STACK_OBJECTS = "yellow block,green block,blue block,red bowl,green bowl,orange bowl,yellow bowl"
LEFT = "left side"
STACKED_LEFT = [   # blocks_on_place run 3 (docs/eval/learning/ours), statement by statement
    "wait_for_trigger()", "get_obj_names()",
    PUT.format("yellow block", "green bowl"), PUT.format("green block", "green bowl"),
    PUT.format("blue block", "green bowl"), PUT.format("red bowl", "green bowl"),
    PUT.format("green bowl", "orange bowl"), PUT.format("orange bowl", "green bowl"),
    PUT.format("green bowl", "orange bowl"),
    "wait_for_trigger()", PUT.format("blue block", LEFT), PUT.format("blue block", LEFT),
    "wait_for_trigger()", PUT.format("yellow block", LEFT), PUT.format("green block", LEFT),
    PUT.format("yellow block", LEFT),
    "wait_for_trigger()",
]
STACKED_LEFT_SAID = [
    "put all the blocks on the left side",
    "That is not right. Look, the blue block is in the orange bowl. I wanted it on the left side.",
    "Hmm, the yellow block and the green block are in the green bowl. I wanted them on the left "
    "side.",
    "Now it is correct. Memorize how you did that."]


def test_final_example_of_a_stack_built_over_corrections_is_the_last_move_of_each_block(
        table_memory):
    """As measured in PyBullet (replayed in the 2-D world): each block was moved into a bowl,
    then to the left side over two corrections (one put twice), the bowls put on each other
    (they fell back). Replayed from the start, the accepted attempt alone leaves the blue block
    in the bowl, every statement that worked stacks the blocks in another order, the last move
    of each object moves the bowls. The form that ends like it: the last move of each block,
    bottom first, the bowl moves the live world did not keep dropped; as the request asked for
    all the blocks and that form moves every block the scene lists to one place, it is stored as
    one loop over them (:mod:`.general`; their order in the pile was not chosen)."""
    robot = TabletopWorldBullet.from_names(STACK_OBJECTS.split(","), seed=0)
    try:
        console, learner, _, _ = session(STACKED_LEFT_SAID, table_memory, STACKED_LEFT,
                                         mode="final", live=True, api="tabletop", robot=robot)
        entry = console.execute("learn_from_interaction()").entry
        assert learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
        assert entry.output.endswith("as one move of every block the scene lists in the "
                                     "memory.")
        _, sources = stored_sources(table_memory)
        assert sources[2:] == [
            "block_names = [name for name in get_obj_names() if name.endswith(' block')]",
            f"for name in block_names:\n    put_first_on_second(name, '{LEFT}')",
            "wait_for_trigger()"]
    finally:
        robot.close()


REPEATED_LEFT = [   # blocks_on_place run 3 (session 38, docs/eval/learning_act/), as run
    "wait_for_trigger()", "get_obj_names()",
    PUT.format("yellow block", "green bowl"), PUT.format("green block", "green bowl"),
    PUT.format("blue block", "green bowl"), PUT.format("yellow block", "green bowl"),
    PUT.format("green block", "green bowl"), "# That repeats what was already done.",
    "wait_for_trigger()", "# the left side, all of them",
    PUT.format("yellow block", LEFT), PUT.format("blue block", LEFT),
    PUT.format("yellow block", LEFT), PUT.format("green block", LEFT),
    PUT.format("yellow block", LEFT), PUT.format("green block", LEFT),
    PUT.format("blue block", LEFT), PUT.format("yellow block", LEFT),
    PUT.format("green block", LEFT),
    "wait_for_trigger()",
]


@pytest.mark.parametrize("request_text, loop", [
    ("put all the blocks on the left side", True),      # as measured: one loop over the blocks
    ("put the yellow, the green and the blue block on the left side", False),
])
def test_a_final_lesson_keeps_no_comment_of_the_model(table_memory, request_text, loop):
    """Measured: the model's comments entered final lessons ("# red block goes in green bowl
    instead of red bowl." above putting it in the red bowl) and were imitated. Stored: the
    statements that worked, no comment at all: the closing reply only praises and asks to
    learn, so not even the lesson's (gate.asks_only_to_learn). Each block is put once: the
    puts repeated word for word piled the blocks in an order nobody chose, so the height in
    the pile is not compared (final.repeated_moves); measured, the seven puts for three
    blocks were stored and imitated. Where the request asked for all the blocks, the lesson
    is one loop over them (:mod:`.general`), otherwise each is named once."""
    robot = TabletopWorldBullet.from_names(STACK_OBJECTS.split(","), seed=0)
    try:
        console, learner, _, _ = session(
            [request_text,
             "That is not right. That is in the green bowl, not on the left side.",
             "That is right now. Please keep that in mind for the future."],
            table_memory, REPEATED_LEFT, mode="final", live=True, api="tabletop", robot=robot)
        entry = console.execute("learn_from_interaction()").entry
        assert learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
        _, sources = stored_sources(table_memory)
        puts = [s.split("'")[1] for s in sources if s.startswith("put_first_on_second(")]
        assert sorted(puts) == ([] if loop else ["blue block", "green block", "yellow block"])
        assert any(s.startswith("for name in block_names:") for s in sources) is loop
        assert [s for s in sources if s.startswith("#")] == []
    finally:
        robot.close()


def test_last_moves_keep_each_objects_last_move_and_every_step():
    from llm_interaction_node.core.learning.final import last_moves, move_key
    from llm_interaction_node.core.transcript.transcript import Entry
    sources = ["move_to('kitchen')", "grasp('cup')", "place('cup', 'table')", "move_to('kitchen')",
               "grasp('cup')", "place('cup', 'shelf')", "x = get_obj_names()",
               "put_first_on_second(x[0], 'bowl')", "put_first_on_second(x[0], 'bowl')"]
    kept = [e.source for e in last_moves([Entry(s) for s in sources])]
    assert kept == sources[:2] + sources[3:]        # only the first place of the cup goes
    assert move_key("place('cup', target='shelf')") == ("place", "cup")
    assert move_key("put_first_on_second(x[0], 'bowl')") is None
    assert move_key("grasp('cup')") is None and move_key("not python(") is None


def test_a_look_is_a_bare_call_without_positional_arguments_that_printed_something():
    from llm_interaction_node.core.learning.final import is_look
    from llm_interaction_node.core.transcript.transcript import Entry
    assert is_look(Entry("get_obj_names()", "['red block']"))
    assert is_look(Entry("list_object_locations(affordance='grasp')", "[('cup', 'table')]"))
    assert not is_look(Entry("get_obj_names()"))                       # printed nothing
    assert not is_look(Entry("names = get_obj_names()", "['red block']"))  # a binding
    assert not is_look(Entry("get_obj_pos('red block')", "(0.1, 0.2)"))    # about one object


@pytest.mark.parametrize("closing, kept", [
    ("Perfect, make a note of that for the future.", False),
    ("Good job, learn from your mistakes.", False),
    ("Now it is correct. Memorize how you did that.", False),
    ("good, but the red block always goes in the red bowl. remember that", True),
    ("remember that the red one belongs in the red bowl", True)])
def test_a_lesson_shows_the_closing_reply_only_where_it_says_more_than_learn_this(closing, kept):
    """Measured (issue 30): with "# The user's lesson for this request: 'Perfect, make a note
    of that for the future.'" in its examples the 1.5B model wrote comments in that voice
    into its turns (invented words too); the words teach nothing. Words that say how stay."""
    live = Transcript.parse(f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': 'put the red block in its bowl'}}
>>> put_first_on_second('red block', 'blue bowl')
'success'
>>> wait_for_trigger()
{{'type': 'dialog', 'text': 'that is the blue bowl'}}
>>> put_first_on_second('red block', 'red bowl')
'success'
>>> wait_for_trigger()
{{'type': 'dialog', 'text': {closing!r}}}""")
    for lesson in (final_example(live, read=TABLE_READS),
                   corrected_example(live, TABLE_READS)):
        comment = f"# The user's lesson for this request: {closing!r}"
        assert ([e.source for e in lesson][1] == comment) == kept, lesson.render()


DIRECTION_OBJECTS = "blue block,yellow block,green block,red bowl,yellow bowl,blue bowl"
CORNER = "put_first_on_second('{}', 'top right corner')"
WRONG_CHOICE = ("That is not what I wanted. The block you picked was a block below the yellow "
                "bowl. Try once more, please.")
CHOSEN = ["chosen = min(['yellow block', 'green block'], key=lambda n: get_obj_pos(n)[0])",
          CORNER.format("chosen").replace("'chosen'", "chosen")]


def direction_session(table_memory, world, correction, accepted):
    robot = TabletopWorldBullet.from_names(DIRECTION_OBJECTS.split(","), seed=0) \
        if world == "pybullet" else make_world("tabletop", DIRECTION_OBJECTS, seed=0)
    console, learner, spoken, _ = session(
        ["pick up the block to the left of the yellow bowl and place it on the top right "
         "corner", correction, "That is right now. Please keep that in mind for the future."],
        table_memory, ["wait_for_trigger()", "get_obj_names()", CORNER.format("blue block"),
                       "wait_for_trigger()", *accepted, "wait_for_trigger()"],
        mode="final", live=True, api="tabletop", robot=robot)
    return console, learner, spoken, robot


@pytest.mark.parametrize("world", ["2d", "pybullet"])
@pytest.mark.parametrize("correction, accepted, stored", [
    (WRONG_CHOICE, CHOSEN, CHOSEN),
    ("That is in the top right corner, and the yellow block should be there too.",
     [CORNER.format("yellow block")],
     [CORNER.format("blue block"), CORNER.format("yellow block")])])
def test_a_final_lesson_leaves_out_the_object_the_user_called_the_wrong_choice(
        table_memory, world, correction, accepted, stored):
    """block_direction_of_bowl run 4 (issue 30): the blue block went to the corner, the user
    said it was the wrong block, the other one went there too and was accepted. The blue
    block still lies in the corner, so the lesson replayed to end like the live world moved
    both; a wrong choice is no part of the lesson, and where it lies is not compared. Where
    the reply does not call it the wrong choice, the earlier move stays."""
    console, learner, _, robot = direction_session(table_memory, world, correction, accepted)
    try:
        entry = console.execute("learn_from_interaction()").entry
        assert learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
        _, sources = stored_sources(table_memory)
        assert sources == ["wait_for_trigger()", "get_obj_names()", *stored, "wait_for_trigger()"]
    finally:
        if world == "pybullet":
            robot.close()


def test_a_lesson_that_only_names_the_right_object_after_a_wrong_choice_stores_the_choice(
        table_memory):
    """Measured (f09b4f8): "put_first_on_second('yellow block', 'top right corner')" stored
    for "the block to the left of the yellow bowl" was copied by the next selection request
    with its own first block; it shows which block was right there, not how to choose. The
    lesson computes the choice where a reading of the request's side takes that block
    (test_learning_choice.py: refused where none does)."""
    console, learner, spoken, _ = direction_session(table_memory, "2d", WRONG_CHOICE,
                                                    [CORNER.format("yellow block")])
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    _, sources = stored_sources(table_memory)
    assert "ref_pos = get_obj_pos('yellow bowl')" in sources
    assert CORNER.format("yellow block") not in sources and spoken[-1] != SAY_ONLY_THE_NAME

"""A stored rewrite leaves out the live model's comments it copied and its repeated moves.

The measured case (issue 30, blocks_in_bowl run 5 at a1c6717): the live model wrote a comment
in the learner's voice three times and put two blocks in the bowl twice; L_improve's rewrite
kept both (the comment four times) and was stored, and its comment spread to later turns.
"""
from __future__ import annotations

from learning_support import learning_session
from llm_interaction_node.core.learning.learner import LearnStatus
from llm_interaction_node.core.learning.tidy import (
    tidy_rewrite,
    without_copied_comments,
    without_repeated_moves,
)
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.store import ExampleMemory
from llm_interaction_node.core.transcript.transcript import Entry, Transcript

PUT = "put_first_on_second('{}', 'yellow bowl')"
NOISE = [f"# The user has learned from this interaction: '{text}'" for text in (
    "If one block is not in the right bowl, make sure to check the other bowl first.",
    "If the block is still not in the right bowl, try moving it to the other side of the table.",
    "If the block is still not in the right bowl, try moving it to the other side of the table.")]
SAID = ["put the blocks in the yellow bowl",
        "Hmm, that did not work out. The orange block is still not in the yellow bowl. "
        "Please try again.",
        "Great, learn from that for next time."]
OBJECTS = "orange block,blue block,red block,yellow block,yellow bowl"
READ = {SAID[0]: "do: every block -> yellow bowl", SAID[1]: "do: orange block -> yellow bowl",
        SAID[2]: "learn"}
LIVE = (["wait_for_trigger()", "get_obj_names()"]
        + [PUT.format(f"{c} block") for c in ("blue", "red", "yellow", "blue", "red")]
        + ["wait_for_trigger()"] + NOISE + [PUT.format("orange block"), "wait_for_trigger()"])
PROBLEM = "The robot did not check the other bowl first when the orange block was not in the bowl."
BETTER = "The robot should put every block in the yellow bowl, the orange one too."


def measured_rewrite(objects_line: str) -> str:
    """L_improve's answer as measured: the rejected puts, the noise comment four times, the fix."""
    puts = "\n".join(f">>> {PUT.format(f'{c} block')}\n'success'"
                     for c in ("blue", "red", "yellow", "blue", "red"))
    noise = "\n".join(f">>> {line}" for line in NOISE + NOISE[-1:])
    return f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': '{SAID[0]}'}}
>>> get_obj_names()
{objects_line}
{puts}
{noise}
>>> # every block goes in the yellow bowl, the orange one too
>>> {PUT.format('orange block')}
'success'
>>> wait_for_trigger()
{{'type': 'dialog', 'text': '{SAID[2]}'}}"""


def sources(transcript: Transcript) -> list[str]:
    return [e.source for e in transcript.entries]


def test_the_measured_rewrite_is_stored_without_the_copied_comments_and_repeated_puts(tmp_path):
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "memory")))
    console, learner, spoken, _ = learning_session(SAID, memory, LIVE, "improve", OBJECTS,
                                                   api="tabletop", all_ok=True, readings=READ)
    objects_line = console.transcript.entries[1].output
    learner.llm = ScriptedLLM([PROBLEM, BETTER, measured_rewrite(objects_line)])
    entry = console.execute("learn_from_interaction()").entry
    assert learner.last_outcome.status == LearnStatus.LEARNED, entry.output
    [example] = memory.list()
    assert sources(Transcript.parse(example.transcript)) == [
        "wait_for_trigger()", "get_obj_names()",
        PUT.format("blue block"), PUT.format("red block"), PUT.format("yellow block"),
        "# every block goes in the yellow bowl, the orange one too",    # the rewrite's lesson
        PUT.format("orange block"), "wait_for_trigger()"]


def test_a_comment_the_rewrite_writes_anew_stays_once_and_a_copied_line_leaves_its_input():
    original = Transcript([Entry("# check the bowl first\nget_obj_names()", "['a']")])
    rewrite = Transcript([Entry("# check the bowl first\nget_obj_names()", "['a']"),
                          Entry("# the lesson"), Entry("#  The LESSON "),
                          Entry("# check the bowl first")])
    kept = without_copied_comments(rewrite, original)
    assert sources(kept) == ["get_obj_names()", "# the lesson"]
    assert kept.entries[0].output == "['a']"


def test_a_repeated_move_stays_where_something_between_names_its_object():
    """A block put on the moved one, a grasp of it: the object may have moved since."""
    put = "put_first_on_second('{}', '{}')"
    entries = [Entry(s) for s in (
        put.format("blue block", "left side"), put.format("red block", "blue block"),
        put.format("blue block", "left side"),          # red was put on blue: stays
        put.format("red block", "blue block"),          # nothing named red since: a repeat
        "grasp('cup')", "place('cup', 'table')", "place('cup', 'table')",       # a repeat
        "grasp('cup')", "place('cup', 'table')",        # grasped between: stays
        "say('done')", "say('done')")]                  # not a move: stays
    assert sources(without_repeated_moves(Transcript(entries))) == [
        put.format("blue block", "left side"), put.format("red block", "blue block"),
        put.format("blue block", "left side"), "grasp('cup')", "place('cup', 'table')",
        "grasp('cup')", "place('cup', 'table')", "say('done')", "say('done')"]


def test_tidy_rewrite_does_both():
    original = Transcript([Entry("# mine"), Entry("place('cup', 'table')")])
    rewrite = Transcript([Entry("# mine"), Entry("place('cup', 'table')"),
                          Entry("place('cup', 'table')")])
    assert sources(tidy_rewrite(rewrite, original)) == ["place('cup', 'table')"]

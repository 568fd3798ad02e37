"""bench.turn_endings counts how turns end in benchmark run files (issue 20's numbers)."""
import json

from llm_interaction_node.bench.turn_endings import count_dir, count_run, main
from llm_interaction_node.core.agent import LOOP_NOTE

FIRST = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'put all the blocks on the top side'}
>>> get_obj_names()
['red block', 'blue block', 'green bowl']
>>> put_first_on_second('red block', denormalize_xy([0.5, 1]))
'success'
>>> put_first_on_second('red block', denormalize_xy([0.5, 1]))
'success'
>>> # """ + LOOP_NOTE + "\n"
SECOND = FIRST + """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'not all blocks are there yet'}
>>> # put the red block back where it was
... put_first_on_second('red block', start_xy['red block'])
'success'
>>> for name in [n for n in get_obj_names() if 'block' in n]:
...     put_first_on_second(name, denormalize_xy([0.5, 1]))
'success'
'success'
"""


def run(transcripts, error=None, kinds=("instruction", "high_level")):
    return {"transcripts": transcripts,
            "utterances": [[k, "..."] for k in kinds][:len(transcripts)],
            "observations": [{"error": None}] * (len(transcripts) - 1) + [{"error": error}]}


def test_a_note_followed_by_a_hand_back_an_undo_and_no_first_loop():
    c = count_run(run([FIRST, SECOND]))
    assert (c.runs, c.turns, c.handed_back, c.gave_up, c.loop_reset) == (1, 2, 2, 0, 0)
    assert (c.loop_notes, c.note_then_hand_back, c.note_then_went_on) == (1, 1, 0)
    assert (c.all_blocks_first, c.all_blocks_loop) == (1, 0)     # the loop came in turn 2
    assert (c.feedback_turns, c.feedback_undo) == (1, 1)


def test_a_statement_cap_and_a_loop_reset_are_counted():
    capped = FIRST.replace("# " + LOOP_NOTE, "# giving up: the limit of 15 statements")
    c = count_run(run([capped], error="error: the limit of 15 statements in one turn was reached"))
    assert (c.turns, c.handed_back, c.gave_up, c.loop_notes) == (1, 0, 1, 0)
    reset = run([FIRST, "# New task. Local variables were reset.\n"],
                error="reset: the same statement was repeated again")
    c = count_run(reset)
    assert (c.turns, c.handed_back, c.loop_reset) == (2, 1, 1)


def test_a_first_loop_over_get_obj_names_counts(tmp_path, capsys):
    looped = FIRST.split(">>> put_first_on_second")[0] + (
        ">>> block_names = [name for name in get_obj_names() if 'block' in name]\n"
        ">>> for name in block_names:\n...     put_first_on_second(name, 'green bowl')\n"
        "'success'\n'success'\n")
    (tmp_path / "runs" / "sa_si" / "t").mkdir(parents=True)
    (tmp_path / "runs" / "sa_si" / "t" / "run_01.json").write_text(json.dumps(run([looped])))
    c = count_dir(tmp_path)
    assert (c.all_blocks_first, c.all_blocks_loop, c.handed_back) == (1, 1, 1)
    assert main([str(tmp_path)]) == 0
    assert "all_blocks_loop" in capsys.readouterr().out
    assert main([str(tmp_path / "nope")]) == 2


def test_refused_echoed_and_unknown_object_inputs_are_counted(tmp_path):
    text = """>>> wait_for_trigger()
{'type': 'dialog', 'text': 'put the red block in the green bowl'}
>>> get_obj_names()
['red block', 'green bowl']
>>> put_first_on_second('red block', 'yellow bowl')
ValueError: unknown object 'yellow bowl'; use one of ['red block', 'green bowl']
>>> use
NameError: name 'use' is not defined
>>> # not run: put_first_on_second(): 'yellow bowl' is not in the scene
>>> put_first_on_second('red block', 'green bowl')
'success'
"""
    c = count_run(run([text], kinds=("instruction",)))
    assert (c.refused, c.echoed, c.unknown_object) == (1, 1, 1)
    for round_, body in ((1, text), (4, text)):
        folder = tmp_path / "runs" / "sa_si" / "t"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"run_{round_:02d}.json").write_text(
            json.dumps(dict(run([body], kinds=("instruction",)), round=round_)))
    assert count_dir(tmp_path).refused == 2 and count_dir(tmp_path, max_run=3).refused == 1

"""Decoding after a correction (core/decoding/correction.py), the tabletop's named places, and the
agent on a real 2-D tabletop with a scripted LLM: what the model READ of the request and the reply
(core/reading; the reading stand-in gives it), computed in the scene, becomes the only
objects and targets the next move can take, and the rejected move cannot be written again."""
import json
import re

import numpy as np
import pytest

from llm_interaction_node.core.agent import AgentConfig
from llm_interaction_node.core.apis.tabletop import MOVE as TABLETOP_MOVE
from llm_interaction_node.core.apis.tabletop import TabletopApi
from llm_interaction_node.core.decoding.constraint import ConsoleVocabulary
from llm_interaction_node.core.decoding.correction import focus_from
from llm_interaction_node.core.guides.focus import correction_focus
from llm_interaction_node.core.guides.order import guidance
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.reading import ReadingVocabulary, parse
from llm_interaction_node.core.reading.select import Scene
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import build_agent, build_console, make_world
from reading_support import scripted_reader

BLOCKS = ["yellow block", "green block", "blue block"]
SCENE = BLOCKS + ["red bowl", "green bowl"]
MOVE = "put_first_on_second"


def scene_of(names, positions=None) -> Scene:
    """A scene of ``names`` (positions: name -> (x, y))."""
    vocabulary = ReadingVocabulary.of(names, TABLETOP_MOVE.places, show_places=False)
    return Scene(vocabulary, (lambda n: positions[n]) if positions else None)


def read(clauses: str, scene: Scene, utterance: str = "(said)"):
    """The reading the model writes as ``clauses`` (lines), parsed as the reader parses it."""
    return parse(utterance, " " + clauses.replace("\n", "\n- ") + "\n\n", scene.vocabulary)


def focus(request: str, reply: str, scene: Scene, attempt=()):
    return focus_from(MOVE, TABLETOP_MOVE, read(request, scene), read(reply, scene), scene,
                      list(attempt))


def test_the_rejected_place_is_never_offered_again_and_the_wanted_one_is():
    scene = scene_of(SCENE)
    f = focus("do: every block -> left side", "do: none -> left side", scene,
              [(b, "bottom left corner") for b in BLOCKS])
    assert f.objects == tuple(BLOCKS)                 # every block, as the request reads
    assert all(f.targets_for(b) == ["left side"] for b in BLOCKS)
    assert ("blue block", "bottom left corner") in f.refused
    assert not f.free_targets                         # no coordinates now


def test_a_named_block_is_the_one_to_move_to_its_own_colour_bowl():
    scene = scene_of(SCENE)
    f = focus("do: every block -> the same color bowl", "do: green block -> none",
              scene, [("green block", "red bowl")])
    assert f.objects == ("green block",)
    assert f.targets_for("green block") == ["green bowl"]


def test_where_a_thing_lies_now_is_no_target_because_the_reading_keeps_only_the_wanted():
    """Measured before the readings (issue 30, blocks_on_place run 5): "the orange block went in
    the blue bowl instead of on the top side" made the blue bowl a target; the reading of that
    reply has the top side alone, and the focus offers it."""
    scene = scene_of(["orange block", "blue bowl", "yellow bowl", "red bowl"])
    f = focus("do: every block -> top side", "do: orange block -> top side", scene,
              [("orange block", "blue bowl")])
    assert f.objects == ("orange block",) and f.targets_for("orange block") == ["top side"]


def test_no_focus_without_a_reading_of_the_reply_or_a_target_and_elsewhere_frees_the_point():
    scene = scene_of(SCENE)
    assert focus_from(MOVE, TABLETOP_MOVE, read("do: every block -> left side", scene), None,
                      scene, []) is None
    assert focus("question", "wrong object", scene) is None
    offset = focus("do: blue block -> green bowl", "do: blue block -> elsewhere", scene)
    assert offset.free_targets


def test_a_thing_forgotten_of_a_request_that_says_no_place_goes_where_the_others_went():
    """Measured (issue 44): "the screwdriver and the sponge, please" (no place said), the
    screwdriver handed over, "You forgot the sponge.": no target, no focus. The attempt took
    the other one of that clause somewhere: the forgotten one goes there too."""
    scene = scene_of(SCENE)
    f = focus("do: blue block and green block -> none", "do: green block -> none", scene,
              [("blue block", "red bowl")])
    assert f.objects == ("green block",) and f.targets_for("green block") == ["red bowl"]
    # the clause's own place, where it says one, comes first; a lone object has no others
    assert focus("do: blue block and green block -> green bowl", "do: green block -> none",
                 scene, [("blue block", "red bowl")]).targets_for("green block") == ["green bowl"]
    assert focus("do: green block -> none", "do: green block -> none", scene,
                 [("blue block", "red bowl")]) is None


def test_the_code_computes_the_block_a_relation_means_and_a_wrong_block_is_refused():
    """After "Wrong cube." on "the block to the left of the green bowl": the model read the
    request as that relation, the code computes which block it is here, and only that block
    may be moved, to the place the request named; the block taken is never offered again."""
    positions = {"yellow block": (-0.2, -0.5), "green block": (0.2, -0.5),
                 "blue block": (-0.05, -0.45), "red bowl": (0.1, -0.7),
                 "green bowl": (0.05, -0.45)}
    scene = scene_of(SCENE, positions)
    f = focus("do: the block left of green bowl -> top left corner",
              "wrong object", scene, [("yellow block", "top left corner")])
    assert f.objects == ("blue block",)                # the nearest of those left of the bowl
    assert f.targets_for("blue block") == ["top left corner"]
    second = focus("do: the block number 2 from the left -> middle", "wrong object",
                   scene, [("yellow block", "middle")])
    assert second.objects == ("blue block",)
    nearest = focus("do: the block farthest from green bowl -> middle",
                    "wrong object", scene, [("blue block", "middle")])
    assert nearest.objects == ("yellow block",)


def test_a_reading_not_a_word_rule_decides_the_focus():
    """The same reply words, read two ways by the model (the stand-in): the focus follows the
    reading, whatever the words say (no rule over the words decides)."""
    scene = scene_of(SCENE)
    request = read("do: every block -> red bowl", scene)
    words = "The green block went in the green bowl instead of the red bowl."
    as_said = read("do: green block -> red bowl", scene, words)
    misread = read("do: blue block -> green bowl", scene, words)
    f = focus_from(MOVE, TABLETOP_MOVE, request, as_said, scene, [("green block", "green bowl")])
    g = focus_from(MOVE, TABLETOP_MOVE, request, misread, scene, [("green block", "green bowl")])
    assert f.objects == ("green block",) and f.targets_for("green block") == ["red bowl"]
    assert g.objects == ("blue block",) and g.targets_for("blue block") == ["green bowl"]


def test_the_tabletop_takes_named_places_and_logs_each_move_by_name():
    world = make_world("tabletop", ",".join(SCENE), seed=3)
    api = TabletopApi(world)
    assert api.put_first_on_second("blue block", "the Left side") == "success"
    assert np.allclose(api.get_obj_pos("blue block"), api.denormalize_xy([0, 0.5]), atol=0.01)
    assert api.put_first_on_second("yellow block", api.denormalize_xy([0, 1])) == "success"
    assert api.put_first_on_second("green block", "red bowl") == "success"
    assert api.moves == [("blue block", "left side"), ("yellow block", "top left corner"),
                         ("green block", "red bowl")]
    assert np.allclose(api.get_obj_pos("middle"), api.denormalize_xy([0.5, 0.5]))
    assert TabletopApi(world, named_places=False).place_point("middle") is None


ATTEMPT = ["get_obj_names()"] + [f"put_first_on_second({b!r}, denormalize_xy([0, 0]))"
                                 for b in BLOCKS] + ["wait_for_trigger()"]
FEEDBACK = ["put all the blocks on the left side",
            "That is in the bottom left corner, not on the left side."]
READINGS = {FEEDBACK[0]: "do: every block -> left side",
            FEEDBACK[1]: "do: none -> left side"}


def _tabletop_agent(responses, utterances, readings=None, **config):
    world = make_world("tabletop", ",".join(SCENE), seed=3)
    console = build_console("tabletop", world, EventQueue(utterances, close=True))
    llm = ScriptedLLM(responses)
    agent = build_agent("tabletop", llm, console, (),
                        config=AgentConfig(**{"function_generation": False, "idle_retries": 0,
                                              "correction_focus": True,
                                              "restate_correction": True,
                                              "repeat_actions_only": True, **config}),
                        reader=scripted_reader(READINGS if readings is None else readings))
    return agent, llm, world


def test_after_the_correction_the_grammar_offers_only_the_named_place():
    agent, llm, world = _tabletop_agent(
        ATTEMPT + ["put_first_on_second('blue block', 'left side')", "wait_for_trigger()"],
        FEEDBACK, repeat_notes=0)
    agent.run()
    sources = [e.source for e in agent.console.transcript]
    at = sources.index("# " + 'The user says: "That is in the bottom left corner, not on the '
                       "left side.\". Do that now.")
    assert sources[at + 1] == "put_first_on_second('blue block', 'left side')"
    grammar = llm.calls[len(ATTEMPT)]["grammar"]     # the corrected turn's first statement
    move_rules = [r for r in grammar.splitlines() if re.match(r"call-\d+-t\d+ ::=", r)]
    blocks = move_rules[:3]                   # the scene's blocks; a bowl cannot be moved
    assert len(move_rules) == 3 and all("'left side'" in r and "bottom left" not in r
                                        for r in blocks)
    after = llm.calls[-1]["grammar"]          # a move the turn made is not offered again
    again = next(r for r in after.splitlines() if re.match(r"call-\d+-args ::= .*-t\d", r))
    assert "'blue block'" not in again and "'yellow block'" in again
    args = next(r for r in grammar.splitlines() if re.match(r"call-\d+-args ::= .*-t0", r))
    assert "'blue block'" in args and "bowl'" not in args
    assert all("expr-arg" not in r for r in move_rules)          # no coordinates after it
    blue = np.asarray(world.object_position("blue block"))[:2]
    assert np.linalg.norm(blue - TabletopApi(world).denormalize_xy([0, 0.5])) < 0.06


def test_a_reply_is_read_with_the_attempt_in_view_and_the_one_moved_is_the_one_meant():
    """The reader sees what the attempt moved ("you moved: green block"): "not there, in the
    red bowl" (read ``do: none -> red bowl``) after a one-block attempt is about that block,
    and the next move may take only it, to the red bowl."""
    said = ["put the green block in the green bowl", "not there, in the red bowl"]
    readings = {said[0]: "do: green block -> green bowl", said[1]: "do: none -> red bowl"}
    attempt = ["put_first_on_second('green block', 'green bowl')", "wait_for_trigger()"]
    agent, llm, _ = _tabletop_agent(
        attempt + ["put_first_on_second('green block', 'red bowl')", "wait_for_trigger()"],
        said, readings, repeat_notes=0)
    agent.run()
    prompts = agent.reader.llm.prompts
    assert "you moved" not in prompts[0].rsplit("\nscene: ", 1)[1]       # the request
    assert "\nyou moved: green block\nsaid: not there" in prompts[1]
    reply = agent.readings[-1]
    assert reply.render() == "do: green block -> red bowl"
    grammar = llm.calls[len(attempt)]["grammar"]
    args = next(r for r in grammar.splitlines() if re.match(r"call-\d+-args ::= .*-t0", r))
    assert "'green block'" in args and "'yellow block'" not in args


def test_without_the_focus_the_copy_runs_as_before():
    copy = "put_first_on_second('blue block', denormalize_xy([0, 0]))"
    agent, _, _ = _tabletop_agent(ATTEMPT + [copy, "wait_for_trigger()"], FEEDBACK,
                                  repeat_notes=0, correction_focus=False,
                                  restate_correction=False)
    agent.run()
    sources = [e.source for e in agent.console.transcript]
    assert sources[-2:] == [copy, "wait_for_trigger()"]


def test_the_repeat_note_fires_on_a_copy_that_leaves_out_the_query():
    """Measured: copies leave out get_obj_names(), so a note comparing whole attempts never
    fired; it compares actions now."""
    copy = [f"put_first_on_second({b!r}, denormalize_xy([0, 0]))" for b in BLOCKS]
    responses = ATTEMPT + copy + ["wait_for_trigger()"] * 2
    for actions_only, noted in ((True, 1), (False, 0)):
        agent, _, _ = _tabletop_agent(list(responses), FEEDBACK, repeat_notes=1,
                                      correction_focus=False, restate_correction=False,
                                      repeat_actions_only=actions_only)
        agent.run()
        notes = [e.source for e in agent.console.transcript if "would do again" in e.source]
        assert len(notes) == noted


def test_reset_forgets_the_answered_attempt_and_its_focus():
    agent, _, _ = _tabletop_agent(ATTEMPT + ["wait_for_trigger()"], FEEDBACK)
    agent.run()
    assert len(agent.attempt_moves) == 3 and agent.answered
    assert correction_focus(agent) is not None
    agent._reset_interaction()
    assert agent.answered == [] and agent.task_utterances == [] and agent.attempt_moves == []
    assert correction_focus(agent) is None


@pytest.mark.slow
def test_the_correction_bench_runs_and_records_every_situation(tmp_path):
    from llm_interaction_node.bench.corrections import main
    assert main(["--scripted", "--world", "2d", "--scenes", "1", "--templates",
                 "blocks_in_bowl", "matching_bowls", "block_in_bowl", "--variants", "mechanisms",
                 "--out", str(tmp_path)]) == 0
    records = [json.loads(p.read_text()) for p in (tmp_path / "mechanisms").glob("*.json")]
    assert len(records) == 3
    assert {"situation", "template", "variant", "put_right", "changed", "copied",
            "transcript"} <= set(records[0])
    assert sum(r["put_right"] for r in records) >= 2 and not any(r["copied"] for r in records)
    summary = json.loads((tmp_path / "summary.json").read_text())["variants"]
    assert summary[0]["variant"] == "mechanisms" and not summary[0]["default"]
    assert summary[0]["situations"] == 3


def test_the_restating_comment_is_a_note_the_learner_leaves_out():
    """The restate comment quotes the user on one line and never enters a lesson."""
    from llm_interaction_node.core.transcript.notes import (
        is_console_note,
        restate_note,
        without_console_notes,
    )
    from llm_interaction_node.core.transcript.transcript import Entry, Transcript
    note = restate_note('put it in the "top"\n  left corner')
    assert note == "The user says: \"put it in the 'top' left corner\". Do that now."
    transcript = Transcript([Entry("wait_for_trigger()", "{'type': 'dialog', 'text': 'x'}"),
                             Entry("# " + note), Entry("# a comment of the model's own"),
                             Entry("put_first_on_second('red block', 'middle')", "'success'")])
    kept = without_console_notes(transcript)
    assert [e.source for e in kept] == ["wait_for_trigger()", "# a comment of the model's own",
                                        "put_first_on_second('red block', 'middle')"]
    assert is_console_note("# " + note) and not is_console_note("# The user said: 'nothing'")


def test_a_restating_comment_the_model_writes_itself_is_dropped():
    """Measured: after the console restated the reply, the model wrote more such comments with
    words the user never said, then handed back; they are not run and not kept."""
    fake = '# The user says: "I meant the green bowl". Do that now.'
    agent, _, world = _tabletop_agent(
        ATTEMPT + [fake + "\nput_first_on_second('blue block', 'left side')",
                   "wait_for_trigger()"], FEEDBACK, repeat_notes=0)
    agent.run()
    sources = [e.source for e in agent.console.transcript]
    assert fake not in sources and sum(s.startswith("# The user says") for s in sources) == 1
    assert "put_first_on_second('blue block', 'left side')" in sources


def test_a_lesson_comment_the_model_writes_into_its_turn_is_dropped():
    """Measured (issue 30, Table III): with final lessons in the prompt the model wrote their
    "# The user's lesson for this request: ..." comment into its own turns, between every
    two statements, with words nobody said; such an input is not run and not kept, while a
    stored lesson keeps its own (the learner writes it: transcripts.opening)."""
    from llm_interaction_node.core.learning.transcripts import CLOSING_REPLY_COMMENT, opening
    from llm_interaction_node.core.transcript.notes import without_console_notes
    from llm_interaction_node.core.transcript.transcript import Entry, Transcript
    copied = CLOSING_REPLY_COMMENT.format(text="Make sure to check the blocks first.")
    agent, _, _ = _tabletop_agent(
        ATTEMPT + [copied, "put_first_on_second('blue block', 'left side')", "wait_for_trigger()"],
        FEEDBACK, repeat_notes=0)
    agent.run()
    sources = [e.source for e in agent.console.transcript]
    assert copied not in sources
    assert "put_first_on_second('blue block', 'left side')" in sources
    lesson = Transcript(opening(Entry("wait_for_trigger()", "{'type': 'dialog', 'text': 'x'}"),
                                "Memorize how you did that: the blue block first."))
    assert lesson.entries[1].source.startswith("# The user's lesson for this request")
    assert len(without_console_notes(lesson).entries) == 1, "a copy in a live turn: a note"


def test_a_block_named_only_as_a_place_is_no_block_to_move():
    """Measured: after "the orange block went on the yellow block instead of in the orange
    bowl" the model moved the yellow block out of its right bowl too (worse than before). Read,
    the reply moves the orange block to the orange bowl; the yellow block is no object."""
    scene = scene_of(["orange block", "yellow block", "orange bowl", "yellow bowl"])
    f = focus("do: every block -> the same color bowl",
              "do: orange block -> orange bowl", scene,
              [("yellow block", "yellow bowl"), ("orange block", "yellow block")])
    assert f.objects == ("orange block",) and f.targets_for("orange block") == ["orange bowl"]


def test_forget_learned_is_offered_only_when_the_reply_is_read_as_forget():
    """Measured in the household: "You forgot the glass." -> forget_learned('glass'), which
    its gate refuses, and the turn was lost; the grammar leaves it out unless the model read
    the reply as a request to forget ("forgot" is a missing thing)."""
    from llm_interaction_node.core.decoding.constraint import Constraint
    forgot, forget = "You forgot the blue block.", "please forget what you learned about blocks"
    agent, _, _ = _tabletop_agent(["wait_for_trigger()"], [],
                                  readings={forgot: "do: blue block -> none",
                                            forget: "forget: none"})
    for utterance, withheld in ((forgot, {"forget_learned"}), (forget, set())):
        agent.console.builtins.utterances[:] = ["put all the blocks on the left side", utterance]
        agent.readings = [None, agent._read(utterance)]
        # neither is read as a request to learn: the learn call is left out too (issue 44)
        left_out = guidance(agent, ConsoleVocabulary.of(agent.console)).withheld
        assert left_out == withheld | {"learn_from_interaction"}
        grammar = Constraint(frozenset({"forget_learned", "say"}), withheld=left_out).gbnf()
        known = next(r for r in grammar.splitlines() if r.startswith("known ::= "))
        assert ('"forget_learned"' in known) == (not withheld) and '"say"' in known


def test_after_a_correction_that_names_the_place_the_first_statement_is_a_move_there():
    """agent.move_after_correction: measured, the 1.5B model answered "The orange block is
    still not in the yellow bowl" by defining look-alikes of the hand-back, turn after turn.
    Where the focus exists, the first statement (after comments) is a move within it; the
    next one is free; with the setting off, any statement is."""
    pytest.importorskip("llguidance")
    from grammar_support import accepted
    responses = ATTEMPT + ["# the left side", "put_first_on_second('blue block', 'left side')",
                           "wait_for_trigger()"]
    agent, llm, world = _tabletop_agent(responses, FEEDBACK, repeat_notes=0,
                                        restate_correction=False)
    agent.run()
    comment, first, after = [c["grammar"] for c in llm.calls][len(ATTEMPT):]
    for grammar in (comment, first):
        assert accepted(grammar, " put_first_on_second('blue block', 'left side')\n'success'\n")
        assert accepted(grammar, " # the left side")
        for other in ("get_obj_names()", "x = 1", "wait_for_trigger()",
                      "put_first_on_second('blue block', 'top side')"):
            assert not accepted(grammar, " " + other, whole=False), other
    assert accepted(after, " wait_for_trigger()") and accepted(after, " get_obj_names()")

    agent, llm, world = _tabletop_agent(responses, FEEDBACK, repeat_notes=0,
                                        restate_correction=False, move_after_correction=False)
    agent.run()
    assert accepted(llm.calls[len(ATTEMPT) + 1]["grammar"], " get_obj_names()")


def test_a_bowl_named_to_choose_the_block_is_no_place_to_move_it():
    """Measured: after "The block you picked was a block below the yellow bowl" the wrong
    block went into the yellow bowl (the focus offered it as a target). Read, the bowl is the
    relation's reference, never a target; without positions to compute the relation any block
    but the one taken may go to the place the request named."""
    names = ["blue block", "yellow block", "green block", "red bowl", "yellow bowl"]
    scene = scene_of(names)
    f = focus("do: the block left of yellow bowl -> top right corner",
              "wrong object", scene, [("blue block", "top right corner")])
    assert f.targets == ("top right corner",) and f.objects == ("yellow block", "green block")
    assert "yellow bowl" not in f.targets_for("green block")


def test_only_where_the_attempt_left_an_object_is_refused():
    """Measured (matching_bowls): the attempt put the red block in the red bowl, then in the
    orange one, then in the green one; "The red block went in the green bowl instead of in the
    red bowl" must offer the red bowl again (it refused every move of the attempt, and the
    focus was empty)."""
    scene = scene_of(["red block", "red bowl", "orange bowl", "green bowl"])
    f = focus("do: every block -> the same color bowl", "do: red block -> red bowl",
              scene, [("red block", "red bowl"), ("red block", "orange bowl"),
                      ("red block", "green bowl")])
    assert f is not None and f.objects == ("red block",)
    assert f.targets_for("red block") == ["red bowl"]


def test_a_comment_before_the_move_is_a_whole_input():
    """Measured (dev wording pool, blocks_in_bowl): under move_after_correction the model wrote
    "# green block is not in the yellow bowl yet" and went on in the same input with
    "... green_xy = get_obj_pos('green block')" lines; the move never came. The comment is a
    whole input now; the move's own input may still go on."""
    pytest.importorskip("llguidance")
    from grammar_support import accepted
    from llm_interaction_node.core.decoding.constraint import ConsoleVocabulary
    agent, _, _ = _tabletop_agent(["wait_for_trigger()"], [])
    vocabulary = ConsoleVocabulary.of(agent.console)
    scene = scene_of(SCENE)
    vocabulary.focus = focus("do: every block -> left side", "do: blue block -> left side", scene)
    vocabulary.move_now = True
    grammar = vocabulary.current().gbnf()
    assert accepted(grammar, " # the blue block")
    assert not accepted(grammar, " # the blue block\n... x = get_obj_pos('blue block')",
                        whole=False)
    assert accepted(grammar, " put_first_on_second('blue block', 'left side')\n'success'\n")


@pytest.mark.parametrize("request_text, reply, taken, meant", [
    # the reply names a block the request never spoke of ("yellow bowl" read as a block):
    # the request's block stands
    ("do: red block -> green bowl", "do: yellow block -> green bowl", {"red block"},
     ["red block"]),
    # "wrong object" about the very block the request names and the attempt took: the
    # rejection contradicts the task, the named block stands
    ("do: blue block -> red bowl", "wrong object\ndo: red block -> none", {"blue block"},
     ["blue block"]),
    # after "wrong object" the request's selection, computed here, if the attempt did not
    # take it (a reply's invented relation does not override it)
    ("do: the block left of green bowl -> middle",
     "wrong object\ndo: the block number 1 from the right -> none", {"yellow block"},
     ["blue block"]),
    # ... and where it did take it, what the reply says, else any block not taken
    ("do: the block left of green bowl -> middle", "wrong object\ndo: red block -> none",
     {"blue block"}, ["red block"]),
    ("do: the block left of green bowl -> middle", "wrong object", {"blue block"},
     ["yellow block", "green block", "red block"]),
    # a reply that narrows "every block" to one of them
    ("do: every block -> green bowl", "do: green block -> green bowl", {"red block"},
     ["green block"]),
])
def test_the_objects_meant_weigh_the_request_over_the_reply(request_text, reply, taken, meant):
    from llm_interaction_node.core.decoding.correction import objects_meant
    positions = {"yellow block": (-0.2, -0.5), "green block": (0.2, -0.5),
                 "blue block": (-0.05, -0.45), "red block": (0.1, -0.6),
                 "red bowl": (0.2, -0.3), "green bowl": (0.05, -0.45)}
    scene = scene_of(["yellow block", "green block", "blue block", "red block", "red bowl",
                      "green bowl"], positions)
    movable = ["yellow block", "green block", "blue block", "red block"]
    assert objects_meant(read(request_text, scene), read(reply, scene), scene, movable,
                         taken) == meant


def test_a_target_that_is_where_the_attempt_left_the_object_falls_through_to_the_request():
    """Measured: "the block you took should be on the left side, not in the bottom left
    corner" read as 'do: yellow block -> bottom left corner' (where it lies)."""
    scene = scene_of(SCENE)
    f = focus("do: yellow block -> left side", "do: yellow block -> bottom left corner", scene,
              [("yellow block", "bottom left corner")])
    assert f.objects == ("yellow block",) and f.targets_for("yellow block") == ["left side"]


def test_the_requests_relation_is_computed_in_the_scene_it_was_said_in():
    """Measured: "the cube closest to the green bowl", computed after the attempt had moved
    it to a corner, was another block, and the correction went to that one."""
    before = {"red block": (0.0, -0.5), "yellow block": (0.15, -0.5), "green bowl": (0.05, -0.5)}
    after = dict(before, **{"red block": (-0.25, -0.75)})
    names = list(before)
    f = focus_from(MOVE, TABLETOP_MOVE,
                   read("do: the block nearest to green bowl -> left side", scene_of(names)),
                   read("do: none -> left side", scene_of(names)), scene_of(names, after),
                   [("red block", "bottom left corner")],
                   request_scene=scene_of(names, before))
    assert f.objects == ("red block",) and f.targets_for("red block") == ["left side"]

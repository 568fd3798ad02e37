"""Habits: a lesson as an edit of the program (core/reading/edit.py, core/learning/habit.py,
core/guides/habits.py). The edit line is parsed against the scene, applied to statements
under its condition, bound to the anchor's thing; taught once in a session whose console
model and reader are scripted (the world, console, learner, replay and ChromaDB are real),
then applied by a NEW session on the same memory to a request in other words, and left out
of an unrelated one."""
from __future__ import annotations

import pytest

from llm_interaction_node.bench import household_situations as H
from llm_interaction_node.bench.reading_items import household_vocabulary
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.reading.edit import (
    ANY,
    REQUEST,
    Condition,
    Edit,
    Facts,
    apply,
    bound,
)
from llm_interaction_node.core.reading.edit_reading import (
    EditReadingError,
    form_text,
    grammar,
    parse,
    parse_form,
)
from llm_interaction_node.core.reading.kind_of import named_by_form
from llm_interaction_node.core.user.channel import CallbackUser
from llm_interaction_node.memory_cli import format_example
from llm_interaction_node.session import build_session
from llm_interaction_node.settings import Settings
from reading_support import ReadingScript

WORLD = "drinks_and_cup"
VOCABULARY = household_vocabulary(H.household_world(WORLD))
BRING = "bring_object_to({!r}, 'handover_to_human')"


def test_an_edit_line_names_only_what_the_scene_has_and_reads_back_as_an_edit():
    edit = parse('after handover_object_to_human of any thing: say("Careful, it is hot.")',
                 VOCABULARY, "whenever you hand me something, warn me")
    assert edit == Edit("after", Condition("handover_object_to_human", ANY),
                        ('say("Careful, it is hot.")',), said=edit.said)
    assert Edit.from_json(edit.to_json()) == edit
    never = parse("never place_object of every glass at the dining table", VOCABULARY)
    assert (never.op, never.when.thing, never.when.place) == \
        ("never", "every glass", "on_dining-table_0")
    hand = parse("set hand to left on grasp of the mango juice", VOCABULARY)
    assert (hand.argument, hand.value, hand.when.thing, hand.taught) == \
        ("hand", "left", "mango-juice_0", "mango-juice_0")
    assert parse("none", VOCABULARY) is None
    end = parse('after the request: say("All done.")', VOCABULARY)
    assert end.when.skill == REQUEST
    for bad in ("never grasp of the teapot",                      # no teapot here
                "never place_object of any thing at the garage",  # no garage
                "after grasp of any thing",                       # adds nothing
                "fly to the moon"):
        with pytest.raises(EditReadingError):
            parse(bad, VOCABULARY)
    rules = grammar(VOCABULARY)
    assert '"mango juice"' in rules and '"mango-juice_0"' in rules and "teapot" not in rules
    assert '"after you hand it over"' in rules


def test_edits_apply_to_the_calls_their_condition_holds_for():
    glass = {"tumbler_0"}
    facts = Facts(held=[], is_a=lambda thing, kind: kind == "glass" and thing in glass)
    never = parse("never place_object of every glass at the dining table", VOCABULARY)
    refused = apply([never], "place_object('tumbler_0', 'on_dining-table_0')", facts)
    assert refused.source is None and refused.refused
    for source in ("place_object('coffee-cup_0', 'on_dining-table_0')",    # not a glass
                   "place_object('tumbler_0', 'on_kitchen-counter_0')",   # another place
                   "grasp('tumbler_0')"):                                 # another skill
        assert apply([never], source, facts).source == source
    # a one-call bring to the table places there: refused too
    assert apply([never], "bring_object_to('tumbler_0', 'on_dining-table_0')", facts).source \
        is None
    warn = bound(Edit("after", Condition("handover_object_to_human", ANY),
                      ("say('Careful with the mango juice.')",), taught="mango-juice_0"))
    assert warn.statements == ("say('Careful with the {said}.')",)
    done = apply([warn], BRING.format("coffee-cup_0"), facts)       # the bring hands over
    assert done.after == ["say('Careful with the coffee cup.')"]
    assert apply([warn], "bring_object_to('coffee-cup_0', 'on_dining-table_0')", facts).after \
        == []
    hand = parse("set hand to left on grasp of every glass", VOCABULARY)
    assert apply([hand], "grasp('tumbler_0')", facts).source == "grasp('tumbler_0', hand='left')"
    assert apply([hand], "grasp('coffee-cup_0')", facts).source == "grasp('coffee-cup_0')"
    slow = parse("set speed_factor to 0.5 on move_to of the held thing", VOCABULARY)
    drive = "move_to(get_location_coordinates('handover_to_human'))"
    assert apply([slow], drive, Facts(held=["tumbler_0"])).source == \
        "move_to(get_location_coordinates('handover_to_human'), speed_factor=0.5)"
    assert apply([slow], drive, Facts()).source == drive              # empty hands
    assert apply([slow], BRING.format("tumbler_0"), Facts()).source == \
        "bring_object_to('tumbler_0', 'handover_to_human', speed_factor=0.5)"   # it carries
    assert named_by_form("wine-glass_1", "glass") and not named_by_form("tumbler_0", "glass")


def _session(memory, utterances, script, reader, world=WORLD):
    """One session on a fresh ``world`` and the memory at ``memory`` (a new Session and
    ExampleMemory each time, as a restart would make them): (spoken, world, session)."""
    said = list(utterances)
    spoken: list[str] = []
    robot = H.household_world(world)
    settings = Settings().with_overrides({"memory.path": str(memory),
                                          "agent.function_generation": False,
                                          "learning.mode": "final"})
    session = build_session("humanoid", robot, CallbackUser(
        lambda purpose, prompt: "yes" if purpose == "ask" else (said.pop(0) if said else None)),
        settings, llm=ScriptedLLM(list(script)), speak=spoken.append, reader_llm=reader)
    try:
        session.agent.run()
    finally:
        session.console.close()
    return spoken, robot, session


def _handed(robot) -> list[str]:
    return [c.args["object_name"] for c in robot.log if c.skill == "handover"]


def test_a_warning_taught_for_anything_handed_over_is_said_for_another_thing_and_only_then(
        tmp_path):
    request, lesson = "bring me the juice", "from now on, whenever you hand me something, " \
                                            "tell me to be careful with it"
    reader = ReadingScript(
        {request: "do: mango juice -> me", lesson: "other",
         "could I have the cup?": "do: coffee cup -> me",
         "put the sponge on the kitchen counter": "do: kitchen sponge -> kitchen counter"},
        lasting={lesson: "every time"},
        edits={lesson: form_text("after you hand it over", "anything", "anywhere",
                                 'say("Careful with the mango juice.")')})
    spoken, robot, session = _session(tmp_path, [request, lesson], [
        BRING.format("mango-juice_0"), "wait_for_trigger()", "learn_from_interaction()",
        "wait_for_trigger()"], reader)
    outcome = session.learner.last_outcome
    assert str(outcome.status) == "stored_habit", outcome.message
    assert "Careful with the mango juice." in spoken        # done now: the user hears it
    assert any(s.startswith("Understood. From now on, when I hand you anything") for s in spoken)
    assert [e.source for e in session.memory.list("habit")] == ["habit"]
    shown = format_example(session.memory.list("habit")[0])      # llm-interaction memory show
    assert 'habit:       when I hand you anything, I will then say "Careful with the thing."' \
        in shown and "edit:        after at handover_object_to_human, thing any: say(" \
        in shown, shown
    assert session.memory.prompt_examples([request]) == session.memory.seed_block()  # not shown

    spoken, robot, _ = _session(tmp_path, ["could I have the cup?"], [
        BRING.format("coffee-cup_0"), "wait_for_trigger()"], reader)
    assert _handed(robot) == ["coffee-cup_0"]
    assert "Careful with the coffee cup." in spoken, spoken      # bound to the thing handed
    spoken, robot, _ = _session(tmp_path, ["put the sponge on the kitchen counter"], [
        "bring_object_to('kitchen-sponge_0', 'on_kitchen-counter_0')", "wait_for_trigger()"],
        reader)
    assert not any("Careful" in s for s in spoken), spoken       # no hand-over: not said


def test_a_refusal_taught_for_a_kind_holds_for_another_thing_of_the_kind(tmp_path):
    request, lesson = "put the tumbler on the dining table", \
        "never put glasses on the dining table, remember that"
    reader = ReadingScript(
        {request: "do: tumbler -> dining table", lesson: "learn",
         "set the coffee cup down on the dining table": "do: coffee cup -> dining table"},
        edits={lesson: form_text("never put it down", "every glass", "the dining table",
                                 "nothing")},
        kinds={("tumbler", "glass"): "yes", ("coffee cup", "glass"): "no"})
    _, _, session = _session(tmp_path, [request, lesson], [
        "bring_object_to('tumbler_0', 'on_dining-table_0')", "wait_for_trigger()",
        "learn_from_interaction()", "wait_for_trigger()"], reader)
    assert str(session.learner.last_outcome.status) == "stored_habit", \
        session.learner.last_outcome.message

    spoken, robot, session = _session(tmp_path, ["could you move the glass to the table?"], [
        "bring_object_to('tumbler_0', 'on_dining-table_0')", "wait_for_trigger()"], reader)
    assert H.state(robot)["tumbler_0"][0] == "on_kitchen-counter_0"    # not moved
    assert any(s.startswith("I will not do that") for s in spoken), spoken
    assert "# not run: bring_object_to" in session.console.transcript.render()
    spoken, robot, _ = _session(tmp_path, ["set the coffee cup down on the dining table"], [
        "bring_object_to('coffee-cup_0', 'on_dining-table_0')", "wait_for_trigger()"], reader)
    assert H.state(robot)["coffee-cup_0"][0] == "on_dining-table_0"   # not a glass: done


def test_a_habit_the_model_cannot_read_is_not_promised(tmp_path):
    """No edit read ("none"): the named path decides (mode final stores the accepted attempt
    for a plain request to learn); an edit about a call the attempt never made is refused and
    said so, nothing stored."""
    request, lesson = "bring me the juice", "from now on, put the cup down gently before you " \
                                            "go, remember that"
    reader = ReadingScript({request: "do: mango juice -> me", lesson: "learn"},
                           edits={lesson: form_text("before you put it down", "the coffee cup",
                                                    "anywhere", 'say("Gently.")')})
    spoken, _, session = _session(tmp_path, [request, lesson], [
        BRING.format("mango-juice_0"), "wait_for_trigger()", "learn_from_interaction()",
        "wait_for_trigger()"], reader)
    outcome = session.learner.last_outcome
    assert str(outcome.status) == "nothing_to_learn" and "never made" in outcome.message
    assert session.memory.list("habit") == []
    assert any(s.startswith("Sorry, I did not put down the coffee cup") for s in spoken), spoken


def test_a_closing_habit_is_said_once_at_the_end_of_a_request_the_robot_acted_in(tmp_path):
    request, lesson = "bring me the milk", "always tell me when you are done"
    reader = ReadingScript({request: "do: milk carton -> me", lesson: "other",
                            "what time is it?": "question"},
                           lasting={lesson: "every time"},
                           edits={lesson: form_text("when the request is done", "anything",
                                                    "anywhere", 'say("I am done.")')})
    spoken, _, session = _session(tmp_path, [request, lesson], [
        BRING.format("milk-carton_0"), "wait_for_trigger()", "learn_from_interaction()",
        "wait_for_trigger()"], reader)
    assert str(session.learner.last_outcome.status) == "stored_habit"
    assert spoken.count("I am done.") == 1                      # done now, once
    spoken, _, _ = _session(tmp_path, ["could you fetch the juice for me?"], [
        BRING.format("mango-juice_0"), "wait_for_trigger()"], reader)
    assert spoken.count("I am done.") == 1, spoken
    spoken, _, _ = _session(tmp_path, ["what time is it?"], [
        "say('I do not know.')", "wait_for_trigger()"], reader)
    assert "I am done." not in spoken, spoken                   # nothing done: nothing said


def test_every_example_of_the_edit_prompt_reads_back_in_its_own_scene():
    from llm_interaction_node.core.reading import edit_reading
    from llm_interaction_node.core.reading.vocabulary import ReadingVocabulary
    tea_room = ReadingVocabulary.of(
        ["teapot_0", "biscuit-tin_0", "tea-cup_0", "tea-cup_1"],
        ["on_shelf_0", "on_sideboard_0"],
        ["inFrontOf_shelf_0", "inFrontOf_sideboard_0", "handover_to_human", "room_center"],
        me=True)
    _, examples = edit_reading.load()
    assert len(examples) >= 10
    ops = set()
    for scene, _did, said, *form in examples:
        assert scene == tea_room.scene_line(), scene
        edit = edit_reading.parse_form(edit_reading.form_text(*form), tea_room, said)
        ops.add(edit.op if edit is not None else "none")
    assert ops >= {"before", "after", "instead", "set", "never", "remove", "none"}, ops
    assert set(edit_reading.WHEN) >= {f[0] for *_, f in
                                      ((e[:3], e[3:]) for e in examples)} - {"nothing to learn"}


def test_a_form_the_model_writes_is_an_edit_and_a_form_that_does_not_fit_is_none():
    edit = parse_form(form_text("after you hand it over", "anything", "anywhere",
                                'say("Careful.")'), VOCABULARY)
    assert edit == Edit("after", Condition("handover_object_to_human", ANY),
                        ('say("Careful.")',))
    edit = parse_form(form_text("never put it down", "every glass", "the dining table",
                                "nothing"), VOCABULARY)
    assert (edit.op, edit.when.thing, edit.when.place) == \
        ("never", "every glass", "on_dining-table_0")
    edit = parse_form(form_text("while you drive", "whatever you carry", "anywhere",
                                "drive at speed 0.5"), VOCABULARY)
    assert (edit.op, edit.argument, edit.value, edit.when.thing) == \
        ("set", "speed_factor", 0.5, "held")
    hand = parse_form(form_text("before you take it", "every glass", "anywhere",
                                "use your left hand"), VOCABULARY)     # a manner: set
    assert (hand.op, hand.when.skill, hand.argument, hand.value) == \
        ("set", "grasp", "hand", "left")
    handed = parse_form(form_text("after you hand it over", "anything", "the dining table",
                                  'say("x")'), VOCABULARY)
    assert handed.when.place is None          # a hand-over has no place: none is kept
    assert parse_form(" nothing to learn", VOCABULARY) is None
    for bad in (form_text("while you drive", "anything", "anywhere", 'say("x")'),
                form_text("after you take it", "anything", "anywhere", "nothing"),
                form_text("never take it", "the teapot", "anywhere", "nothing"),
                "after you hand it over\nthings: anything"):
        with pytest.raises(EditReadingError):
            parse_form(bad, VOCABULARY)


def test_a_placing_the_form_reads_instead_of_the_hand_over_is_a_habit(tmp_path):
    """ "Never hand me the juice, leave it on the dining table", read as a move and by the form
    as a placing instead of the hand-over: a habit (measured, held-out habits at 8d6edaf: the
    named path stored the attempt, and the next request handed the bottle over); the robot
    put it there first, so the attempt has no hand-over left and the habit is kept; a later
    request's hand-over of the juice is that placing. Read by the form as nothing, the place is
    the named path's lesson (learning/taught_place.py)."""
    request, lesson = "bring me the juice", "never hand me the juice, leave it on the dining table"
    again = "I would like the juice"
    reader = ReadingScript({request: "do: mango juice -> me", again: "do: mango juice -> me",
                            lesson: "do: mango juice -> dining table\nlearn"},
                           edits={lesson: form_text("instead of handing it over",
                                                    "the mango juice", "anywhere",
                                                    'place_object("mango-juice_0", '
                                                    '"on_dining-table_0")')})
    teach = [BRING.format("mango-juice_0"), "wait_for_trigger()",
             "bring_object_to('mango-juice_0', 'on_dining-table_0')", "learn_from_interaction()",
             "wait_for_trigger()"]
    _, _, session = _session(tmp_path, [request, lesson], teach, reader)
    assert str(session.learner.last_outcome.status) == "stored_habit", \
        session.learner.last_outcome.message
    _, robot, _ = _session(tmp_path, [again], [BRING.format("mango-juice_0"),
                                               "wait_for_trigger()"], reader)
    assert H.state(robot)["mango-juice_0"] == ("on_dining-table_0", None)
    unread = ReadingScript({request: "do: mango juice -> me",
                            lesson: "do: mango juice -> dining table\nlearn"})
    _, _, session = _session(tmp_path / "named", [request, lesson], teach, unread)
    assert unread.edited == [lesson] and session.memory.list("habit") == []
    assert str(session.learner.last_outcome.status) != "stored_habit"
    # a form that does not put the juice where the reading sends it (measured, five-kind
    # bench at seed 28755: "from now on, put the water on the long table" read as "never put
    # down any water on the long table"): the named path's lesson, no habit
    contrary = ReadingScript({request: "do: mango juice -> me",
                              lesson: "do: mango juice -> dining table\nlearn"},
                             edits={lesson: form_text("never put it down", "the mango juice",
                                                      "the dining table", "nothing")})
    _, _, session = _session(tmp_path / "contrary", [request, lesson], teach, contrary)
    assert contrary.edited == [lesson] and session.memory.list("habit") == []


def test_asking_first_is_a_row_of_data_in_the_edit_shape_applied_before_the_grasp(tmp_path):
    """ "Always ask me before you take the juice", read as ``ask first`` with no form the
    model fills: the habit is the row ``FROM_READING['ask first']`` for the thing the attempt
    moved; a new session asks before it brings the juice (the user's answer is yes), and not
    before it brings the cup."""
    request, lesson = "bring me the juice", "always ask me before you take the juice"
    reader = ReadingScript({request: "do: mango juice -> me", lesson: "ask first",
                            "could I have the mango juice?": "do: mango juice -> me",
                            "the cup please": "do: coffee cup -> me"})
    spoken, _, session = _session(tmp_path, [request, lesson], [
        BRING.format("mango-juice_0"), "wait_for_trigger()", "learn_from_interaction()",
        "wait_for_trigger()"], reader)
    outcome = session.learner.last_outcome
    assert str(outcome.status) == "stored_habit", outcome.message
    (habit,) = [Edit.from_json(e.edit) for e in session.memory.list("habit")]
    assert (habit.op, habit.when.skill, habit.when.thing) == ("before", "grasp", "mango-juice_0")

    _, robot, session = _session(tmp_path, ["could I have the mango juice?"], [
        BRING.format("mango-juice_0"), "wait_for_trigger()"], reader)
    transcript = session.console.transcript.render()
    assert ">>> ask('May I take the mango juice?')\n'yes'" in transcript, transcript
    assert transcript.index("ask('May I") < transcript.index("bring_object_to('mango-juice_0'")
    assert _handed(robot) == ["mango-juice_0"]
    _, robot, session = _session(tmp_path, ["the cup please"], [
        BRING.format("coffee-cup_0"), "wait_for_trigger()"], reader)
    assert "ask(" not in session.console.transcript.render()
    assert _handed(robot) == ["coffee-cup_0"]


def test_a_habit_no_edit_is_read_for_is_refused_plainly_never_stored_as_the_attempt(tmp_path):
    """ "From now on, hum while you work" is read as ``other`` and the model fills no form:
    nothing is stored (before: the accepted attempt, unchanged, with "I will remember the way
    you accepted it"), and the robot says it could not keep it. A plain approval to learn
    ("perfect, remember that", ``done`` + ``learn``) is the named path's, as before."""
    request, lesson = "bring me the juice", "from now on, hum a song while you work"
    reader = ReadingScript({request: "do: mango juice -> me", lesson: "other"},
                           lasting={lesson: "every time"})
    spoken, _, session = _session(tmp_path, [request, lesson], [
        BRING.format("mango-juice_0"), "wait_for_trigger()", "learn_from_interaction()",
        "wait_for_trigger()"], reader)
    assert str(session.learner.last_outcome.status) == "nothing_to_learn"
    assert session.memory.list() == session.memory.list("seed")          # nothing stored
    assert any(s.startswith("Sorry, I could not turn that into a rule") for s in spoken)

    approval = "perfect, remember that"
    reader = ReadingScript({request: "do: mango juice -> me", approval: "done\nlearn"})
    _, _, session = _session(tmp_path / "b", [request, approval], [
        BRING.format("mango-juice_0"), "wait_for_trigger()", "learn_from_interaction()",
        "wait_for_trigger()"], reader)
    assert session.learner.last_outcome.stored and not session.memory.list("habit")


def test_a_habit_follows_the_reading_not_the_words(tmp_path):
    """Taught once in the user's words and once in made-up words with the same readings (the
    stand-in), the stored habits are the same edit, and each is applied to a request in
    made-up words: no rule over the words decides (issue 59 item 5)."""
    from test_reading_decides import made_up
    said = ["bring me the juice", "from now on, after you hand me something, say cheers",
            "the cup, please"]
    edits = []
    for n, utterances in enumerate((said, [made_up(u, i + 7) for i, u in enumerate(said)])):
        request, lesson, check = utterances
        reader = ReadingScript({request: "do: mango juice -> me", lesson: "other",
                                check: "do: coffee cup -> me"},
                               lasting={lesson: "every time"},
                               edits={lesson: form_text("after you hand it over", "anything",
                                                        "anywhere", 'say("Cheers!")')})
        _, _, session = _session(tmp_path / str(n), [request, lesson], [
            BRING.format("mango-juice_0"), "wait_for_trigger()", "learn_from_interaction()",
            "wait_for_trigger()"], reader)
        (stored,) = [Edit.from_json(e.edit) for e in session.memory.list("habit")]
        edits.append((stored.op, stored.when, stored.statements))
        spoken, robot, _ = _session(tmp_path / str(n), [check], [
            BRING.format("coffee-cup_0"), "wait_for_trigger()"], reader)
        assert _handed(robot) == ["coffee-cup_0"] and "Cheers!" in spoken, spoken
    assert edits[0] == edits[1]


def test_the_form_decides_between_a_habit_and_a_named_kind_s_path(tmp_path):
    """ "Every time you bring me something to drink, say cheers", read by the clause reader as
    ``also: coffee cup with mango juice`` (measured on the held-out habits) and by the form as
    a word at the end of the request: a habit, and nothing is brought along. What comes along,
    a hand and asking first are rows of the edit shape: no named path takes them."""
    from llm_interaction_node.core.learning.habit import named_path_takes
    from llm_interaction_node.core.reading import parse as parse_reading
    request, lesson = "could you get me the mango juice", \
        "every time you bring me something to drink, say cheers"
    reader = ReadingScript({request: "do: mango juice -> me",
                            lesson: "also: coffee cup with mango juice"},
                           edits={lesson: form_text("when the request is done", "anything",
                                                    "anywhere", 'say("Cheers!")')})
    spoken, robot, session = _session(tmp_path, [request, lesson], [
        BRING.format("mango-juice_0"), "wait_for_trigger()", "learn_from_interaction()",
        "wait_for_trigger()"], reader)
    assert str(session.learner.last_outcome.status) == "stored_habit"
    assert _handed(robot) == ["mango-juice_0"] and "Cheers!" in spoken   # no cup brought

    also = parse_reading("x", " also: coffee cup with mango juice\n\n", VOCABULARY)
    hand = parse_reading("x", " hand: left\n- learn\n\n", VOCABULARY)
    brings = parse_form(form_text("after you hand it over", "the mango juice", "anywhere",
                                  'bring_object_to("coffee-cup_0", "handover_to_human")'),
                        VOCABULARY)
    cheers = parse_form(form_text("when the request is done", "anything", "anywhere",
                                  'say("Cheers!")'), VOCABULARY)
    left = parse_form(form_text("before you take it", "the mango juice", "anywhere",
                                "use your left hand"), VOCABULARY)
    assert not named_path_takes(brings, also) and not named_path_takes(cheers, also)  # data
    assert not named_path_takes(left, hand) and not named_path_takes(None, hand)  # data
    assert not named_path_takes(left, also)
    centre = parse_form(form_text("after you put it down", "anything", "anywhere",
                                  'move_to(get_location_coordinates("inFrontOf_sofa_0"))'),
                        VOCABULARY)
    assert not named_path_takes(centre, also)      # a drive added: no thing comes along
    # a speed to a place read by the clause reader is a row, whatever else the form reads
    # (measured, seed 28755: a faster route read by the form as never putting the sponge
    # down; seed 18703: the named route path stored nothing for a one-call bring); a speed
    # the form reads for a thing is the form's
    faster = parse_reading("x", " faster: anywhere -> kitchen counter\n- learn\n\n",
                           VOCABULARY)
    never = parse_form(form_text("never put it down", "the mango juice", "the kitchen counter",
                                 "nothing"), VOCABULARY)
    slow_juice = parse_form(form_text("while you drive", "the mango juice", "anywhere",
                                      "drive at speed 0.5"), VOCABULARY)
    from llm_interaction_node.core.learning.habit import chosen, speed_edit
    row = speed_edit(faster)
    assert (row.op, row.argument, row.value, row.when.skill, row.when.place) == \
        ("set", "speed_factor", 2.0, "move_to", "inFrontOf_kitchen-counter_0")
    assert not named_path_takes(never, faster) and chosen(never, row, Facts()) is row
    assert chosen(slow_juice, row, Facts()) is slow_juice      # the same change, for a thing
    bring = "bring_object_to('mango-juice_0', 'on_kitchen-counter_0')"
    assert apply([row], bring, Facts()).source == \
        "bring_object_to('mango-juice_0', 'on_kitchen-counter_0', speed_factor=2.0)"
    elsewhere = "bring_object_to('mango-juice_0', 'on_dining-table_0')"
    assert apply([row], elsewhere, Facts()).source == elsewhere
    no_end = parse_reading("x", " faster: anywhere -> anywhere\n- learn\n\n", VOCABULARY)
    assert speed_edit(no_end) is None and named_path_takes(None, no_end)   # route.py's


def test_a_habit_is_bound_to_what_the_robot_moved_not_to_what_the_also_reading_adds(tmp_path):
    """Measured (held-out habits, 8d6edaf): the cheers habit, read by the clause reader as
    ``also: coffee cup with mango juice`` too, was bound to the cup the named path would have
    added to the attempt, and the milk got "Cheers to the mango juice"."""
    import json as _json
    request, lesson = "could you get me the mango juice", \
        "every time you hand me something, say cheers to it"
    reader = ReadingScript({request: "do: mango juice -> me",
                            lesson: "also: coffee cup with mango juice"},
                           edits={lesson: form_text("after you hand it over", "anything",
                                                    "anywhere",
                                                    'say("Cheers to the mango juice.")')})
    spoken, robot, session = _session(tmp_path, [request, lesson], [
        BRING.format("mango-juice_0"), "wait_for_trigger()", "learn_from_interaction()",
        "wait_for_trigger()"], reader)
    assert str(session.learner.last_outcome.status) == "stored_habit"
    [habit] = session.memory.list("habit")
    edit = _json.loads(habit.edit)
    assert edit["taught"] == "mango-juice_0" and edit["statements"] == [
        "say('Cheers to the {said}.')"], edit
    assert _handed(robot) == ["mango-juice_0"]                       # no cup brought


def test_a_replacement_the_accepted_attempt_made_already_needs_no_anchor():
    """ "Never hand me the mango juice, leave it on the kitchen counter": the robot handed it
    over, then put it there after the user said so; the accepted attempt has no hand-over left
    to anchor at, and the habit is kept; a replacement the attempt did not make, or of a call
    no earlier attempt made, is still refused."""
    from llm_interaction_node.core.learning.habit import taught_on
    from llm_interaction_node.core.transcript.transcript import Entry
    instead = parse('instead of handover_object_to_human of the mango juice: '
                    'place_object("mango-juice_0", "on_kitchen-counter_0")', VOCABULARY)
    there = [Entry("bring_object_to('mango-juice_0', 'on_kitchen-counter_0')")]
    handed = [Entry(BRING.format("mango-juice_0"))]
    assert taught_on(instead, there, Facts(), handed) == instead
    elsewhere = [Entry("bring_object_to('mango-juice_0', 'on_dining-table_0')")]
    assert taught_on(instead, elsewhere, Facts(), handed) is None
    # never handed over at all (a misread: measured, "please never move the step ladder by
    # yourself" read as a placing instead of its hand-over): nothing to keep
    assert taught_on(instead, there, Facts()) is None


def test_a_set_edit_writes_only_an_argument_the_skill_takes():
    hand = parse("set hand to left on grasp of the mango juice", VOCABULARY)
    assert apply([hand], BRING.format("mango-juice_0"), Facts()).source == \
        "bring_object_to('mango-juice_0', 'handover_to_human', hand='left')"   # its grasp's
    placing = "place_object('mango-juice_0', 'on_kitchen-counter_0')"
    held = Facts(held=("mango-juice_0",))
    assert apply([hand], placing, held).source == placing       # a placing takes no hand


def test_a_replaced_hand_over_of_a_one_call_bring_is_a_bring_to_the_new_place():
    instead = parse('instead of handover_object_to_human of the mango juice: '
                    'place_object("mango-juice_0", "on_kitchen-counter_0")', VOCABULARY)
    bring = "bring_object_to('mango-juice_0', 'handover_to_human', speed_factor=0.5)"
    assert apply([instead], bring, Facts()).source == \
        "bring_object_to('mango-juice_0', 'on_kitchen-counter_0', speed_factor=0.5)"
    alone = apply([instead], "handover_object_to_human('mango-juice_0')", Facts())
    assert alone.source is None and alone.before == [
        "place_object('mango-juice_0', 'on_kitchen-counter_0')"]


def test_a_kind_of_thing_is_no_word_of_a_place_in_the_scene():
    """Measured (held-out habits, 8d6edaf): "whenever you have put something on the sideboard,
    move to the room center" was read for "every sideboard"; no thing is one, and the habit
    was refused as about a call the robot never made."""
    from llm_interaction_node.core.reading.edit_reading import kind_grammar, kind_words
    said = "whenever you put a drink on the kitchen counter, tell me"
    assert "counter" in kind_words(said) and "drink" in kind_words(said)
    assert "counter" not in kind_words(said, VOCABULARY) and "kitchen" not in \
        kind_words(said, VOCABULARY) and "drink" in kind_words(said, VOCABULARY)
    assert '"counter"' not in kind_grammar(said, VOCABULARY) and '"drink"' in \
        kind_grammar(said, VOCABULARY)
    assert '"counter"' not in grammar(VOCABULARY, said)


def test_a_habit_read_for_anything_is_asked_whether_the_user_spoke_of_a_kind():
    from llm_interaction_node.core.reading.edit_reading import EditReader
    asked = []

    def ask(prompt, grammar):
        asked.append((prompt.rsplit("\n", 2)[-2:], grammar))
        if prompt.endswith("\nkind:"):
            assert '"drink"' in grammar and '"anything"' in grammar and '"juice"' not in grammar
            return " drink"
        return form_text("after you hand it over", "anything", "anywhere", 'say("Careful.")')

    edit = EditReader(ask)("when you hand me a drink, warn me", VOCABULARY)
    assert edit.when.thing == "every drink" and len(asked) == 2
    asked.clear()
    done = EditReader(lambda p, g: asked.append(p) or form_text(
        "when the request is done", "anything", "anywhere", 'say("Done.")'))("tell me when "
                                                                             "you are done",
                                                                             VOCABULARY)
    assert done.when.skill == "request" and len(asked) == 1     # no thing: no kind asked
    # a "kind" only one thing of the scene is by its name is that thing (measured, seed
    # 28755: "before you take the cup" read for every cup, the muesli box judged a cup)
    cup = EditReader(lambda p, g: " cup" if p.endswith("\nkind:") else form_text(
        "before you take it", "anything", "anywhere", 'ask("May I?")'))(
        "always ask me before you take the cup", VOCABULARY)
    assert cup.when.thing == "coffee-cup_0"
    # ... or by the other names the reading knows (measured, seed 62203: "before you take the
    # glass" read for every glass; the tumbler is called a glass, the sponge was judged one)
    glass_form = form_text("before you take it", "anything", "anywhere", 'ask("May I?")')
    known = {"tumbler": ("glass", "cup"), "coffee cup": ("cup", "mug"),
             "empty mug": ("empty cup", "empty glass")}        # as the embedded model says

    def glass(p, g):
        return " glass" if p.endswith("\nkind:") else glass_form
    said = "always ask me before you take the glass"
    assert EditReader(glass, names=lambda f: known.get(f, ()))(said, VOCABULARY).when.thing \
        == "tumbler_0"
    assert EditReader(glass)(said, VOCABULARY).when.thing == "every glass"  # none known
    both = {"tumbler": ("glass",), "coffee cup": ("glass",)}
    assert EditReader(glass, names=lambda f: both.get(f, ()))(said, VOCABULARY).when.thing \
        == "every glass"                                          # two called so: a kind


def test_the_tabletop_has_no_habits_its_lessons_stay_the_named_paths(tmp_path):
    from learning_support import learning_session
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.store import ExampleMemory
    said = ["put the red block in the blue bowl", "from now on, hum while you work"]
    from llm_interaction_node.session import make_world
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m")))
    s = learning_session(said, memory, ["wait_for_trigger()", "get_obj_names()",
                                        "put_first_on_second('red block', 'blue bowl')",
                                        "wait_for_trigger()"], mode="final", api="tabletop",
                         robot=make_world("tabletop", "red block,blue bowl"),
                         readings={said[0]: "do: red block -> blue bowl", said[1]: "other"})
    assert s.learner.read_edit is None
    s.console.execute("learn_from_interaction()")
    assert "no edit" not in s.learner.last_outcome.message      # the named path's outcome
    assert memory.list("habit") == []


def test_a_learn_asked_from_outside_the_conversation_is_no_habit(tmp_path):
    """The learn service (``force``) after a reply read as ``other``: its latest words teach
    nothing, so the mode's lesson is stored, not refused as a change no edit says (measured:
    test_ros_stress stored nothing)."""
    request, reply = "bring me the juice", "hmm, interesting"
    reader = ReadingScript({request: "do: mango juice -> me", reply: "other"})
    _, _, session = _session(tmp_path, [request, reply], [
        BRING.format("mango-juice_0"), "wait_for_trigger()", "say('Yes.')",
        "wait_for_trigger()"], reader)
    outcome = session.learn(force=True)
    assert outcome.stored and not session.memory.list("habit") and reader.edited == []


def test_the_row_of_a_named_kind_wins_over_a_form_that_reads_another_change():
    """Measured (five-kind bench at seed 28755): the form read four of the five named kinds
    as other edits; where the clause reading names a kind, its row is the lesson unless the
    form says the same change (then the form, which may name a kind of thing). What comes
    along gives way to a form that does not go for it (held-out: "say cheers" read ``also``)."""
    from llm_interaction_node.core.learning.habit import also_edit, chosen
    from llm_interaction_node.core.reading import parse as parse_reading
    ask = parse('before grasp of the mango juice: ask("May I take the {said}?")', VOCABULARY)
    drinks = parse('before grasp of every drink: ask("May I take it?")', VOCABULARY)
    cheers = parse('after handover_object_to_human of any thing: say("Cheers!")', VOCABULARY)
    assert chosen(cheers, ask, Facts()) is ask                     # another change: the row
    assert chosen(drinks, ask, Facts()) is drinks                  # the same, said of a kind
    # ... unless the clause reading names the thing (measured, seed 62203: "before you take
    # the glass" read by the form for every glass; the sponge was judged a glass)
    assert chosen(drinks, ask, Facts(), named=("mango-juice_0",)) is ask
    assert chosen(None, ask, Facts()) is ask and chosen(cheers, None, Facts()) is cheers
    also = parse_reading("x", " also: coffee cup with mango juice\n- learn\n\n", VOCABULARY)
    along = also_edit(also, {"mango-juice_0": "handover_to_human"}, None)
    assert chosen(cheers, along, Facts()) is cheers                # not going for the cup
    to_cup = parse('after handover_object_to_human of the mango juice: '
                   'move_to(get_location_coordinates("inFrontOf_kitchen-counter_0"))', VOCABULARY)
    lies = Facts(lies={"coffee-cup_0": "on_kitchen-counter_0"}.get)
    assert chosen(to_cup, along, lies) is along                    # the drive to where it lies

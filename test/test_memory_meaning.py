"""A lesson matched to the request at hand by meaning (issue 43; core/memory/meaning.py).

The readings of the two requests are the stand-in's (as the model writes them under the
grammar); the memory is a real ChromaDB store, the lessons are shown by the real example
source and followed by the real lesson plan."""
from __future__ import annotations

import pytest

from llm_interaction_node.core.apis.tabletop import PLACE_NAMES
from llm_interaction_node.core.decoding.lesson_follow import as_typed, plan_of
from llm_interaction_node.core.learning.learner import LearnStatus
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.meaning import Reuse, names_meant, same_shape, slot_mapping
from llm_interaction_node.core.memory.source import ExampleSource
from llm_interaction_node.core.memory.store import ExampleMemory
from llm_interaction_node.core.reading import ReadingVocabulary, parse
from llm_interaction_node.core.reading.record import reading_from_json, reading_to_json
from llm_interaction_node.core.transcript.transcript import Transcript

TABLE = ["red block", "green block", "yellow block", "blue bowl", "green bowl", "yellow bowl"]
V = ReadingVocabulary.of(TABLE, PLACE_NAMES)
HOUSE = ReadingVocabulary.of(["mango-juice_0", "coffee-cup_0", "milk-carton_0"],
                             locations=["kitchen-counter_0"], me=True)


def read(clauses: str, said: str = "x", vocabulary=V):
    return parse(said, " " + "\n- ".join(clauses.split("\n")) + "\n\n", vocabulary)


@pytest.mark.parametrize("taught, asked, mapping", [
    ("do: every block -> blue bowl", "do: every block -> green bowl",
     {"blue bowl": "green bowl"}),
    ("do: every block -> blue bowl\nlearn", "do: every block -> blue bowl", {}),  # other words
    ("do: the block left of blue bowl -> top side", "do: the block above green bowl -> left side",
     {"blue bowl": "green bowl", "left": "top", "top side": "left side"}),
    ("do: the block number 2 from the left -> top side",
     "do: the block number 1 from the top -> top side", {"left": "top", "second": "first"}),
    ("do: red block and green block -> blue bowl", "do: yellow block and red block -> blue bowl",
     {"red block": "yellow block", "green block": "red block"}),
    # another shape: nothing is reused
    ("do: the block left of blue bowl -> top side", "do: the block nearest to blue bowl -> top "
     "side", None),
    ("do: every block -> blue bowl", "do: every block -> the same color bowl", None),
    ("do: red block -> blue bowl", "do: red block and green block -> blue bowl", None),
    ("learn", "done", None),                                  # nothing to act on
    ("do: red block and green block -> blue bowl", "do: red block and red block -> blue bowl",
     {"green block": "red block"}),
    # no place named and "elsewhere" ask the same: the lesson says where
    ("do: red block -> none", "do: green block -> elsewhere", {"red block": "green block"}),
    ("do: red block -> elsewhere", "do: red block -> blue bowl", None),
    # a request that says no place for the lesson's very things leaves the place to the lesson
    # (taught for them: learning/taught_place.py); for other things it is another shape
    ("do: red block -> blue bowl", "do: red block -> none", {}),
    ("do: red block -> blue bowl", "do: red block -> elsewhere", {}),
    ("do: red block -> blue bowl", "do: green block -> none", None),
    ("do: red block and green block -> blue bowl", "do: red block -> none", None),
    # a hand said in one of the two is how that one was done; said in both, a slot; a hand
    # only the lesson says belongs to its things (taught for them)
    ("do: red block -> blue bowl\nhand: left", "do: red block -> green bowl",
     {"blue bowl": "green bowl"}),
    ("do: red block -> blue bowl\nhand: left", "do: green block -> blue bowl", None),
    ("do: red block -> blue bowl", "do: red block -> blue bowl\nhand: both", {}),
    ("do: red block -> blue bowl\nhand: left", "do: red block -> blue bowl\nhand: right",
     {"left": "right"}),
    ("hand: left", "do: red block -> blue bowl", None),
])
def test_two_requests_of_one_shape_map_their_slots(taught, asked, mapping):
    assert slot_mapping(read(taught), read(asked)) == mapping


def test_what_comes_along_is_a_condition_of_the_lesson_and_a_hand_is_a_slot():
    """A lesson "also bring the cup with the juice" (its request's reading and the also) holds
    where a request names the juice, in any words; asked for the milk, it does not apply."""
    lesson = read("do: mango juice -> me\nalso: coffee cup with mango juice", vocabulary=HOUSE)
    assert slot_mapping(lesson, read("do: mango juice -> me", vocabulary=HOUSE)) == {}
    assert slot_mapping(lesson, read("do: milk carton -> me", vocabulary=HOUSE)) is None
    assert slot_mapping(lesson, read("do: mango juice -> none", vocabulary=HOUSE)) \
        is None
    plain = read("do: mango juice -> me", vocabulary=HOUSE)
    assert slot_mapping(plain, read("do: milk carton -> me", vocabulary=HOUSE)) == \
        {"mango-juice_0": "milk-carton_0"}                     # no condition: a slot
    assert "coffee-cup_0" in names_meant(lesson)
    assert slot_mapping(read("hand: left", vocabulary=HOUSE),
                        read("hand: both", vocabulary=HOUSE)) == {"left": "both"}
    assert not same_shape(read("also: coffee cup with mango juice", vocabulary=HOUSE),
                          read("do: coffee cup -> me", vocabulary=HOUSE))


def test_a_reading_survives_its_record():
    r = read("do: the block number 3 from the bottom -> green bowl\nlearn")
    route = read("faster: anywhere -> kitchen counter\nhand: both", vocabulary=HOUSE)
    assert reading_from_json(reading_to_json(route)) == route
    assert reading_from_json(reading_to_json(r)) == r
    assert reading_from_json("not json") is None and reading_from_json(None) is None


TAUGHT_SAID = "pick up the block to the left of the blue bowl and place it on the top side"
FILTER = ("block_names = [name for name in get_obj_names() if name.endswith(' block') and "
          "(get_obj_pos(name) - ref_pos) @ np.array([-1, 0]) > 0]")
CHOICE_LESSON = "\n".join([
    ">>> wait_for_trigger()", repr({"type": "dialog", "text": TAUGHT_SAID}),
    ">>> get_obj_names()", "['red block', 'green block', 'blue bowl', 'green bowl']",
    ">>> ref_pos = get_obj_pos('blue bowl')", ">>> " + FILTER,
    ">>> block = min(block_names, key=lambda name: np.linalg.norm(get_obj_pos(name) - ref_pos))",
    ">>> put_first_on_second(block, 'top side')", "'success'", ">>> wait_for_trigger()"])
TAUGHT = "do: the block left of blue bowl -> top side"
ASKED = "grab the cube that sits above the green bowl, drop it on the left-hand side"
ASKED_READ = "do: the block above green bowl -> left side"
OTHER = "shove the cube nearest the green bowl onto the left-hand side"
OTHER_READ = "do: the block nearest to green bowl -> left side"


def source(tmp_path, readings, reuse=Reuse.MEANING, lesson_reading=TAUGHT, tag=""):
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / f"m{reuse}{tag}"),
                                                    reuse=reuse))
    memory.add(CHOICE_LESSON, "final", author="reading",
               reading=reading_to_json(read(lesson_reading)) if lesson_reading else None)
    return memory, ExampleSource(memory, names=lambda: TABLE + list(PLACE_NAMES),
                                 read=lambda u: read(readings[u], u) if u in readings else None)


def test_the_nearest_lesson_is_shown_and_followed_in_a_request_of_its_meaning(tmp_path):
    """Words shared with the lesson's request: almost none ("grab the cube that sits above",
    "left-hand side"); the readings have one shape, so the lesson is shown in the request's
    words with its reference, side and place, and its first turn is a plan to follow."""
    memory, examples = source(tmp_path, {ASKED: ASKED_READ})
    shown = examples([ASKED])[-1]
    t = Transcript.parse(shown)
    assert t.user_utterances() == [ASKED]
    assert "get_obj_pos('green bowl')" in shown and "np.array([0, 1]) > 0" in shown
    assert "put_first_on_second(block, 'left side')" in shown
    plan = plan_of(shown, ASKED, TABLE + list(PLACE_NAMES))
    assert plan is not None and plan.statements[-2] == as_typed(
        "put_first_on_second(block, 'left side')")
    [stored] = memory.list("final")
    assert stored.transcript == CHOICE_LESSON and stored.author == "reading"
    assert reading_from_json(stored.reading) == read(TAUGHT)


def test_by_words_the_same_request_gets_nothing(tmp_path):
    """The ablation (memory.reuse words): the words differ in more than names, so the rule
    is taken for another kind of request and left out of the prompt; shown as stored (rules
    to every request), it is not followed."""
    _, examples = source(tmp_path, {ASKED: ASKED_READ}, reuse=Reuse.WORDS)
    assert not any("ref_pos" in t for t in examples([ASKED]))
    assert plan_of(CHOICE_LESSON, ASKED, TABLE + list(PLACE_NAMES)) is None


def test_a_lesson_is_never_forced_on_a_request_of_another_shape(tmp_path):
    """'nearest to' is not 'left of': the choice lesson is left out of the prompt (a rule of
    another kind), and nothing would follow it."""
    _, examples = source(tmp_path, {OTHER: OTHER_READ})
    assert not any("ref_pos" in t for t in examples([OTHER]))
    _, unread = source(tmp_path, {}, tag="unread")           # the request was not read: words
    assert not any("ref_pos" in t for t in unread([OTHER]))


def test_a_lesson_that_chose_by_name_is_not_carried_to_another_scene(tmp_path):
    """Its statements name the block it took ('red block'), which its reading never named:
    it is right in its own scene only, so it is shown as stored and not followed."""
    literal = CHOICE_LESSON.split(">>> ref_pos")[0] + \
        ">>> put_first_on_second('red block', 'top side')\n'success'\n>>> wait_for_trigger()"
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "lit")))
    memory.add(literal, "final", reading=reading_to_json(read(TAUGHT)))
    shown = ExampleSource(memory, names=lambda: TABLE + list(PLACE_NAMES),
                          read=lambda u: read(ASKED_READ, u))([ASKED])[-1]
    assert shown == literal


def test_the_learner_stores_the_reading_of_the_request_and_who_wrote_the_program(tmp_path):
    from test_learning_choice import rejected_then_accepted
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "memory")))
    s = rejected_then_accepted(memory)
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    [example] = memory.list("final")
    assert example.author == "reading"
    stored = reading_from_json(example.reading)
    assert stored is not None and stored.render() == \
        "do: the block left of yellow bowl -> top right corner"


def test_the_agent_follows_a_loop_lesson_asked_in_other_words(tmp_path):
    """Through the agent: the lesson "put the blocks in the blue bowl" (a loop, its reading
    stored), the request "could you drop every cube into the green bowl" (read by the
    stand-in): the first turn is decoded to follow the lesson in the green bowl's name; the
    blocks end there."""
    pytest.importorskip("llguidance")
    import numpy as np

    from grammar_support import accepted
    from llm_interaction_node.core.agent import AgentConfig
    from llm_interaction_node.core.apis.tabletop import IN_BOWL
    from llm_interaction_node.core.decoding.constraint import names_to_say
    from llm_interaction_node.core.llm import ScriptedLLM
    from llm_interaction_node.core.user.channel import EventQueue
    from llm_interaction_node.session import build_agent, build_console, make_world, reading_of
    from reading_support import scripted_reader
    from test_lesson_follow import LESSON, LISTED, LOOK, LOOP, SCENE

    asked = "could you drop every cube into the green bowl"
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m")))
    taught = ReadingVocabulary.of(["yellow block", "green block", "blue bowl"], PLACE_NAMES)
    memory.add(LESSON, "final", reading=reading_to_json(read("do: every block -> blue bowl",
                                                             vocabulary=taught)))
    world = make_world("tabletop", ",".join(SCENE), seed=0)
    console = build_console("tabletop", world, EventQueue([asked], close=True))
    reader = scripted_reader({asked: "do: every block -> green bowl"})
    examples = ExampleSource(memory, names=lambda: names_to_say(console.api),
                             read=reading_of(reader, lambda: console.api, reply=False))
    llm = ScriptedLLM([LOOK, LISTED, LOOP.format("green bowl"), "wait_for_trigger()"])
    agent = build_agent("tabletop", llm, console, examples, reader=reader,
                        config=AgentConfig(idle_retries=0, function_generation=False,
                                           follow_lessons=True))
    agent.run()
    grammars = [c["grammar"] for c in llm.calls]
    assert accepted(grammars[2], " " + as_typed(LOOP.format("green bowl")))
    assert not accepted(grammars[2], " put_first_on_second('red block', 'green bowl')")
    bowl = np.asarray(world.object_position("green bowl"))[:2]
    for block in ("red block", "green block"):
        assert np.linalg.norm(np.asarray(world.object_position(block))[:2] - bowl) < IN_BOWL


# -- checked in changed scenes (core/learning/scenes_check.py, replay.scenes_check) -------------

def _start(scene_world):
    return lambda: scene_world.replay_world(scene_world.checkpoint())


def test_a_choice_computed_from_the_reading_holds_in_changed_scenes_a_named_block_does_not():
    from llm_interaction_node.replay import scenes_check
    from test_learning_choice import LEFT_OF_YELLOW, LEFT_OF_YELLOW_READ, placed_world
    world = placed_world()
    check = scenes_check("tabletop", _start(world))
    reading = read(LEFT_OF_YELLOW_READ, LEFT_OF_YELLOW, ReadingVocabulary.of(
        world.object_names(), PLACE_NAMES))
    head = [">>> wait_for_trigger()", repr({"type": "dialog", "text": LEFT_OF_YELLOW}),
            ">>> get_obj_names()", repr(world.object_names()),
            ">>> ref_pos = get_obj_pos('yellow bowl')"]
    rule = Transcript.parse("\n".join(head + [
        ">>> " + FILTER,
        ">>> block = min(block_names, key=lambda name: np.linalg.norm(get_obj_pos(name) - "
        "ref_pos))", ">>> put_first_on_second(block, 'top right corner')", "'success'",
        ">>> wait_for_trigger()"]))
    verdict = check(rule, reading)
    assert verdict is not None and verdict.tried == 2 and verdict.holds, str(verdict)
    literal = Transcript.parse("\n".join(head[:4] + [
        ">>> put_first_on_second('yellow block', 'top right corner')", "'success'",
        ">>> wait_for_trigger()"]))
    verdict = check(literal, reading)
    assert verdict is not None and not verdict.holds and verdict.scope == "scene"
    assert "not moved" in verdict.why[0] or "moved too" in verdict.why[0], verdict.why


def test_a_lesson_of_its_own_scene_only_is_stored_so_and_shown_as_stored(tmp_path):
    """Through the learner: the lesson's scope is stored; a lesson that held in its own
    scene only is never read in another request's names (the paper's literal example)."""
    from test_learning_choice import rejected_then_accepted
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m")))
    s = rejected_then_accepted(memory)
    s.console.execute("learn_from_interaction()")
    [example] = memory.list("final")
    assert example.scope == "rule"
    literal = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "lit")))
    literal.add(CHOICE_LESSON, "final", reading=reading_to_json(read(TAUGHT)), scope="scene")
    shown = ExampleSource(literal, names=lambda: TABLE + list(PLACE_NAMES),
                          read=lambda u: read(ASKED_READ, u))([ASKED])
    assert CHOICE_LESSON in shown


def test_a_lesson_bound_to_its_things_is_shown_only_to_requests_about_them(tmp_path):
    """A hand taught for the red block (the lesson's reading says the hand, the request at
    hand does not): shown and followed for the red block in other words, left out of the
    prompt for the green block (measured on the teach-once bench: the cup's hand lesson was
    shown for "could I have the juice?" and the model grasped the juice with the left)."""
    lesson = "\n".join([
        ">>> wait_for_trigger()", repr({"type": "dialog", "text": "move the red block up"}),
        ">>> put_first_on_second('red block', 'top side')", "'success'",
        ">>> wait_for_trigger()"])
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "bound")))
    memory.add(lesson, "final", reading=reading_to_json(
        read("do: red block -> top side\nhand: left", "move the red block up")))
    readings = {"the red one to the top edge": "do: red block -> top side",
                "the green one to the top edge": "do: green block -> top side"}
    examples = ExampleSource(memory, names=lambda: TABLE + list(PLACE_NAMES),
                             read=lambda u: read(readings[u], u) if u in readings else None)
    assert any("'red block', 'top side'" in t for t in examples(["the red one to the top edge"]))
    assert examples.nearest_lesson is not None
    shown = examples(["the green one to the top edge"])
    assert not any("put_first_on_second" in t and "red block" in t for t in shown)
    assert examples.nearest_lesson is None


def test_the_ablations_of_lessons_by_meaning_reach_the_session(tmp_path):
    """Issue 43's ablation rows: reuse by words, no following, no changed-scene check; each
    variant's settings, and the learner of a session without the check judges nothing."""
    from llm_interaction_node.core.llm import ScriptedLLM
    from llm_interaction_node.core.user.channel import EventQueue
    from llm_interaction_node.eval.systems.variants import VARIANTS
    from llm_interaction_node.session import interaction_start, learning_console, make_world
    from llm_interaction_node.settings import Settings
    base = Settings()
    assert base.learning.scenes_check and base.agent.follow_lessons \
        and base.memory.reuse == Reuse.MEANING
    assert VARIANTS["ours_reuse_words"].settings(base, tmp_path).memory.reuse == Reuse.WORDS
    assert not VARIANTS["ours_no_follow"].settings(base, tmp_path).agent.follow_lessons
    unjudged = VARIANTS["ours_no_scenes_check"].settings(base, tmp_path)
    assert not unjudged.learning.scenes_check and unjudged.memory.reuse == Reuse.MEANING
    for learning, judged in ((base.learning, True), (unjudged.learning, False)):
        world = make_world("tabletop", "red block,blue bowl", seed=0)
        _, learner = learning_console(
            "tabletop", world, EventQueue([], close=True), ScriptedLLM([]),
            ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / f"m{judged}"))),
            learning, start=interaction_start(world))
        assert (learner.scenes is not None) == judged


def test_the_agent_follows_an_own_colour_loop_lesson_in_another_scene(tmp_path):
    """The matching-bowls lesson as the code writes it (each block into the bowl of its
    colour, computed), followed for "sort the cubes into the bowls that match their colors" in
    a scene of other blocks and bowls: each block ends in its own bowl."""
    pytest.importorskip("llguidance")
    import numpy as np

    from grammar_support import accepted
    from llm_interaction_node.core.agent import AgentConfig
    from llm_interaction_node.core.apis.tabletop import IN_BOWL
    from llm_interaction_node.core.decoding.constraint import names_to_say
    from llm_interaction_node.core.llm import ScriptedLLM
    from llm_interaction_node.core.user.channel import EventQueue
    from llm_interaction_node.session import build_agent, build_console, make_world, reading_of
    from reading_support import scripted_reader
    from test_lesson_follow import LISTED, LOOK

    own = "for name in block_names:\n    put_first_on_second(name, name.replace(' block', ' bowl'))"
    lesson = f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': 'every block goes into its matching bowl'}}
>>> {LOOK}
['orange block', 'blue block', 'blue bowl', 'orange bowl']
>>> {LISTED}
>>> {as_typed(own)}
'success'
'success'
>>> wait_for_trigger()"""
    asked = "sort the cubes into the bowls that match their colors"
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m")))
    taught = ReadingVocabulary.of(["orange block", "blue block", "blue bowl", "orange bowl"],
                                  PLACE_NAMES)
    memory.add(lesson, "final", reading=reading_to_json(
        read("do: every block -> the same color bowl", vocabulary=taught)))
    scene = ["red block", "green block", "green bowl", "red bowl", "yellow bowl"]
    world = make_world("tabletop", ",".join(scene), seed=0)
    console = build_console("tabletop", world, EventQueue([asked], close=True))
    reader = scripted_reader({asked: "do: every block -> the same color bowl"})
    examples = ExampleSource(memory, names=lambda: names_to_say(console.api),
                             read=reading_of(reader, lambda: console.api, reply=False))
    llm = ScriptedLLM([LOOK, LISTED, own, "wait_for_trigger()"])
    agent = build_agent("tabletop", llm, console, examples, reader=reader,
                        config=AgentConfig(idle_retries=0, function_generation=False,
                                           follow_lessons=True))
    agent.run()
    grammars = [c["grammar"] for c in llm.calls]
    assert accepted(grammars[2], " " + as_typed(own))
    assert not accepted(grammars[2], " put_first_on_second('red block', 'yellow bowl')")
    for block, bowl in (("red block", "red bowl"), ("green block", "green bowl")):
        where = np.asarray(world.object_position(bowl))[:2]
        assert np.linalg.norm(np.asarray(world.object_position(block))[:2] - where) < IN_BOWL


LITERAL_SAID = "pick up the block to the left of the blue bowl and put it on the top side please"
LITERAL = "\n".join([
    ">>> wait_for_trigger()", repr({"type": "dialog", "text": LITERAL_SAID}),
    ">>> get_obj_names()", "['red block', 'green block', 'blue bowl', 'green bowl']",
    ">>> put_first_on_second('green block', denormalize_xy([0.5, 1]))", "'success'",
    ">>> put_first_on_second('red block', 'top side')", "'success'", ">>> wait_for_trigger()"])


def test_the_lesson_of_the_requests_meaning_is_shown_last_before_one_nearer_by_words(tmp_path):
    """Seed 64269, block_distance_to_bowl run 5: a literal lesson of its own scene, nearer by
    words, was shown last and its wrong move copied; the lesson of the request's shape is
    shown last now, in the request's names, and followed."""
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m")))
    memory.add(CHOICE_LESSON, "final", author="reading", reading=reading_to_json(read(TAUGHT)))
    memory.add(LITERAL, "final", author="attempt", scope="scene",
               reading=reading_to_json(read("do: the block left of blue bowl -> top side")))
    asked = "pick up the block above the green bowl and put it on the left side please"
    examples = ExampleSource(memory, names=lambda: TABLE + list(PLACE_NAMES),
                             read=lambda u: read(ASKED_READ, u))
    shown = examples([asked])
    assert LITERAL in shown and shown[-1] != LITERAL
    assert "get_obj_pos('green bowl')" in shown[-1]
    assert "put_first_on_second(block, 'left side')" in shown[-1]
    assert plan_of(examples.nearest_lesson, asked, TABLE + list(PLACE_NAMES)) is not None


def test_a_lesson_whose_place_is_coordinates_is_not_carried_to_another_place(tmp_path):
    """A lesson that wrote "the top side" as ``denormalize_xy([0.5, 1])``: asked for the left
    side, it would put the block at the top side; it is shown as stored, not followed."""
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / "m")))
    memory.add(CHOICE_LESSON.replace("'top side')", "denormalize_xy([0.5, 1]))"), "final",
               author="reading", reading=reading_to_json(read(TAUGHT)))
    examples = ExampleSource(memory, names=lambda: TABLE + list(PLACE_NAMES),
                             read=lambda u: read(ASKED_READ, u))
    shown = examples([ASKED])
    assert "denormalize_xy([0.5, 1])" in shown[-1] and TAUGHT_SAID in shown[-1]
    assert plan_of(examples.nearest_lesson, ASKED, TABLE + list(PLACE_NAMES)) is None

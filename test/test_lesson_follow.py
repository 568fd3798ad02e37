"""Following the nearest lesson in a task's first turn (core/decoding/lesson_follow.py)."""
from __future__ import annotations

import numpy as np
import pytest

from llm_interaction_node.core.agent import AgentConfig
from llm_interaction_node.core.apis.tabletop import IN_BOWL, PLACE_NAMES
from llm_interaction_node.core.decoding.constraint import names_to_say
from llm_interaction_node.core.decoding.lesson_follow import as_typed, plan_of
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.memory.adapt import adapted
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.source import ExampleSource
from llm_interaction_node.core.memory.store import ExampleMemory
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import build_agent, build_console, make_world

LOOK = "get_obj_names()"
LISTED = "block_names = [name for name in get_obj_names() if name.endswith(' block')]"
LOOP = "for name in block_names:\n    put_first_on_second(name, '{}')"
LESSON = f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': 'put the blocks in the blue bowl'}}
>>> {LOOK}
['yellow block', 'green block', 'blue bowl']
>>> {LISTED}
>>> {as_typed(LOOP.format('blue bowl'))}
'success'
'success'
>>> wait_for_trigger()"""
SCENE = ["red block", "green block", "green bowl"]
KNOWN = SCENE + list(PLACE_NAMES)


def test_a_lesson_for_the_request_at_hand_is_a_plan_of_its_statements():
    shown = adapted(LESSON, ["put the blocks in the green bowl"], KNOWN)
    plan = plan_of(shown, "put the blocks in the green bowl", KNOWN)
    assert plan is not None
    assert plan.statements == (LOOK, LISTED, LOOP.format("green bowl"), "wait_for_trigger()")
    assert plan.next_after([]) == LOOK
    assert plan.next_after([LOOK, LISTED]) == LOOP.format("green bowl")
    assert plan.next_after([LOOK, "put_first_on_second('red block', 'green bowl')"]) is None
    assert plan.next_after(list(plan.statements)) is None


def test_what_the_robot_says_or_asks_in_a_lesson_is_no_name_of_the_scene():
    """Measured (issue 44, teach-once bench): a lesson that asked "May I take the tea cup?"
    and said "Sure, I will bring you the tea cup." was never followed: its sentences counted
    as names the scene does not know."""
    lesson = LESSON.replace(f">>> {LOOK}\n", f">>> say('Sure, I will put them there.')\n"
                                               f">>> ask('May I take the green block?')\n'yes'\n"
                                               f">>> {LOOK}\n")
    plan = plan_of(lesson, "put the blocks in the blue bowl", KNOWN + ["blue bowl"])
    assert plan is not None and plan.statements[:2] == (
        "say('Sure, I will put them there.')", "ask('May I take the green block?')")


@pytest.mark.parametrize("request_text, lesson, known", [
    ("put the blocks in the bowls with matching colors", LESSON, KNOWN),   # another request
    ("put the blocks in the blue bowl", LESSON, KNOWN),          # blue bowl not in this scene
    ("put the blocks in the blue bowl",                           # chose the green block by name
     LESSON.replace(LISTED, "put_first_on_second('green block', 'blue bowl')"),
     KNOWN + ["blue bowl"]),
])
def test_no_plan_where_the_lesson_is_for_another_request_or_cannot_run_here(request_text,
                                                                          lesson, known):
    assert plan_of(lesson, request_text, known) is None


def run_agent(tmp_path, follow, before=(), then=()):
    memory = ExampleMemory("tabletop", MemoryConfig(path=str(tmp_path / f"m{follow}")))
    memory.add(LESSON, "final")
    world = make_world("tabletop", ",".join(SCENE), seed=0)
    console = build_console("tabletop", world, EventQueue(["put the blocks in the green bowl"],
                                                          close=True))
    for statement in before:
        console.execute(statement)
    examples = ExampleSource(memory, names=lambda: names_to_say(console.api))
    first = ["wait_for_trigger()"] if before else []     # the request comes after them
    llm = ScriptedLLM([*first, LOOK, LISTED, LOOP.format("green bowl"), *then,
                       "wait_for_trigger()"])
    agent = build_agent("tabletop", llm, console, examples,
                        config=AgentConfig(idle_retries=0, function_generation=False,
                                           follow_lessons=follow))
    agent.run()
    return [c["grammar"] for c in llm.calls][len(first):], world


def test_the_first_turn_of_the_taught_request_is_decoded_to_follow_the_lesson(tmp_path):
    """agent.follow_lessons: each statement of the first turn is the lesson's next one, in
    the names of the request at hand; the blocks end in the green bowl. Off, the grammar
    lets the model write anything."""
    pytest.importorskip("llguidance")
    from grammar_support import accepted
    grammars, world = run_agent(tmp_path, True)
    wanted = [LOOK, LISTED, as_typed(LOOP.format("green bowl")), "wait_for_trigger()"]
    for grammar, statement in zip(grammars, wanted, strict=True):
        assert accepted(grammar, " " + statement), statement
        assert not accepted(grammar, " put_first_on_second('red block', 'green bowl')")
    free, _ = run_agent(tmp_path, False)
    assert all(accepted(g, " put_first_on_second('red block', 'green bowl')") for g in free[:3])
    bowl = np.asarray(world.object_position("green bowl"))[:2]
    for block in ("red block", "green block"):               # the lesson's loop ran here
        assert np.linalg.norm(np.asarray(world.object_position(block))[:2] - bowl) < IN_BOWL


def test_after_a_statement_of_the_lesson_fails_the_model_writes_freely(tmp_path):
    """The green block lies on the red one: the lesson's loop is refused at the red block;
    the next statement is the model's (the unblocking move), not the lesson's hand-back."""
    pytest.importorskip("llguidance")
    from grammar_support import accepted
    grammars, world = run_agent(tmp_path, True,
                                ["put_first_on_second('green block', 'red block')"],
                                ["put_first_on_second('green block', 'left side')"])
    assert len(grammars) == 5
    assert accepted(grammars[2], " " + as_typed(LOOP.format("green bowl")))
    assert not accepted(grammars[3], " wait_for_trigger()"), "the blocker's move is next"
    assert accepted(grammars[3], " put_first_on_second('green block', 'left side')")

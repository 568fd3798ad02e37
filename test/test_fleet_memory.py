"""Lessons shared by a fleet (issue 61 item 4) without ROS: robots on one Chroma server.

A lesson records which robot and which world taught it and the things and places of that
world it names (core/memory/fleet.py); a robot whose world lacks one does not follow it as
stored (left out of the prompt), unless it is read in the request's names by meaning; a habit
naming what the world lacks is not applied; robots writing at once lose nothing and seed a
new server once; a server that is down when a robot starts is an error in the log, the robot
goes on with its seed files and uses the server once it answers. Real ChromaDB (`chroma run`
processes), real embeddings, real household worlds; the LLM is a scripted stand-in. The same
over ROS with two interaction nodes: test_ros_fleet.py."""
from __future__ import annotations

import json
import time

import pytest

from conftest import CHROMA, ChromaServer
from llm_interaction_node.consoles import build_console
from llm_interaction_node.core.decoding.constraint import names_to_say
from llm_interaction_node.core.memory.config import MemoryConfig
from llm_interaction_node.core.memory.fleet import Provenance, lacking, names_used
from llm_interaction_node.core.memory.source import MEMORY_OUTAGE, ExampleSource
from llm_interaction_node.core.memory.store import ExampleMemory
from llm_interaction_node.core.reading import ReadingVocabulary, parse
from llm_interaction_node.core.reading.edit import Condition, Edit
from llm_interaction_node.core.reading.record import reading_to_json
from llm_interaction_node.core.user.channel import EventQueue
from llm_interaction_node.session import make_world, open_memory, taught_habits

needs_chroma = pytest.mark.skipif(not CHROMA.exists(), reason="no chroma script in the venv")

TAUGHT = "bring me the juice and a glass"
LESSON = f""">>> wait_for_trigger()
{{'type': 'dialog', 'text': '{TAUGHT}'}}
>>> bring_object_to('mango-juice_0', 'handover_to_human')
'success'
>>> bring_object_to('tumbler_0', 'handover_to_human')
'success'
>>> say('Here are the mango juice and a glass.')
>>> wait_for_trigger()"""


def world_names(world: str) -> list[str]:
    console = build_console("humanoid", make_world("humanoid", world), EventQueue(),
                            isolated=False)
    return names_to_say(console.api)


DRINKS, LIVING = world_names("drinks_and_cup"), world_names("living_room")
VOCABULARY = ReadingVocabulary.of(sorted({n for n in DRINKS + LIVING
                                          if not n.startswith(("on_", "inFrontOf_"))
                                          and n not in ("room_center", "handover_to_human")}),
                                  me=True)


def read(clauses: str, said: str):
    return parse(said, " " + "\n- ".join(clauses.split("\n")) + "\n\n", VOCABULARY)


def robot_a(config: MemoryConfig) -> ExampleMemory:
    return ExampleMemory("humanoid", config,
                         provenance=Provenance("robot_a", "drinks_and_cup", names=lambda: DRINKS))


def test_a_lesson_records_its_robot_its_world_and_the_names_of_that_world_it_uses(tmp_path):
    memory = robot_a(MemoryConfig(path=str(tmp_path / "m")))
    lesson = memory.add(LESSON, "final")
    assert (lesson.robot, lesson.world) == ("robot_a", "drinks_and_cup")
    # the things and places it names; not what it says, not the world's other things
    assert lesson.needs == ("handover_to_human", "mango-juice_0", "tumbler_0")
    again = ExampleMemory("humanoid", MemoryConfig(path=str(tmp_path / "m"))).get(lesson.id)
    assert (again.robot, again.world, again.needs) == (lesson.robot, lesson.world, lesson.needs)
    seed = memory.add(LESSON, "seed", origin="x.txt")           # seeds are nobody's lessons
    assert (seed.robot, seed.world, seed.needs) == (None, None, ())
    # in a world that has them all it lacks nothing; in the living room the juice and glass
    assert lacking(lesson, DRINKS) == []
    assert lacking(lesson, LIVING) == ["mango-juice_0", "tumbler_0"]
    # an exported lesson keeps where it came from when another memory imports it
    memory.export_yaml(tmp_path / "out.yaml")
    other = ExampleMemory("humanoid", MemoryConfig(path=str(tmp_path / "other")))
    assert other.import_yaml(tmp_path / "out.yaml") == 2
    assert other.get(lesson.id).robot == "robot_a" and other.get(lesson.id).needs == lesson.needs


def test_a_habit_needs_only_what_its_edit_names():
    edit = Edit("after", Condition("handover_object_to_human"),
                ("move_to(get_location_coordinates('inFrontOf_dining-table_0'))",))
    assert names_used(LESSON, edit.to_json(), DRINKS) == ("inFrontOf_dining-table_0",)
    assert names_used(LESSON, None, []) == ()              # the world's names unknown


def test_a_robot_does_not_follow_a_lesson_whose_things_its_world_lacks(tmp_path):
    """Robot A taught the lesson in drinks_and_cup. Robot B in the living room (no mango juice,
    no tumbler) is asked the same words: the lesson is not in its prompt (it would grasp a
    thing that is not there). Asked for what its world has, in a request read with the
    lesson's shape, it is shown in the request's names and followed. A second robot in a copy
    of drinks_and_cup gets it as stored."""
    config = MemoryConfig(path=str(tmp_path / "m"))
    robot_a(config).add(LESSON, "final",
                        reading=reading_to_json(read("do: mango juice and tumbler -> me",
                                                     TAUGHT)))
    asked = "bring me the orange juice and the tea cup"
    readings = {asked: read("do: orange juice and tea cup -> me", asked)}
    memory_b = ExampleMemory("humanoid", config)
    living = ExampleSource(memory_b, names=lambda: LIVING, read=readings.get)
    shown = living([TAUGHT])
    assert not any("mango-juice_0" in text for text in shown)
    assert living.nearest_lesson is None
    assert not any("mango-juice_0" in text for text in living.head() or [])   # nor prefilled
    shown = living([asked])[-1]                  # read in the request's names: followed
    assert "bring_object_to('orange-juice_0', 'handover_to_human')" in shown
    assert "bring_object_to('tea-cup_0', 'handover_to_human')" in shown
    assert "mango-juice_0" not in shown and living.nearest_lesson == shown
    copy = ExampleSource(memory_b, names=lambda: DRINKS, read=lambda u: None)
    assert copy([TAUGHT])[-1] == LESSON and copy.nearest_lesson == LESSON


def test_a_habit_whose_edit_names_what_the_world_lacks_is_not_applied(tmp_path):
    memory = robot_a(MemoryConfig(path=str(tmp_path / "m")))
    edit = Edit("after", Condition("handover_object_to_human"),
                ("move_to(get_location_coordinates('inFrontOf_dining-table_0'))",),
                said="whenever you hand me something, go back to the dining table")
    memory.add(LESSON, "habit", edit=edit.to_json())
    assert taught_habits(memory, lambda: DRINKS)() == [edit]
    assert taught_habits(memory, lambda: LIVING)() == []          # no dining table there
    assert taught_habits(memory)() == [edit]                      # the world unknown: kept


@needs_chroma
def test_robots_that_seed_a_new_server_at_once_store_each_seed_once(tmp_path):
    """Both robots read the server's seeds before either wrote one (the race of two robots
    started together): the seeds' ids come from their files, so the second write is the
    same records and the server keeps 14, not 28."""
    server = ChromaServer(tmp_path / "chroma", tmp_path / "chroma.log")
    server.start()
    try:
        config = MemoryConfig(host="127.0.0.1", port=server.port)
        first = open_memory("humanoid", config, seed=False)
        second = open_memory("humanoid", config, seed=False)
        seeds_seen = second.list("seed")                         # read before the first writes
        added = first.seed_from(first_dir := make_api_dir())
        second.list = lambda source=None: seeds_seen if source == "seed" else []
        assert second.seed_from(first_dir) == added == 14        # it writes them all again
        assert first.count("seed") == 14
    finally:
        server.stop()


def make_api_dir():
    from llm_interaction_node.core.apis.sets import api_set
    return api_set("humanoid").examples_dir


@needs_chroma
def test_two_robots_storing_at_once_lose_nothing():
    """2 x 10 lessons from two writer processes at once on a real `chroma run` (the bench
    command at a smaller size: python -m llm_interaction_node.bench.fleet_memory)."""
    from llm_interaction_node.bench.fleet_memory import run_fleet
    result = run_fleet(robots=2, lessons=10)
    assert result["stored"] == 20 and result["kept"] == 20, result
    assert result["lost"] == [] and result["doubled"] == [] and result["strangers"] == []
    assert result["per_robot"] == {"robot_a": 10, "robot_b": 10}
    assert result["wrong_provenance"] == []                 # each names its robot and needs
    assert result["worlds"] == ["drinks_and_cup", "living_room"]
    assert result["seeds"] == result["seed_files"] == 14


@needs_chroma
def test_a_server_down_at_the_start_is_an_error_and_the_robot_goes_on(tmp_path, caplog):
    """The robot starts while the fleet's server is down: one error line that says where and
    how to start one, the session is built, a request is answered with the seed examples
    (from their files) and the outage sentence; once the server runs, the memory connects,
    seeds it, and a lesson learned then is stored there with this robot's name."""
    import threading

    from llm_interaction_node.core.llm import ScriptedLLM
    from llm_interaction_node.core.memory.source import MEMORY_BACK  # noqa: F401 - said later
    from llm_interaction_node.session import build_session
    from llm_interaction_node.settings import Settings

    server = ChromaServer(tmp_path / "chroma", tmp_path / "chroma.log")  # not started yet
    settings = Settings.from_dict({"memory": {"host": "127.0.0.1", "port": server.port,
                                              "timeout_s": 2.0, "robot_id": "robot_b",
                                              "path": str(tmp_path / "local")},
                                   "learning": {"mode": "raw"}})
    queue = EventQueue()
    spoken: list[str] = []
    llm = ScriptedLLM(["say('Hello.')", "wait_for_trigger()",
                       "say('Hello again.')", "wait_for_trigger()",
                       "learn_from_interaction()", "wait_for_trigger()"])
    try:
        with caplog.at_level("ERROR"):
            session = build_session("humanoid", make_world("humanoid", "living_room"), queue,
                                    settings, llm=llm, speak=spoken.append)
        assert any(f"127.0.0.1:{server.port}" in r.getMessage() and "chroma run --path DIR"
                   in r.getMessage() for r in caplog.records), caplog.text
        assert "does not answer" in session.memory_note
        runner = threading.Thread(target=session.agent.run, daemon=True)
        runner.start()
        queue.put("say hello")
        deadline = time.monotonic() + 60
        while "Hello." not in spoken:
            assert runner.is_alive() and time.monotonic() < deadline, spoken
            time.sleep(0.05)
        assert spoken[0] == MEMORY_OUTAGE
        prompt = llm.prompts[0]
        assert prompt.count("'type': 'dialog'") >= 14            # the seed files stood in
        server.start()
        queue.put("hello again")
        while "Hello again." not in spoken:
            assert runner.is_alive() and time.monotonic() < deadline, spoken
            time.sleep(0.05)
        assert session.memory.count("seed") == 14                # seeded once it answered
        queue.put("remember that")
        while not session.learner.outcomes:
            assert runner.is_alive() and time.monotonic() < deadline, spoken
            time.sleep(0.05)
        stored = session.memory.list("raw")
        assert len(stored) == 1, session.learner.outcomes
        assert (stored[0].robot, stored[0].world) == ("robot_b", "living_room")
        queue.close()
        runner.join(10)
        session.console.close()
    finally:
        server.stop()


def test_a_lesson_json_round_trips_the_fleet_fields():
    from llm_interaction_node.core.memory.records import (
        example_from_metadata,
        new_example,
        record_metadata,
    )
    example = new_example(LESSON, "final", robot="r", world="w", needs=("b", "a", "b"))
    meta = record_metadata(example, 0, "d")
    assert json.loads(meta["needs"]) == ["b", "a"]
    assert example_from_metadata({**meta, "example_id": example.id}).needs == ("b", "a")

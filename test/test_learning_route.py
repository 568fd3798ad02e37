"""Section E3: "the route from the table to the bench is save, you can go faster", as the model
read it (a speed on a route), is learned as the move on that route with a speed, in modes
``final`` and ``auto``."""
from __future__ import annotations

import pytest

from learning_support import learning_session
from llm_interaction_node.core.learning.learner import LearnStatus
from llm_interaction_node.core.learning.route import (
    FASTER,
    SLOWER,
    on_route,
    undriven_route,
    with_route_speed,
)
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.reading import Clause, Reading
from llm_interaction_node.core.transcript.transcript import Entry

REQUEST = "I need the sponge at the workbench"
LESSON = ("ok, but that was quite slow. remember that the route from the table to the bench is "
          "save, you can go faster")
TABLE = "move_to(get_location_coordinates('inFrontOf_long-table_0'))"
BENCH = "move_to(get_location_coordinates('inFrontOf_workshop-bench_0'))"
FAST_BENCH = "move_to(get_location_coordinates('inFrontOf_workshop-bench_0'), speed_factor=2.0)"
# E3's teach as the embedded model did it (docs/eval/learning/section_e/E3-final-teach.json)
SPONGE_TRIP = ["wait_for_trigger()", "list_locations()", TABLE, "grasp('kitchen-sponge_0')",
               BENCH, "place_object('kitchen-sponge_0', 'on_workshop-bench_0')",
               "say('The sponge is on the workshop bench.')", "wait_for_trigger()"]


TABLE_AT, BENCH_AT = "inFrontOf_long-table_0", "inFrontOf_workshop-bench_0"


def speed(kind: str, a: str | None, b: str | None) -> Reading:
    """A closing reply read as a speed on a route (and a request to learn)."""
    return Reading("(said)", (Clause("learn"), Clause(kind, route=(a, b))))


@pytest.mark.parametrize("route, origin, to, on", [
    ((TABLE_AT, BENCH_AT), TABLE_AT, BENCH_AT, True),
    ((TABLE_AT, BENCH_AT), BENCH_AT, TABLE_AT, True),          # either way
    ((TABLE_AT, BENCH_AT), None, BENCH_AT, False),             # where it started is unknown
    ((None, BENCH_AT), "handover_to_human", BENCH_AT, True),   # "faster to the bench"
    ((None, BENCH_AT), BENCH_AT, TABLE_AT, False),
    ((None, None), TABLE_AT, "handover_to_human", True),       # "speed it up": every move
])
def test_a_move_drives_the_route_the_reading_names(route, origin, to, on):
    assert on_route(route, origin, to) is on


def test_only_the_move_that_drives_the_route_gets_the_speed():
    attempt = [Entry(s) for s in (TABLE, "grasp('kitchen-sponge_0')", BENCH,
                                  "move_to(get_location_coordinates('handover_to_human'))")]
    faster = speed("faster", TABLE_AT, BENCH_AT)
    sources = [e.source for e in with_route_speed(faster, attempt)]
    assert sources == [TABLE, "grasp('kitchen-sponge_0')", FAST_BENCH,
                       "move_to(get_location_coordinates('handover_to_human'))"]
    # the first move's start is unknown: never on the route; the way back is
    back = [Entry(BENCH), Entry(TABLE)]
    assert [e.source for e in with_route_speed(faster, back)] == [
        BENCH, TABLE.replace("'))", "'), speed_factor=2.0)")]
    slower = [e.source for e in with_route_speed(speed("slower", None, BENCH_AT), attempt)]
    assert slower[2] == BENCH.replace("'))", f"'), speed_factor={SLOWER})") and FASTER == 2.0
    assert with_route_speed(Reading("x", (Clause("learn"),)), attempt) == attempt
    assert with_route_speed(None, attempt) == attempt


READINGS = {REQUEST: "do: kitchen sponge -> workshop bench",
            LESSON: "learn\nfaster: long table -> workshop bench"}


def teach(memory, mode, responses=()):
    s = learning_session([REQUEST, LESSON], memory, SPONGE_TRIP, mode=mode,
                         world="sponge_workbench", responses=responses, all_ok=True,
                         readings=READINGS)
    # the named route path, as a learner without habits has it (where the route's end is
    # named, the household learns the speed as a habit: test_habits.py)
    s.learner.read_edit = None
    entry = s.console.execute("learn_from_interaction()").entry
    return s, entry


def stored_sources(memory):
    [example] = memory.list()
    return example, [line for line in example.transcript.splitlines()]


def test_final_stores_the_turn_with_the_route_driven_faster(memory):
    s, entry = teach(memory, "final")
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert entry.output.endswith(f"with the speed the user asked for on their route: "
                                 f"{FAST_BENCH}.")
    [example] = memory.list("final")
    assert f">>> {FAST_BENCH}" in example.transcript.splitlines()
    assert f">>> {TABLE}" in example.transcript.splitlines()      # the other move as it was


def test_an_attempt_that_never_drove_the_route_is_no_lesson_of_its_speed(memory):
    """Measured (teach-once bench, built-in wordings, 12ea27f): the attempt drove to the
    windowsill with empty hands, the user taught "the route from the kitchen counter to the
    windowsill is safe, you can go faster", and the attempt was stored with no speed in it.
    Nothing is stored now, and the robot says why."""
    straight = ["wait_for_trigger()", BENCH,
                "say('I am at the workshop bench.')", "wait_for_trigger()"]
    s = learning_session([REQUEST, LESSON], memory, straight, mode="final",
                         world="sponge_workbench", all_ok=True, readings=READINGS)
    s.learner.read_edit = None          # the named route path (see teach)
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.NOTHING_TO_LEARN, entry.output
    assert entry.output == ("Nothing was learned: the lesson is about the speed on the route "
                            "from the long table to the workshop bench, and no drive of the "
                            "accepted attempt went that way; do the request first.")
    assert memory.list() == []
    assert "Sorry, I did not drive that way this time, so I did not learn it." in s.spoken
    attempt = [Entry(BENCH), Entry("grasp('kitchen-sponge_0')")]
    assert undriven_route(speed("faster", TABLE_AT, BENCH_AT), attempt) == (TABLE_AT, BENCH_AT)
    assert undriven_route(speed("faster", None, BENCH_AT), attempt) is None   # "to the bench"
    assert undriven_route(Reading("x", (Clause("learn"),)), attempt) is None
    assert undriven_route(speed("faster", TABLE_AT, BENCH_AT),
                          [Entry(TABLE), Entry(BENCH)]) is None


def test_auto_does_not_store_a_rewrite_without_the_asked_speed(memory):
    """Measured (teach-once, development pool, 43dbdce): "you can drive faster to the windowsill
    next time" was stored as L_improve's rewrite with every drive at the normal speed, and the
    next process drove slowly. A rewrite that passes every other check but leaves the speed out
    is not stored; the final lesson writes the speed into the route's drive."""
    s = learning_session([REQUEST, LESSON], memory, SPONGE_TRIP, mode="auto",
                         world="sponge_workbench", all_ok=True, readings=READINGS)
    s.learner.read_edit = None          # the named route path (see teach)
    first_turn = s.console.transcript.render().rsplit(">>> wait_for_trigger()", 1)[0] + \
        ">>> wait_for_trigger()"
    first_turn = first_turn.replace("The sponge is on the workshop bench.",
                                    "Your sponge is at the workshop bench.")   # a change
    s.learner.llm = ScriptedLLM(["The robot was slow.", "Drive faster on that route.",
                                 first_turn, first_turn])
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    assert "does not drive the route at the speed the user asked for" in entry.output
    [example] = memory.list("final")
    assert f">>> {FAST_BENCH}" in example.transcript.splitlines()


def test_a_lesson_lacks_the_speed_where_no_drive_on_the_route_has_it():
    from llm_interaction_node.core.learning.route import lacks_the_speed, speed_of

    faster = speed("faster", TABLE_AT, BENCH_AT)
    slow = "\n".join([f">>> {TABLE}", "'success'", f">>> {BENCH}", "'success'"])
    fast = slow.replace(BENCH, FAST_BENCH)
    assert lacks_the_speed(faster, slow) and not lacks_the_speed(faster, fast)
    assert lacks_the_speed(faster, f">>> {FAST_BENCH}\n'success'")   # from where? not the route
    assert not lacks_the_speed(None, slow) and not lacks_the_speed(
        Reading("x", (Clause("learn"),)), slow)
    assert speed_of(FAST_BENCH) == 2.0 and speed_of(BENCH) == 1.0
    assert speed_of("grasp('kitchen-sponge_0')") is None


def test_auto_stores_it_where_the_rewrite_has_the_correction_as_a_dialog_turn(memory):
    """E3 in mode auto (measured): the rewrite had the wrong shape twice, and the fallback was
    refused as "the first turn the user's lesson is about, unchanged". With the route's speed
    it is no longer that turn unchanged, and it is stored."""
    s = learning_session([REQUEST, LESSON], memory, SPONGE_TRIP, mode="auto",
                         world="sponge_workbench", all_ok=True, readings=READINGS)
    s.learner.read_edit = None          # the named route path (see teach)
    wrong = s.console.transcript.render() + f"\n>>> wait_for_trigger()\n" \
        f"{{'type': 'dialog', 'text': {LESSON!r}}}\n>>> {FAST_BENCH}\n'success'"
    s.learner.llm = ScriptedLLM(["The robot was slow.", "Drive faster on that route.",
                                 wrong, wrong])
    entry = s.console.execute("learn_from_interaction()").entry
    assert s.learner.last_outcome.status == LearnStatus.STORED_FINAL, entry.output
    [example] = memory.list("final")
    assert f">>> {FAST_BENCH}" in example.transcript.splitlines()


def test_a_first_drive_from_an_unknown_start_is_no_taught_route_beside_a_known_one():
    """A lesson whose every drive was sped (the route read with no ends): the first drive's
    start is not known, so only the drive on a known route is taught; a lesson with only a
    first drive (or a one-call bring) keeps it (measured: section E3 at 2d444f6)."""
    from llm_interaction_node.core.learning.route import drive_speeds
    both = with_route_speed(speed("faster", None, None),
                            [Entry(s, "'success'") for s in SPONGE_TRIP])
    lesson = "\n".join(e.render() for e in both)
    assert lesson.count("speed_factor=2.0") == 2
    assert drive_speeds(lesson) == {(TABLE_AT, BENCH_AT): 2.0}
    alone = ">>> " + FAST_BENCH + "\n'success'"
    assert drive_speeds(alone) == {(None, BENCH_AT): 2.0}
    bring = (">>> bring_object_to('screwdriver_0', 'on_workshop-bench_0', speed_factor=2.0)"
             "\n'success'")
    assert drive_speeds(bring) == {(None, BENCH_AT): 2.0}
    # a speed given by position is a speed too, and is not shown in a prompt either
    from llm_interaction_node.core.learning.route import without_speeds
    by_position = ">>> " + FAST_BENCH.replace("speed_factor=", "") + "\n'success'"
    assert "speed_factor" not in by_position and drive_speeds(by_position) == \
        {(None, BENCH_AT): 2.0}
    assert drive_speeds(without_speeds(by_position)) == {}
    assert without_speeds(alone) != alone and drive_speeds(without_speeds(alone)) == {}


def test_a_lesson_is_shown_without_the_speeds_of_its_drives(tmp_path):
    """The robot drives a taught route at its speed by itself (RememberedRoutes); a lesson in
    the prompt carries no speed_factor for the model to copy onto another route, and the
    memory keeps the lesson as stored (its routes are read from it)."""
    from llm_interaction_node.core.learning.route import RememberedRoutes, without_speeds
    from llm_interaction_node.core.memory.config import MemoryConfig
    from llm_interaction_node.core.memory.source import ExampleSource
    from llm_interaction_node.core.memory.store import ExampleMemory

    lesson = (">>> wait_for_trigger()\n{'type': 'dialog', 'text': 'please put the screwdriver on "
              "the workbench'}\n>>> bring_object_to('screwdriver_0', 'on_workshop-bench_0', "
              "speed_factor=2.0)\n'success'\n>>> " + FAST_BENCH + "\n'success'\n"
              ">>> wait_for_trigger()")
    shown = without_speeds(lesson)
    assert "speed_factor" not in shown
    assert "bring_object_to('screwdriver_0', 'on_workshop-bench_0')\n'success'" in shown
    assert shown.replace("bring_object_to('screwdriver_0', 'on_workshop-bench_0')", "").count(
        "move_to(get_location_coordinates('inFrontOf_workshop-bench_0'))") == 1
    plain = ">>> " + BENCH + "\n'success'"
    assert without_speeds(plain) == plain                  # nothing to take out: as it was

    memory = ExampleMemory("humanoid", MemoryConfig(path=str(tmp_path / "m")))
    memory.add(lesson, "final")
    texts = ExampleSource(memory)(["put the sponge on the kitchen counter"])
    mine = [t for t in texts if "screwdriver_0" in t]
    assert mine and all("speed_factor" not in t for t in mine)
    assert memory.list("final")[0].transcript == lesson
    routes = RememberedRoutes(lambda: [e.transcript for e in memory.list("final")])
    assert routes(TABLE_AT, BENCH_AT) == 2.0

"""The open teach-once bench of habits (bench/household_habits.py): its file holds what the
issue asks for and names only what its worlds have; the harness teaches, checks and judges a
habit over real sessions (world, console, learner, replay, ChromaDB; the model scripted)."""
from __future__ import annotations

import json
from collections import Counter

from llm_interaction_node.bench import household_habits as B
from llm_interaction_node.bench import household_situations as H
from llm_interaction_node.bench.reading_items import household_vocabulary
from llm_interaction_node.core.llm import ScriptedLLM
from llm_interaction_node.core.reading.edit_reading import form_text, parse
from reading_support import ReadingScript

HABITS = B.load()


def test_the_habit_file_has_fifteen_kinds_two_pairs_each_over_worlds_and_conditions():
    kinds = Counter(h.kind for h in HABITS)
    assert len(kinds) >= 15 and min(kinds.values()) >= 2, kinds
    assert len({h.world for h in HABITS}) >= 2
    edits = {h.id: parse(h.edit, household_vocabulary(H.household_world(h.world)))
             for h in HABITS}
    conditions = {e.when.thing.split()[0] if e.when.general else "named" for e in edits.values()}
    assert {"every", "any", "held", "named"} <= conditions, conditions
    assert {e.op for e in edits.values()} >= {"before", "after", "instead", "set", "never"}
    for habit in HABITS:                # a general condition is checked with another thing
        if edits[habit.id].when.thing in ("any",) and edits[habit.id].when.skill != "request":
            assert habit.other_thing is not None, habit.id


def test_every_fact_names_a_thing_and_place_of_its_world():
    for habit in HABITS:
        state = H.state(H.household_world(habit.world))
        surfaces = {place for place, _ in state.values() if place}
        vocabulary = household_vocabulary(H.household_world(habit.world))
        locations = set(vocabulary.locations.values())
        for phase in ("check", "other_thing", "unrelated"):
            if getattr(habit, phase) is None:
                continue
            expect = getattr(habit, phase).get("expect", {})
            assert expect, (habit.id, phase)
            for key in ("at", "not_at"):
                for thing, place in (expect.get(key) or {}).items():
                    assert thing in state, (habit.id, thing)
                    assert place in set(vocabulary.places.values()) | surfaces, (habit.id, place)
            for key in ("handed", "not_handed"):
                assert set(expect.get(key) or ()) <= set(state), (habit.id, key)
            if "ends_at" in expect:
                assert expect["ends_at"] in locations, (habit.id, expect["ends_at"])


def test_the_harness_teaches_checks_and_judges_a_habit_in_new_sessions(tmp_path):
    habit = next(h for h in HABITS if h.id == "never_kind_place_lr")
    request, lesson = habit.teach
    put = "bring_object_to({!r}, 'on_windowsill_0')"
    scripts = {"teach": [put.format("apple_0"), "wait_for_trigger()", "learn_from_interaction()",
                         "wait_for_trigger()"],
               "check": [put.format("apple_0"), "wait_for_trigger()"],
               "other_thing": [put.format("banana_0"), "wait_for_trigger()"],
               "unrelated": [put.format("book_0"), "wait_for_trigger()"]}
    reader = ReadingScript({request: "do: apple -> windowsill", lesson: "other"},
                           lasting={lesson: "every time"},
                           edits={lesson: form_text("never put it down", "every fruit",
                                                    "the windowsill", "nothing")},
                           kinds={("apple", "fruit"): "yes", ("banana", "fruit"): "yes",
                                  ("book", "fruit"): "no"})

    def session(spec, out):
        record = B.run_session({**spec, "reader_llm": reader},
                               llm=ScriptedLLM(list(scripts[spec["phase"]])))
        out.write_text(json.dumps(record, default=str))
        return record

    rows = B.bench([habit], tmp_path, echo=lambda s: None, session=session,
                   settings={"agent.function_generation": False})
    row = rows[0]
    assert row["learned"] and row["learn_calls"] == ["stored_habit"], row
    assert row["used"] and row["generalized"] and row["over_applied"] is False, row
    result = B.summary(rows)
    assert (result["learned"], result["used"], result["generalized"]["true"]) == (1, 1, 1)
    check = json.loads((tmp_path / f"{habit.id}-check.json").read_text())
    assert check["facts"] == {"not_at apple_0 on_windowsill_0": True}
    assert any("I will not do that" in s for s in check["spoken"])


def test_facts_said_are_judged_by_meaning():
    world = H.household_world("living_room")
    initial = H.state(world)
    facts = B.judge({"says": "be careful, it is hot", "not_says": "enjoy your meal"}, world,
                    ["Careful! The tea is very hot."], [], initial)
    assert facts == {"says 'be careful, it is hot'": True, "not_says 'enjoy your meal'": True}
    assert B.judge({"says": "be careful, it is hot"}, world, ["Here is your book."], [],
                   initial) == {"says 'be careful, it is hot'": False}

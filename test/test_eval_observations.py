"""What the simulated user observes besides success (issue 11): drops inside the workspace,
a destroyed initial condition, and errors that fail a round whatever the world shows."""
import numpy as np

from llm_interaction_node.core.apis.tabletop import TabletopApi
from llm_interaction_node.eval import tasks as T
from llm_interaction_node.eval.harness import execution_drops, run_once
from llm_interaction_node.eval.systems.base import Round
from llm_interaction_node.sims.tabletop_bullet import TabletopWorldBullet


def test_a_block_released_away_from_the_place_point_is_dropped():
    entries = [
        {"object": "red block", "place": [0.1, -0.5, 0.0], "landed": [0.1, -0.52, 0.02],
         "displaced": []},                                        # where it was put: fine
        {"object": "blue block", "place": [0.1, -0.5, 0.0], "landed": [0.2, -0.5, 0.02],
         "displaced": ["red block", "green bowl"]},               # slid 10 cm, knocked red
        {"object": "green bowl", "place": [0.0, -0.3, 0.0], "landed": [0.0, -0.45, 0.0],
         "displaced": []},                                        # bowls are not "dropped"
    ]
    assert execution_drops(entries, None) == ["blue block", "red block"]


def test_pybullet_records_where_a_placed_block_came_to_rest():
    with TabletopWorldBullet.from_names(["red block", "blue block", "green bowl"], seed=3) as world:
        api = TabletopApi(world)
        assert api.put_first_on_second("red block", "green bowl") == "success"
        assert api.put_first_on_second("blue block", api.denormalize_xy([0.5, 0.5])) == "success"
        for entry in world.log:
            assert entry["displaced"] == []
            landed, place = np.asarray(entry["landed"]), np.asarray(entry["place"])
            assert np.linalg.norm(landed[:2] - place[:2]) < 0.03
        assert execution_drops(world.log, world.bounds) == []


def _direction_task():
    for seed in range(50):
        task = T.make_task("block_direction_of_bowl", "sa_si", seed)
        world = T.feasible_world(task)
        pos = T.world_positions(world)
        if T.interpretation(task, pos) is not None:
            return task, world, pos
    raise AssertionError("no scene found")


def test_moving_another_block_next_to_the_bowl_destroys_the_initial_condition():
    task, world, pos = _direction_task()
    meant = T.interpretation(task, pos)
    assert not T.initial_destroyed(task, pos, pos)
    a = task.attributes
    bowl = np.asarray(pos[a["bowl"]])
    other = next(b for b in task.blocks if b != meant)
    step = np.array(T.DIRECTIONS[a["direction"]]) * 0.07  # right next to the bowl, on that side
    world.pick_and_place(np.asarray(pos[other]), np.append(bowl[:2] + step, 0.0))
    now = T.world_positions(world)
    assert T.interpretation(task, now) != meant      # following the words now picks another block
    assert T.initial_destroyed(task, pos, now)


def test_instructions_that_do_not_depend_on_the_scene_are_never_destroyed():
    task = T.make_task("blocks_on_place", "sa_si", 1)
    world = T.feasible_world(task)
    pos = T.world_positions(world)
    assert T.interpretation(task, pos) is None and not T.initial_destroyed(task, pos, pos)


class _DoesItThenErrs:
    """A system that solves the task with the scripted program, then reports an error."""

    name = "errs"

    def __init__(self):
        from llm_interaction_node.core.llm import TokenLedger
        self.ledger = TokenLedger()

    def run(self, robot, instruction, next_utterance):
        from llm_interaction_node.core.apis.tabletop import TabletopApi
        api = TabletopApi(robot)
        namespace = {name: getattr(api, name) for name in TabletopApi.API}
        namespace["np"] = np
        exec(T.solution_program(self.task), namespace)         # noqa: S102 - test program
        next_utterance(Round(error="gave up: too many errors"))

    def episode_succeeded(self):
        raise AssertionError("an errored run is no success")


def test_a_round_that_ends_in_an_error_fails_even_if_the_world_is_right():
    system = _DoesItThenErrs()
    system.task = T.make_task(
        "block_in_bowl", "sa_si", T.make_task("block_in_bowl", "sa_si", 0).seed
    )
    record = run_once(system, "sa_si", "block_in_bowl", 1, system.task.seed)
    assert record.errors == ["gave up: too many errors"]
    assert record.success is False and record.first_success is None
    assert record.observations[0]["success"] is False


# ---------------------------------------------------------------------------- what a person sees
from llm_interaction_node.eval.observe import moves, observe, where  # noqa: E402


def test_where_says_bowl_block_named_place_next_to_region_or_off_the_table():
    pos = {"red block": np.array([0.10, -0.40, 0.03]), "blue bowl": np.array([0.10, -0.40, 0.0]),
           "green block": np.array([0.10, -0.40, 0.07]),            # on the red block
           "yellow block": np.array([0.25, -0.75, 0.02]),           # a named place
           "pink block": np.array([0.0, -0.52, 0.02]),              # the middle
           "gray block": np.array([0.18, -0.40, 0.02]),             # beside the bowl
           "cyan block": np.array([-0.17, -0.68, 0.02]),            # nowhere named
           "brown block": np.array([0.6, -0.5, -0.3])}              # fell off
    assert where("red block", pos) == "in the blue bowl"
    assert where("green block", pos) == "on the red block"
    assert where("yellow block", pos) == "in the bottom right corner"
    assert where("pink block", pos) == "in the middle"
    assert where("gray block", pos) == "next to the blue bowl"
    assert where("cyan block", pos) == "on the table towards the bottom left"
    assert where("brown block", pos) == "off the table"
    pos["yellow block"] = np.array([-0.25, -0.5, 0.02])
    assert where("yellow block", pos) == "on the left side"


def test_moves_of_a_round_from_where_to_where():
    task = T.make_task("blocks_in_bowl", "sa_si", 2)
    world = T.feasible_world(task)
    api = TabletopApi(world)
    initial = T.world_positions(world)
    block = task.blocks[0]
    api.put_first_on_second(block, task.attributes["bowl"])
    after_one = T.world_positions(world)
    [move] = moves(initial, after_one)
    assert move.object == block and move.start == where(block, initial)
    assert move.end == f"in the {task.attributes['bowl']}"
    assert moves(after_one, after_one) == []
    seen = observe(task, initial, after_one, start=after_one)    # the next round moved nothing
    assert seen.moved == [] and seen.unmet                      # ... and it is still not done


class _DoesItWrongThenRight:
    """Round 1: all blocks to the mirrored place (the y axis flipped); round 2: the solution."""

    name = "flips"

    def __init__(self, task):
        from llm_interaction_node.core.llm import TokenLedger
        self.ledger = TokenLedger()
        self.task = task
        self.said = []

    def run(self, robot, instruction, next_utterance):
        api = TabletopApi(robot)
        x, y = T.PLACES[self.task.attributes["place"]]
        mirrored = np.array([x, -1.0 - y])
        for block in list(self.task.blocks):
            api.put_first_on_second(block, mirrored)
        self.said.append(next_utterance(Round()))
        namespace = {name: getattr(api, name) for name in TabletopApi.API}
        namespace["np"] = np
        exec(T.solution_program(self.task), namespace)         # noqa: S102 - test program
        self.said.append(next_utterance(Round()))

    def episode_succeeded(self):
        pass


def test_the_harness_observes_each_round_and_the_user_says_what_was_done():
    seed = next(s for s in range(40) if T.make_task("blocks_on_place", "sa_si", s)
                .attributes["place"] in ("top left corner", "top right corner", "top side"))
    task = T.make_task("blocks_on_place", "sa_si", seed)
    system = _DoesItWrongThenRight(task)
    record = run_once(system, "sa_si", "blocks_on_place", 1, seed)
    first, second = record.observations
    place = task.attributes["place"]
    mirrored = place.replace("top", "bottom")
    assert set(first["places"]) == set(task.objects)
    assert {m["object"] for m in first["moved"]} == set(task.blocks)
    assert all(m["end"] == T.place_phrase(mirrored) or m["end"].startswith("on the ")
               for m in first["moved"])
    assert first["unmet"][0]["kind"] == "wrong_place" and first["unmet"][0][
        "where"
    ] == T.place_phrase(mirrored)
    kind, text = record.utterances[1]
    assert kind == "high_level" and mirrored in text and place in text
    assert second["success"] and second["unmet"] == []
    assert {m["object"] for m in second["moved"]} == set(task.blocks)    # this round's moves
    assert record.utterances[2][0] == "learn"


def test_eval_command_with_the_scripted_stand_in_records_what_the_user_said(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path
    cli = Path(sys.executable).parent / "llm-interaction"
    r = subprocess.run([str(cli), "eval", "--system", "ours", "--scripted", "wrong-first",
                        "--split", "ua_ui", "--templates", "block_corner_distance_to_bowl",
                        "--runs", "1", "--world", "2d", "--out", str(tmp_path), "-q"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    [path] = tmp_path.glob("runs/ua_ui/block_corner_distance_to_bowl/run_01.json")
    record = json.loads(path.read_text())
    task = T.make_task("block_corner_distance_to_bowl", "ua_ui", record["seed"])
    kind, text = record["utterances"][1]
    assert kind == "high_level" and record["observations"][0]["unmet"][0]["kind"] == "wrong_corner"
    assert task.attributes["block"] in text and "corner" in text
    assert record["success"] and record["utterances"][-1][0] == "learn"

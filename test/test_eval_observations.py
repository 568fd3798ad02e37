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
        world = T.make_world(task)
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
    step = np.array(T.DIRECTIONS[a["direction"]]) * 0.07        # right next to the bowl, on that side
    world.pick_and_place(np.asarray(pos[other]), np.append(bowl[:2] + step, 0.0))
    now = T.world_positions(world)
    assert T.interpretation(task, now) != meant      # following the words now picks another block
    assert T.initial_destroyed(task, pos, now)


def test_instructions_that_do_not_depend_on_the_scene_are_never_destroyed():
    task = T.make_task("blocks_on_place", "sa_si", 1)
    world = T.make_world(task)
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
    system.task = T.make_task("block_in_bowl", "sa_si", T.make_task("block_in_bowl", "sa_si", 0).seed)
    record = run_once(system, "sa_si", "block_in_bowl", 1, system.task.seed)
    assert record.errors == ["gave up: too many errors"]
    assert record.success is False and record.first_success is None
    assert record.observations[0]["success"] is False

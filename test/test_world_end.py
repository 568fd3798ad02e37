"""Where a world's objects end, and whether a replay ends like the live world (issue 17).

Real worlds only: the 2-D tabletop, PyBullet, the household."""
import numpy as np

from llm_interaction_node.core.apis.tabletop import TabletopApi
from llm_interaction_node.session import make_world
from llm_interaction_node.sims.tabletop_bullet import TabletopWorldBullet
from llm_interaction_node.sims.world_end import XY_TOLERANCE, WorldEnd, end_difference, end_of

OBJECTS = "red block,blue block,green block,red bowl,blue bowl,green bowl"


def table(seed=0):
    return make_world("tabletop", OBJECTS, seed=seed)


def moved(world, name, dxyz):
    world.objects[name].position = world.objects[name].position + np.asarray(dxyz, dtype=float)


def test_a_block_a_few_mm_off_is_at_the_same_place():
    replayed, live = table(), table()
    moved(live, "red block", [0.004, -0.003, 0.002])        # physics noise
    assert end_difference(end_of(replayed), end_of(live)) is None
    moved(live, "red block", [XY_TOLERANCE, 0, 0])  # farther than the tolerance
    assert end_difference(end_of(replayed), end_of(live)).startswith(
        "the red block ends on the table"
    )


def test_blocks_anywhere_in_the_same_bowl_are_at_the_same_place_and_another_bowl_is_not():
    replayed, live = table(), table()
    for world, order in (
        (replayed, ["blue block", "red block"]),
        (live, ["red block", "blue block"]),
    ):
        for block in order:               # the 2-D world spreads a bowl's blocks on a ring
            TabletopApi(world).put_first_on_second(block, "blue bowl")
    assert np.linalg.norm(replayed.object_position("red block")[:2]
                          - live.object_position("red block")[:2]) > 0.02
    assert end_difference(end_of(replayed), end_of(live)) is None
    TabletopApi(live).put_first_on_second("red block", "green bowl")
    assert end_difference(end_of(replayed), end_of(live)) == (
        "the red block ends in the blue bowl in the replay, in the green bowl in the live world")


def test_a_stack_in_the_other_order_is_not_the_same():
    replayed, live = table(), table()
    spot = replayed.object_position("green block")[:2]
    TabletopApi(replayed).put_first_on_second("red block", "green block")   # red on green
    api = TabletopApi(live)                                                 # green on red, there
    api.put_first_on_second("green block", [0.2, -0.7])
    api.put_first_on_second("red block", spot)
    api.put_first_on_second("green block", "red block")
    said = end_difference(end_of(replayed), end_of(live))
    assert said.startswith("the red block ends on the green block in the replay, on the table at ")
    assert "; the green block ends on the table at " in said and said.endswith(
        "in the replay, on the red block in the live world")


def test_pybullet_ends_like_the_2d_world_after_the_same_puts():
    """The replay runs in 2-D while the live world is PyBullet: the same puts, no difference."""
    names = OBJECTS.split(",")
    flat = table()
    with TabletopWorldBullet.from_names(names, seed=0) as bullet:
        for world in (flat, bullet):
            api = TabletopApi(world)
            api.put_first_on_second("blue block", "blue bowl")
            api.put_first_on_second("red block", "blue bowl")
            api.put_first_on_second("green block", [0.2, -0.7])
        assert end_difference(end_of(flat), end_of(bullet)) is None
        TabletopApi(bullet).put_first_on_second("green block", "green bowl")
        assert end_difference(end_of(flat), end_of(bullet)) == (
            "the green block ends on the table at (0.20, -0.70) in the replay, in the green bowl "
            "in the live world")


def test_household_ends_are_compared_by_location_and_holder():
    replayed, live = (
        make_world("humanoid", "drinks_and_cup"),
        make_world("humanoid", "drinks_and_cup"),
    )
    assert end_difference(end_of(replayed), end_of(live)) is None
    state = live.checkpoint()
    state["objects"]["mango-juice_0"].update(location=None, held_by="human")
    live.restore(state)
    said = end_difference(end_of(replayed), end_of(live))
    assert said.startswith("mango-juice_0 ends at ") and said.endswith(
        "in the replay, held by the human in the live world")


def test_only_objects_the_live_world_knows_are_compared():
    replayed = end_of(table())
    live = WorldEnd("tabletop", {"red bowl": replayed.objects["red bowl"]})
    assert end_difference(replayed, live) is None
    assert end_of(object()) is None and end_difference(None, live) is None


def test_an_ignored_block_is_not_compared_nor_counted_under_another():
    """A wrong choice the user rejected stays where the robot put it in the live world; the
    accepted block went on top of it. Ignoring it, the accepted block on the table at that
    spot in the replay is at the same place, and so is a block put on the accepted one."""
    from llm_interaction_node.sims.world_end import ending_elsewhere
    replayed, live = table(), table()
    corner = [0.25, -0.25]
    TabletopApi(live).put_first_on_second("blue block", corner)
    TabletopApi(live).put_first_on_second("red block", corner)       # on the blue block
    TabletopApi(replayed).put_first_on_second("red block", corner)   # on the table
    assert ending_elsewhere(end_of(replayed), end_of(live)) == ["red block", "blue block"]
    assert ending_elsewhere(end_of(replayed), end_of(live), {"blue block"}) == []
    TabletopApi(replayed).put_first_on_second("green block", corner)   # red under green now
    TabletopApi(live).put_first_on_second("green block", corner)       # blue, red, green
    assert ending_elsewhere(end_of(replayed), end_of(live)) == ["red block", "blue block",
                                                                "green block"]
    assert ending_elsewhere(end_of(replayed), end_of(live), {"blue block"}) == []


def test_a_pile_in_another_order_is_the_same_for_heightless_blocks():
    from llm_interaction_node.sims.world_end import ending_elsewhere
    replayed, live = table(), table()
    corner = [0.25, -0.25]
    for world, order in ((replayed, ["red block", "blue block"]),
                         (live, ["blue block", "red block"])):
        for block in order:
            TabletopApi(world).put_first_on_second(block, corner)
    assert ending_elsewhere(end_of(replayed), end_of(live)) == ["red block", "blue block"]
    assert ending_elsewhere(end_of(replayed), end_of(live), (),
                            {"red block", "blue block"}) == []
    TabletopApi(replayed).put_first_on_second("blue block", [0.1, -0.5])    # elsewhere: still
    assert ending_elsewhere(end_of(replayed), end_of(live), (),
                            {"red block", "blue block"}) == ["blue block"]


def test_an_object_is_at_a_named_place_in_a_bowl_on_a_block_or_on_a_surface():
    from llm_interaction_node.core.apis.humanoid import HumanoidApi
    from llm_interaction_node.sims.world_end import at_place, not_at_places
    world = table()
    api = TabletopApi(world)
    api.put_first_on_second("red block", "blue bowl")
    api.put_first_on_second("green block", "blue block")
    end = end_of(world)
    assert at_place(end, "red block", "blue bowl") is True
    assert at_place(end, "red block", "green bowl") is False
    assert at_place(end, "green block", "blue block") is True
    assert at_place(end, "blue block", "green block") is False
    assert at_place(end, "blue block", "top left corner") is None        # a point: not told
    assert not_at_places(end, {"red block": "blue bowl", "blue block": "red bowl"}) == [
        f"blue block ends on the table at ({world.object_position('blue block')[0]:.2f}, "
        f"{world.object_position('blue block')[1]:.2f}) in the replay, not at red bowl where "
        "the user wants it"]
    house = make_world("humanoid", "drinks_and_cup")
    HumanoidApi(house).bring_object_to("mango-juice_0", "on_dining-table_0")
    assert at_place(end_of(house), "mango-juice_0", "on_dining-table_0") is True
    assert at_place(end_of(house), "coffee-cup_0", "on_dining-table_0") is False
    assert at_place(end_of(house), "no-such-thing_0", "on_dining-table_0") is None

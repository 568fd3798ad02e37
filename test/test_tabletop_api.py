"""The CaP tabletop API over the kinematic 2-D tabletop world."""
import itertools
import pickle

import numpy as np
import pytest

from llm_interaction_node.core.apis.registry import ApiRegistry, public_functions
from llm_interaction_node.core.apis.tabletop import TabletopApi, TabletopRobot
from llm_interaction_node.core.transcript.errors import BlockedError, SemanticHintError
from llm_interaction_node.sims import TabletopWorld2D
from llm_interaction_node.sims.tabletop2d import COLORS

NAMES = ["red block", "green block", "blue block", "blue bowl", "yellow bowl"]


def make(names=NAMES, seed=0):
    world = TabletopWorld2D.from_names(names, seed=seed)
    return world, TabletopApi(world)


def test_denormalize_xy_corners():
    _, api = make()
    assert api.denormalize_xy([0, 0]) == pytest.approx([-0.25, -0.75])   # bottom left corner
    assert api.denormalize_xy([0, 1]) == pytest.approx([-0.25, -0.25])   # top left corner
    assert api.denormalize_xy([1, 1]) == pytest.approx([0.25, -0.25])    # top right corner
    assert api.denormalize_xy(np.array([0.5, 0.5])) == pytest.approx([0.0, -0.5])
    assert isinstance(api.denormalize_xy([1, 0]), np.ndarray)
    with pytest.raises(SemanticHintError, match="denormalize_xy expects"):
        api.denormalize_xy([0.5])


def test_names_and_positions():
    world, api = make()
    assert isinstance(world, TabletopRobot)
    assert api.get_obj_names() == NAMES
    pos = api.get_obj_pos("red block")
    assert isinstance(pos, np.ndarray) and pos.shape == (2,)
    assert pos == pytest.approx(world.object_position("red block")[:2])
    with pytest.raises(SemanticHintError) as e:
        api.get_obj_pos("purple block")
    assert str(e.value) == ("unknown object 'purple block'. Use one of the names returned by "
                            f"get_obj_names(): {NAMES!r}")


def test_put_block_into_bowl():
    world, api = make()
    assert api.put_first_on_second("red block", "blue bowl") == "success"
    assert api.put_first_on_second("green block", "blue bowl") == "success"
    bowl = world.object_position("blue bowl")
    for block in ("red block", "green block"):
        p = world.object_position(block)
        assert np.linalg.norm(p[:2] - bowl[:2]) < 0.06 and p[2] > bowl[2]   # CaP "in the bowl"
        assert world.snapshot()["objects"][block]["support"] == "blue bowl"
    assert np.linalg.norm(world.object_position("red block")[:2]
                          - world.object_position("green block")[:2]) > 0.02   # side by side


def test_put_block_on_block_stacks():
    world, api = make()
    assert api.put_first_on_second("red block", "green block") == "success"
    assert api.put_first_on_second("blue block", "red block") == "success"
    g, r, b = (world.object_position(n) for n in ("green block", "red block", "blue block"))
    assert r[2] == pytest.approx(g[2] + 0.04) and b[2] == pytest.approx(g[2] + 0.08)
    assert np.linalg.norm(r[:2] - g[:2]) < 0.04 and np.linalg.norm(b[:2] - g[:2]) < 0.04
    assert world.snapshot()["objects"]["blue block"]["support"] == "red block"
    # suction takes the topmost object under the pick point, so the API refuses a covered
    # block with a hint naming the top one instead of moving it and answering 'success'
    with pytest.raises(SemanticHintError, match="'blue block' lies on top of it") as refused:
        api.put_first_on_second("green block", "yellow bowl")
    assert isinstance(refused.value, BlockedError)      # what the agent's grammar acts on
    assert (refused.value.blocked, refused.value.blocker) == ("green block", "blue block")
    assert set(refused.value.around) == {"red block", "blue block"}     # its pile
    again = pickle.loads(pickle.dumps(refused.value))   # as it crosses to the sandbox worker
    assert (str(again), again.blocked, again.blocker, again.around) == (
        str(refused.value), "green block", "blue block", refused.value.around)
    with pytest.raises(SemanticHintError, match="'blue block' lies on top of it"):
        api.put_first_on_second("red block", "yellow bowl")
    assert len(world.log) == 2 and world.object_position("green block") == pytest.approx(g)
    assert world.pick_and_place(g, world.object_position("yellow bowl")) == "success"
    assert world.log[-1]["object"] == "blue block"          # what the world itself does
    assert api.put_first_on_second("red block", "blue block") == "success"  # now on top


def test_a_covered_block_already_at_the_target_point_is_left_there():
    """'put all the blocks on the corner' run twice: the lower blocks are already there."""
    world, api = make()
    corner = api.denormalize_xy([1, 1])
    assert api.put_first_on_second("red block", corner) == "success"
    assert api.put_first_on_second("green block", corner) == "success"
    moves = len(world.log)
    assert api.put_first_on_second("red block", corner) == "success"
    assert len(world.log) == moves
    with pytest.raises(SemanticHintError, match="'green block' lies on top of it"):
        api.put_first_on_second("red block", api.denormalize_xy([0, 0]))
    with pytest.raises(SemanticHintError, match="'green block' lies on top of it"):
        api.put_first_on_second("red block", "blue block")


def test_block_in_bowl_target_block_vs_bowl():
    world, api = make()
    api.put_first_on_second("green block", "yellow bowl")
    assert world.object_position("green block")[2] == pytest.approx(0.025)
    api.put_first_on_second("red block", "green block")       # on the block in the bowl
    assert world.object_position("red block")[2] == pytest.approx(0.065)
    assert world.snapshot()["objects"]["red block"]["support"] == "green block"
    api.put_first_on_second("blue block", "yellow bowl")      # the bowl: next to it, inside
    blue, bowl = world.object_position("blue block"), world.object_position("yellow bowl")
    assert blue[2] == pytest.approx(0.025) and 0.02 < np.linalg.norm(blue[:2] - bowl[:2]) < 0.06


def test_put_block_at_point_and_move_bowl_with_contents():
    world, api = make()
    target = api.denormalize_xy([0.5, 0.0])                             # bottom side
    assert api.put_first_on_second("red block", target) == "success"
    assert world.object_position("red block") == pytest.approx([0.0, -0.75, 0.02])
    assert api.put_first_on_second("yellow bowl", [0.25, -0.25]) == "success"   # a plain list
    assert world.object_position("yellow bowl") == pytest.approx([0.25, -0.25, 0.0])
    api.put_first_on_second("green block", "yellow bowl")
    api.put_first_on_second("blue block", "yellow bowl")      # lies off-centre in the bowl
    api.put_first_on_second("green block", [-0.25, -0.25])   # take the centre one out again
    assert api.put_first_on_second("yellow bowl", [0.2, -0.6]) == "success"
    assert world.object_position("yellow bowl")[:2] == pytest.approx([0.2, -0.6])
    assert (
        np.linalg.norm(world.object_position("blue block")[:2] - [0.2, -0.6]) < 0.06
    )  # came along
    world.reset()
    assert world.snapshot()["objects"]["red block"]["support"] == "table"
    assert world.object_position("red block")[:2] != pytest.approx([0.0, -0.75])


def test_out_of_bounds_and_bad_targets():
    world, api = make()
    before = world.snapshot()
    for point in ([0.5, 0.5], [0.0, 0.0], np.array([0.0, -0.9]), [0.31, -0.5]):
        with pytest.raises(SemanticHintError) as e:
            api.put_first_on_second("red block", point)
        assert str(e.value) == "Point not in boundaries. Make sure to use denormalize_xy correctly."
    with pytest.raises(SemanticHintError, match="get_obj_names"):
        api.put_first_on_second("red block", "green bowl")
    with pytest.raises(SemanticHintError, match="get_obj_names"):
        api.put_first_on_second("pink block", "blue bowl")
    with pytest.raises(SemanticHintError, match="itself"):
        api.put_first_on_second("red block", "red block")
    with pytest.raises(SemanticHintError, match="denormalize_xy"):
        api.put_first_on_second("red block", [0.1])
    assert world.snapshot() == before and world.log == []


def test_registry_listing_of_tabletop_api():
    _, api = make()
    lines = ApiRegistry(public_functions(api)).listing(sort=False).splitlines()
    assert lines[0] == "def denormalize_xy(pos_normalized) -> np.ndarray"
    assert lines[1] == "def get_obj_names() -> list[str]"
    assert lines[2] == "def get_obj_pos(obj_name: str) -> np.ndarray  # 2D xy position"
    assert lines[3].startswith(
        "def put_first_on_second(obj_name_1: str, target_name_or_xy_pos: str | np.ndarray) -> str")
    rest = " ".join(lines[3:])
    assert "# move the gripper to object 1, pick it up" in rest and "release" in rest


@pytest.mark.parametrize("seed", range(5))
def test_spawn_rules(seed):
    world = TabletopWorld2D.random(4, 3, seed=seed)
    names = world.object_names()
    assert len([n for n in names if n.endswith("block")]) == 4
    assert len([n for n in names if n.endswith("bowl")]) == 3
    assert all(n.split()[0] in COLORS for n in names) and world.spawn_ok
    xy = [world.object_position(n)[:2] for n in names]
    for p in xy:
        assert -0.2 <= p[0] <= 0.2 and -0.7 <= p[1] <= -0.3
    for p, q in itertools.combinations(xy, 2):
        assert np.linalg.norm(p - q) >= 0.15
    again = TabletopWorld2D.random(4, 3, seed=seed)
    assert again.snapshot() == world.snapshot()
    for n in names:
        z = world.object_position(n)[2]
        assert z == pytest.approx(0.02 if n.endswith("block") else 0.0)


def test_spawn_differs_between_seeds_and_names_are_validated():
    assert (
        TabletopWorld2D.random(3, 2, seed=1).snapshot()
        != TabletopWorld2D.random(3, 2, seed=2).snapshot()
    )
    with pytest.raises(ValueError, match="colour"):
        TabletopWorld2D.from_names(["magenta block"])
    with pytest.raises(ValueError, match="duplicate"):
        TabletopWorld2D.from_names(["red block", "red block"])


def test_one_hint_names_every_unknown_argument():
    from llm_interaction_node.core.apis.tabletop import TabletopApi
    from llm_interaction_node.core.transcript.errors import SemanticHintError
    from llm_interaction_node.sims.tabletop2d import TabletopWorld2D
    api = TabletopApi(TabletopWorld2D.from_names(["gray block", "purple bowl"], seed=0))
    with pytest.raises(SemanticHintError) as hint:
        api.put_first_on_second("grey block", "violet bowl")
    assert "unknown objects 'grey block', 'violet bowl'" in str(hint.value)
    assert "['gray block', 'purple bowl']" in str(hint.value)
    with pytest.raises(SemanticHintError, match="unknown object 'violet bowl'"):
        api.put_first_on_second("gray block", "violet bowl")

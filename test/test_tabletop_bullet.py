"""The CaP tabletop API over the PyBullet tabletop world (floating suction gripper and Panda)."""
import struct
import zlib

import numpy as np
import pytest

pytest.importorskip("pybullet")

from llm_interaction_node.core.apis.tabletop import TabletopApi, TabletopRobot  # noqa: E402
from llm_interaction_node.core.transcript.errors import SemanticHintError  # noqa: E402
from llm_interaction_node.sims.tabletop2d import TabletopWorld2D  # noqa: E402
from llm_interaction_node.sims.tabletop_bullet import TabletopWorldBullet, save_strip, write_png  # noqa: E402

NAMES = ["red block", "green block", "blue block", "blue bowl", "yellow bowl"]


@pytest.fixture
def world():
    with TabletopWorldBullet.from_names(NAMES, seed=0) as w:
        yield w


def xy_dist(a, b):
    return float(np.linalg.norm(np.asarray(a)[:2] - np.asarray(b)[:2]))


def test_protocol_layout_and_snapshot_match_the_2d_world(world):
    assert isinstance(world, TabletopRobot)
    assert world.object_names() == NAMES
    flat = TabletopWorld2D.from_names(NAMES, seed=0)
    for name in NAMES:       # same spawn (block: its centre, bowl: its base centre)
        assert world.object_position(name) == pytest.approx(flat.object_position(name), abs=1e-6)
    snap = world.snapshot()
    assert snap.keys() == flat.snapshot().keys() and snap["spawn_ok"] is True
    assert snap == flat.snapshot()
    assert world.bounds.tolist() == flat.bounds.tolist()


def test_api_block_into_bowl_onto_block_and_to_a_corner(world):
    api = TabletopApi(world)
    assert api.put_first_on_second("red block", "blue bowl") == "success"
    red, bowl = world.object_position("red block"), world.object_position("blue bowl")
    assert xy_dist(red, bowl) < 0.06 and red[2] > bowl[2]
    assert world.snapshot()["objects"]["red block"]["support"] == "blue bowl"

    assert api.put_first_on_second("green block", "blue block") == "success"
    green, blue = world.object_position("green block"), world.object_position("blue block")
    assert xy_dist(green, blue) < 0.04 and green[2] > blue[2] + 0.03
    assert world.snapshot()["objects"]["green block"]["support"] == "blue block"

    corner = api.denormalize_xy([0, 0])       # bottom left
    with pytest.raises(SemanticHintError, match="'green block' lies on top of it"):
        api.put_first_on_second("blue block", corner)   # suction would take the top one
    assert world.pick_and_place(blue, corner) == "success"
    assert world.log[-1]["object"] == "green block"     # suction takes the top of the stack
    assert xy_dist(world.object_position("green block"), corner) < 0.06
    assert world.snapshot()["objects"]["green block"]["support"] == "table"


def test_the_lower_of_two_blocks_in_a_bowl_is_refused_until_the_upper_one_moved(world):
    """Seen in an eval run: two blocks in one bowl, the model moved the lower one and the
    world moved the upper one while the API answered 'success'."""
    api = TabletopApi(world)
    assert api.put_first_on_second("red block", "blue bowl") == "success"
    assert api.put_first_on_second("green block", "blue bowl") == "success"
    with pytest.raises(SemanticHintError, match="cannot pick 'red block': 'green block'"):
        api.put_first_on_second("red block", "yellow bowl")
    # already where it should go: 'success' and nothing moves (a re-grasp would take the top)
    moves = len(world.log)
    assert api.put_first_on_second("red block", "blue bowl") == "success"
    assert len(world.log) == moves
    assert api.put_first_on_second("green block", "yellow bowl") == "success"
    assert api.put_first_on_second("red block", "yellow bowl") == "success"
    assert [e["object"] for e in world.log[-2:]] == ["green block", "red block"]


def assert_nothing_moved(world, before):
    """Equal up to contact settling (the spawned blocks sink ~10 um into the plane)."""
    after = world.snapshot()
    for name, obj in before["objects"].items():
        assert after["objects"][name]["position"] == pytest.approx(obj["position"], abs=1e-4)
        assert after["objects"][name]["support"] == obj["support"]


def test_pick_at_an_empty_point_fails_and_nothing_moves(world):
    before = world.snapshot()
    assert (
        world.pick_and_place(np.array([0.25, -0.75, 0.02]), np.array([0.0, -0.5, 0.0])) == "failure"
    )
    assert world.log[-1]["reason"] == "nothing to pick at the pick point"
    assert_nothing_moved(world, before)
    assert world.pick_and_place(world.object_position("red block"), [0.9, -0.5, 0.0]) == "failure"
    assert world.log[-1]["reason"] == "place point outside the workspace"
    assert_nothing_moved(world, before)


def test_bowls_cannot_be_picked_reset_restores_and_same_seed_same_run():
    def run(seed):
        with TabletopWorldBullet.random(3, 2, seed=seed) as w:
            names = w.object_names()
            start = w.snapshot()
            api = TabletopApi(w)
            blocks = [n for n in names if n.endswith("block")]
            api.put_first_on_second(blocks[0], blocks[1])
            bowl = next(n for n in names if n.endswith("bowl"))
            assert api.put_first_on_second(bowl, [0.2, -0.6]) == "failure"   # fixed base
            end = w.snapshot()
            w.reset()
            assert w.snapshot() == start and w.log == []
            return names, start, end

    a, b, c = run(3), run(3), run(4)
    assert a == b                     # names, spawn and physics are deterministic
    assert a[1] != c[1]
    assert a[0] == TabletopWorld2D.random(3, 2, seed=3).object_names()


def test_render_writes_a_png_and_a_strip(world, tmp_path):
    frame = world.render(tmp_path / "frame.png", size=(96, 64))
    assert frame.shape == (64, 96, 3) and frame.dtype == np.uint8 and frame.std() > 5
    data = (tmp_path / "frame.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR" and struct.unpack(">II", data[16:24]) == (96, 64)
    assert zlib.crc32(data[12:29]) == struct.unpack(">I", data[29:33])[0]
    TabletopApi(world).put_first_on_second("red block", "yellow bowl")
    strip = save_strip([frame, world.render(size=(96, 64))], tmp_path / "strip.png")
    assert strip.shape == (64, 2 * 96 + 4, 3)
    data = (tmp_path / "strip.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (196, 64)
    # decode our own PNG back (filter type 0 rows) and compare
    idat = data[data.index(b"IDAT") + 4:data.index(b"IEND") - 8]
    rows = zlib.decompress(idat)
    assert len(rows) == 64 * (1 + 196 * 3)
    decoded = np.frombuffer(rows, np.uint8).reshape(64, 1 + 196 * 3)[:, 1:].reshape(64, 196, 3)
    assert np.array_equal(decoded, strip)
    with pytest.raises(ValueError):
        write_png(tmp_path / "bad.png", np.zeros((2, 2, 2), np.uint8))


def test_arm_gripper_pick_and_place():
    with TabletopWorldBullet.from_names(NAMES, seed=0, gripper="arm") as w:
        api = TabletopApi(w)
        assert api.put_first_on_second("red block", "blue bowl") == "success"
        red, bowl = w.object_position("red block"), w.object_position("blue bowl")
        assert xy_dist(red, bowl) < 0.06 and red[2] > bowl[2]
        # right in front of the arm's base, with the cup pointing down: out of reach
        assert api.put_first_on_second("green block", [0.0, -0.2]) == "failure"
        assert "unreachable" in w.log[-1]["reason"]


def test_constructor_validation():
    with pytest.raises(ValueError, match="gripper"):
        TabletopWorldBullet.from_names(NAMES, gripper="magnet")
    with pytest.raises(ValueError, match="colour"):
        TabletopWorldBullet.from_names(["magenta block"])
    w = TabletopWorldBullet.from_names(["red block"])
    w.close()
    w.close()                                  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        w.object_names() and w.snapshot()

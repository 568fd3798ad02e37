"""The CaP tabletop (PyBullet, or the kinematic 2-D world) as a ROS 2 node.

The same interfaces as the household simulator: the generic skill action
(``skills/run_skill``, RunSkill) serves ``pick_and_place`` with arguments
``{"pick": [x, y, z], "place": [x, y, z]}``; the perceived scene (Scene: blocks with the
``grasp`` affordance, blocks and bowls with ``place_something_on_top``) goes to
``perception/scene``; the world's snapshot (JSON) to ``tabletop_sim/world_state``; and
``tabletop_sim/reset`` (std_srvs/Trigger) rebuilds the scene. For viewers: RViz markers
(``tabletop_sim/markers``, MarkerArray, transient local: blocks, bowls, the gripper, in
``frame_id``) whenever the scene changed, and the PyBullet camera's view as
``sensor_msgs/Image`` (rgb8, ``camera/image_raw``) at most ``camera_rate_hz`` times a second
and only while no skill runs (the 2-D world has no camera). The eval's PNG strips are
:meth:`TabletopWorldBullet.render` too.

    python -m llm_interaction_node.ros.nodes.tabletop_sim --ros-args -p objects:="red block,blue \
bowl"
"""
from __future__ import annotations

import array
import json
import threading
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from llm_interaction_interfaces.action import RunSkill
from llm_interaction_interfaces.msg import Scene
from rclpy.action import ActionServer
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from sensor_msgs.msg import Image
from std_msgs.msg import String
from std_srvs.srv import Trigger
from visualization_msgs.msg import MarkerArray

from ...core.apis.humanoid import GRASP, PLACE_ON_TOP, SceneObject
from ...core.settings.config import setting
from .. import names
from ..conversions import scene_to_msg
from ..markers import MARKERS_QOS, tabletop_markers
from ..node_main import run_node
from ..node_parameters import declare_section
from ..qos import LATCHED
from ..skills import SKILL_ACTIONS
from .household_sim import EXECUTOR_THREADS, RESULT_TIMEOUT_S

PICK_AND_PLACE = "pick_and_place"


def make_tabletop(kind: str, objects: list[str], n_blocks: int, n_bowls: int, seed: int,
                  gripper: str):
    if kind == "2d":
        from ...sims.tabletop2d import TabletopWorld2D as World
        extra = {}
    elif kind == "bullet":
        from ...sims.tabletop_bullet import TabletopWorldBullet as World
        extra = {"gripper": gripper}
    else:
        raise ValueError(f"world must be 'bullet' or '2d', not {kind!r}")
    if objects:
        return World.from_names(objects, seed=seed, **extra)
    return World.random(n_blocks, n_bowls, seed=seed, **extra)


@dataclass
class TabletopTopics:
    """``topics.*``."""

    markers: str = setting(names.TABLETOP_MARKERS, "RViz markers (MarkerArray, latched)")
    camera: str = setting(names.CAMERA_IMAGE, "camera view (sensor_msgs/Image, rgb8)")
    scene: str = setting(names.SCENE, "perceived scene (Scene)")
    world_state: str = setting("tabletop_sim/world_state", "JSON snapshot, latched")


@dataclass
class TabletopActions:
    """``actions.*``."""

    run_skill: str = setting(SKILL_ACTIONS["run_skill"], "generic skill action (pick_and_place)")


@dataclass
class TabletopServices:
    """``services.*``."""

    reset: str = setting("tabletop_sim/reset", "rebuild the scene (std_srvs/Trigger)")


@dataclass
class TabletopSimSettings:
    """The tabletop_sim node's parameters."""

    world: Literal["bullet", "2d"] = setting("bullet", "'bullet' (PyBullet, headless) or '2d' "
                                             "(kinematic)")
    gripper: Literal["floating", "arm"] = setting("floating", "PyBullet gripper: 'floating' "
                                                  "suction or 'arm' (Panda)")
    objects: list[str] = setting([], "object names, a list or comma-separated, e.g. "
                                 "'red block,blue bowl' (none = random blocks and bowls)")
    n_blocks: int = setting(3, "random scene: number of blocks", minimum=0)
    n_bowls: int = setting(3, "random scene: number of bowls", minimum=0)
    seed: int = setting(0, "scene seed")
    scene_rate_hz: float = setting(2.0, "scene topic rate (also published after every skill; "
                                   "0 = only then)", minimum=0.0)
    frame_id: str = setting("map", "frame of the published poses and markers")
    camera_rate_hz: float = setting(2.0, "camera image rate limit (PyBullet only; 0 = no "
                                    "images)", minimum=0.0)
    camera_width: int = setting(320, "camera image width (pixels)", minimum=1, maximum=4096)
    camera_height: int = setting(240, "camera image height (pixels)", minimum=1, maximum=4096)
    camera_frame_id: str = setting("tabletop_camera", "frame_id of the camera images")
    topics: TabletopTopics = field(default_factory=TabletopTopics)
    actions: TabletopActions = field(default_factory=TabletopActions)
    services: TabletopServices = field(default_factory=TabletopServices)


class TabletopSimNode(Node):
    def __init__(self) -> None:
        super().__init__("tabletop_sim")
        self.config = config = declare_section(self, TabletopSimSettings)
        self.world = make_tabletop(config.world, config.objects, config.n_blocks,
                                   config.n_bowls, config.seed, config.gripper)
        self.frame_id = config.frame_id
        self._lock = threading.Lock()        # PyBullet is not thread-safe: one caller at a time
        self._busy = False
        group = ReentrantCallbackGroup()
        self._scene = self.create_publisher(Scene, config.topics.scene, 10)
        self._state = self.create_publisher(String, config.topics.world_state, LATCHED)
        self._markers = self.create_publisher(MarkerArray, config.topics.markers, MARKERS_QOS)
        self._markers_key: str | None = None
        self.camera_size = (config.camera_width, config.camera_height)
        self.camera_frame_id = config.camera_frame_id
        self._camera = None
        self._frame, self._frame_key = None, None      # the last rendered view, and of what
        camera_rate = config.camera_rate_hz
        if camera_rate > 0 and hasattr(self.world, "render"):
            self._camera = self.create_publisher(Image, config.topics.camera, 2)
            self.create_timer(1.0 / camera_rate, self._periodic_frame, callback_group=group)
        ActionServer(self, RunSkill, config.actions.run_skill, self._execute, callback_group=group,
                     result_timeout=round(RESULT_TIMEOUT_S))
        self.create_service(Trigger, config.services.reset, self._on_reset, callback_group=group)
        rate = config.scene_rate_hz
        if rate > 0:
            self.create_timer(1.0 / rate, self._periodic, callback_group=group)
        self.publish()
        self.get_logger().info(f"tabletop_sim ready: {config.world} world, "
                               f"{len(self.world.object_names())} objects")

    def destroy_node(self) -> None:
        close = getattr(self.world, "close", None)
        if close:
            close()
        super().destroy_node()

    # -- perception ---------------------------------------------------------------------
    def scene_objects(self) -> list[SceneObject]:
        out = []
        for name in self.world.object_names():
            x, y, z = (float(v) for v in self.world.object_position(name))
            kind = "block" if name.endswith("block") else "bowl"
            affordances = (GRASP, PLACE_ON_TOP) if kind == "block" else (PLACE_ON_TOP,)
            out.append(SceneObject(name=name, object_class=name.replace(" ", "-"),
                                   pose=np.array([x, y, z, 0.0, 0.0, 0.0]), location=None,
                                   affordances=affordances))
        return out

    def publish(self) -> None:
        with self._lock:
            objects = self.scene_objects()
            snapshot = self.world.snapshot()
            tip = self.world.gripper_position() if hasattr(self.world, "gripper_position") else None
        stamp = self.get_clock().now().to_msg()
        self._scene.publish(scene_to_msg(objects, stamp=stamp, frame_id=self.frame_id))
        self._state.publish(String(data=json.dumps(snapshot, default=str)))
        key = json.dumps([snapshot, None if tip is None else tip.round(4).tolist()])
        if key != self._markers_key:           # markers only when something moved
            self._markers_key = key
            self._markers.publish(tabletop_markers(
                [(o.name, o.pose[:3]) for o in objects], tip, frame_id=self.frame_id, stamp=stamp))

    def frame(self) -> Image:
        """The camera's current view as sensor_msgs/Image (rgb8). A frame costs a render
        (~0.2 s at 320x240 on a loaded machine, see docs/benchmarks.md), so the view is
        rendered again only when the world changed; otherwise the last one goes out anew."""
        key = self._markers_key
        if self._frame is None or key != self._frame_key:
            with self._lock:
                rgb = self.world.render(size=self.camera_size)
            self._frame, self._frame_key = rgb, key
        rgb = self._frame
        msg = Image(height=int(rgb.shape[0]), width=int(rgb.shape[1]), encoding="rgb8",
                    is_bigendian=0, step=int(rgb.shape[1]) * 3,
                    data=array.array("B", rgb.tobytes()))
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.header.frame_id = self.camera_frame_id
        return msg

    def _periodic_frame(self) -> None:
        if not self._busy:
            self._camera.publish(self.frame())

    def _periodic(self) -> None:
        if not self._busy:
            self.publish()

    # -- the skill ----------------------------------------------------------------------
    def _execute(self, goal_handle):
        request = goal_handle.request
        result = RunSkill.Result(status="failure")
        try:
            if request.name != PICK_AND_PLACE:
                raise ValueError(f"unknown skill {request.name!r}; this simulator serves "
                                 f"{PICK_AND_PLACE!r}")
            args = json.loads(request.arguments_json or "{}")
            if not isinstance(args, dict):
                raise ValueError("arguments_json must be a JSON object")
            pick = np.asarray(args["pick"], dtype=float).reshape(3)
            place = np.asarray(args["place"], dtype=float).reshape(3)
            if not (np.all(np.isfinite(pick)) and np.all(np.isfinite(place))):
                raise ValueError("pick and place must be finite [x, y, z]")
            self._busy = True
            with self._lock:
                result.status = self.world.pick_and_place(pick, place)
                log = getattr(self.world, "log", None)
                if result.status != "success" and log:
                    entry = log[-1]
                    result.message = str(entry.get("reason", "") if isinstance(entry, dict)
                                         else getattr(entry, "reason", ""))
        except (ValueError, KeyError, TypeError) as exc:
            result.message = f"bad goal: {exc}"
        finally:
            self._busy = False
        self.publish()                       # the scene after the skill, before the result
        (goal_handle.succeed if result.status == "success" else goal_handle.abort)()
        return result

    def _on_reset(self, _request, response):
        with self._lock:
            self.world.reset()
        self.publish()
        response.success, response.message = True, "scene rebuilt"
        return response


def main(args=None) -> int:
    return run_node(TabletopSimNode, "tabletop_sim", args, threads=EXECUTOR_THREADS)


if __name__ == "__main__":
    import sys
    sys.exit(main())

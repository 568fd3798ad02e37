"""The simulated household (:class:`~llm_interaction_node.sims.household.HouseholdWorld`) as a
ROS 2 node: the robot's skills as action servers, the perceived scene as a topic.

Serves (names relative, defaults in :mod:`llm_interaction_node.ros.names` and, for the
skills, :mod:`llm_interaction_node.ros.skills`, renamed by parameters):

* actions ``skills/{move_to,grasp,place,handover,receive,run_skill}``
  (``llm_interaction_interfaces/action/*``). One skill runs at a time, further goals wait.
  The result's ``status`` is ``'success'`` or ``'failure'`` (the goal then ends ABORTED),
  ``message`` the world's reason for a failure. A cancel stops the running skill at once
  (``HouseholdWorld.interrupt``): the goal ends CANCELED with ``status 'failure'``,
  ``message 'canceled'``.
* ``perception/scene`` (``llm_interaction_interfaces/msg/Scene``) at ``scene_rate_hz`` and
  after every skill;
* ``household_sim/markers`` (``visualization_msgs/MarkerArray``, transient local): the world
  in ``frame_id`` (objects, furniture, named locations, the robot and what each hand holds,
  the human; see :mod:`..markers`) whenever it changed: after every skill, during moves and
  after a reset;
* ``household_sim/world_state`` (``std_msgs/String``, transient local): the JSON of
  ``HouseholdWorld.snapshot()`` plus ``"last_skill"`` (the last skill log entry or null), at
  start, after every skill and after a reset;
* service ``household_sim/reset`` (``std_srvs/Trigger``): back to the world file's initial
  state (waits for a running skill to end).

Run::

    python -m llm_interaction_node.ros.nodes.household_sim --ros-args \\
        --params-file config/household_sim.yaml -p world:=ladder_and_shelf
"""
from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, make_dataclass
from functools import partial
from typing import Any

import numpy as np
from llm_interaction_interfaces.action import Grasp, Handover, MoveTo, Place, Receive, RunSkill
from llm_interaction_interfaces.msg import Scene
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from std_msgs.msg import String
from std_srvs.srv import Trigger
from visualization_msgs.msg import MarkerArray

from ...core.apis.humanoid import FAILURE, SUCCESS
from ...core.settings.config import setting
from ...sims.household import CANCELED, HouseholdWorld
from ...sims.worlds import DEFAULT_WORLD, load_household_world
from .. import names
from ..conversions import FRAME, base_pose_to_msg, msg_to_base_pose, scene_to_msg
from ..markers import MARKERS_QOS, household_markers
from ..node_main import run_node
from ..node_parameters import declare_section
from ..qos import LATCHED
from ..skills import SKILL_ACTIONS, SKILLS

NODE_NAME = "household_sim"
EXECUTOR_THREADS = 8        # a waiting goal holds a thread; cancels, timers, services need more
RESULT_GRACE = 0.1          # s of spinning after the last goal ended, before shutting down
WORLD_STATE_QOS = LATCHED


class GoalError(ValueError):
    """A goal the world cannot even be asked about (e.g. invalid JSON); the result's message."""


@dataclass(frozen=True)
class _Skill:
    """One action server: its type and how a goal becomes a world call."""

    name: str                                      # its name in ros/skills.py
    action: type
    run: Callable[[Any, Any], str]                 # (goal, result) -> 'success' / 'failure'


# Finished goals are kept (and listed in every status message) this long; rclpy's default of
# 900 s made each status message, and so each skill call, slower with every goal. A client
# asks for the result once the goal is accepted, but on a loaded machine that can come more
# than a second after a quick skill ended: with 1 s the result was gone by then, rclpy
# answered STATUS_UNKNOWN with an empty result (issue 45: the warm-up goal's empty status).
RESULT_TIMEOUT_S = 10.0


SkillActions = make_dataclass("SkillActions", [
    (skill, str, setting(default, f"Name of the {skill} action"))
    for skill, default in SKILL_ACTIONS.items()])
SkillActions.__doc__ = "``actions.*``: the skill action servers' names."


@dataclass
class SimTopics:
    """``topics.*``."""

    scene: str = setting(names.SCENE, "Scene topic (llm_interaction_interfaces/msg/Scene)")
    markers: str = setting(names.SIM_MARKERS, "RViz markers of the world "
                           "(visualization_msgs/MarkerArray, transient local)")
    world_state: str = setting(names.WORLD_STATE, "World state topic (std_msgs/String, JSON, "
                               "transient local)")


@dataclass
class SimServices:
    """``services.*``."""

    reset: str = setting(names.WORLD_RESET, "Reset service (std_srvs/Trigger)")


@dataclass
class HouseholdSimSettings:
    """The household_sim node's parameters (``config/household_sim.yaml``)."""

    world: str = setting(DEFAULT_WORLD, "World name (config/worlds/<name>.yaml) or path to a "
                         "world YAML file")
    time_scale: float = setting(0.1, "Wall seconds per simulated second of a skill; 0 = skills "
                                "finish at once", minimum=0.0)
    scene_rate_hz: float = setting(5.0, "Rate of the scene topic (it is also published after "
                                   "every skill); 0 = only then", minimum=0.0)
    frame_id: str = setting(FRAME, "Frame of all published poses")
    actions: SkillActions = field(default_factory=SkillActions)
    topics: SimTopics = field(default_factory=SimTopics)
    services: SimServices = field(default_factory=SimServices)
    failures_json: str = setting("", "JSON object merged into the world's 'failures', e.g. "
                                 "{\"grasp\": {\"*\": 1}}")
    result_timeout_s: float = setting(RESULT_TIMEOUT_S, "How long a finished goal's result is "
                                      "kept for clients that ask late; every kept goal is listed "
                                      "in each status message, so long values slow busy clients",
                                      minimum=0.1)


class HouseholdSimNode(Node):
    """Action servers for the skills of a simulated household, its scene and state topics."""

    def __init__(self, **kwargs: Any):
        super().__init__(NODE_NAME, **kwargs)
        config = declare_section(self, HouseholdSimSettings)

        self._goal_lock = threading.Lock()  # guards the fields below
        self._turn = threading.Condition(
            self._goal_lock
        )  # notified when _busy ends or a cancel comes
        self._busy = False                     # a skill (or a reset) runs; one at a time
        self._goals: dict[bytes, bool] = {}    # accepted, unfinished goals -> cancel requested
        self._active: ServerGoalHandle | None = None
        self._active_skill: _Skill | None = None
        self._progress = 0.0                   # of the running goal
        self._stopping = False

        self.config = config
        self.frame_id = config.frame_id
        self.world = self._load_world(config.world, config.time_scale, config.failures_json)

        self._scene_pub = self.create_publisher(Scene, config.topics.scene, 10)
        self._state_pub = self.create_publisher(String, config.topics.world_state, WORLD_STATE_QOS)
        self._markers_pub = self.create_publisher(MarkerArray, config.topics.markers,
                                                  MARKERS_QOS)
        self._markers_key: str | None = None      # what the last published markers showed
        self._markers_lock = threading.Lock()
        group = ReentrantCallbackGroup()
        handlers = {"move_to": self._move_to, "grasp": self._grasp, "place": self._place,
                    "handover": self._handover, "receive": self._receive,
                    "run_skill": self._run_skill}
        skills = [_Skill(skill.name, skill.action, handlers[skill.name]) for skill in SKILLS]
        self._servers = [self._serve(skill, group) for skill in skills]
        self._reset_srv = self.create_service(Trigger, config.services.reset, self._on_reset,
                                              callback_group=group)
        rate = config.scene_rate_hz
        self._scene_timer = (
            self.create_timer(1.0 / rate, self._periodic_scene) if rate > 0 else None
        )
        self.publish_state()
        self.get_logger().info(
            f"household_sim ready: world {self.world.name}, {len(self.world.objects)} "
            f"objects, time_scale {self.world.time_scale:g}"
        )

    # ------------------------------------------------------------------ setup
    def _load_world(self, world: str, time_scale: float, failures_json: str) -> HouseholdWorld:
        """The world file, with failures_json merged into its 'failures' (ValueError if invalid)."""
        loaded = load_household_world(world, time_scale=time_scale, progress=self._on_progress)
        if not failures_json.strip():
            return loaded
        try:
            extra = json.loads(failures_json)
        except json.JSONDecodeError as exc:
            raise ValueError(f"failures_json is not valid JSON: {exc}") from None
        if not isinstance(extra, dict) or not all(isinstance(v, dict) for v in extra.values()):
            raise ValueError(
                "failures_json must be a JSON object {skill: {object_or_target: count}}"
            )
        config = dict(loaded.config)
        failures = dict(config.get("failures") or {})
        for skill, plan in extra.items():
            failures[skill] = {**(failures.get(skill) or {}), **plan}
        config["failures"] = failures
        return HouseholdWorld.from_dict(config, time_scale=time_scale, progress=self._on_progress,
                                        source=loaded.source)

    def _serve(self, skill: _Skill, group: ReentrantCallbackGroup) -> ActionServer:
        return ActionServer(self, skill.action, getattr(self.config.actions, skill.name),
                            execute_callback=partial(self._execute, skill),
                            goal_callback=lambda _goal: GoalResponse.ACCEPT,
                            handle_accepted_callback=self._on_accepted,
                            cancel_callback=self._on_cancel, callback_group=group,
                            result_timeout=max(1, round(self.config.result_timeout_s)))

    # ------------------------------------------------------------------ goal plumbing (all skills)
    def _on_accepted(self, goal_handle: ServerGoalHandle) -> None:
        with self._goal_lock:
            self._goals[bytes(goal_handle.goal_id.uuid)] = False
        goal_handle.execute()

    def _on_cancel(self, goal_handle: ServerGoalHandle) -> CancelResponse:
        """Accept every cancel: a running skill is interrupted, a waiting goal never starts."""
        with self._turn:
            key = bytes(goal_handle.goal_id.uuid)
            if key in self._goals:
                self._goals[key] = True
            if self._active is not None and self._active == goal_handle:
                self.world.interrupt()
            self._turn.notify_all()
        return CancelResponse.ACCEPT

    def _take_turn(
        self, goal_handle: ServerGoalHandle | None = None, skill: _Skill | None = None
    ) -> bool:
        """Wait until no skill (or reset) runs, then mark this one running. False, without waiting
        further, if the goal is canceled meanwhile or the node stops."""
        key = bytes(goal_handle.goal_id.uuid) if goal_handle is not None else None
        with self._turn:
            while self._busy and not self._goals.get(key, False) and not self._stopping:
                self._turn.wait()
            if self._goals.get(key, False) or self._stopping:
                return False
            self._busy = True
            self._active, self._active_skill, self._progress = goal_handle, skill, 0.0
            return True

    def _end_turn(self) -> None:
        with self._turn:
            self._busy = False
            self._active = self._active_skill = None
            self.world.clear_interrupt()   # from a cancel that came after the skill had ended
            self._turn.notify_all()

    def _execute(self, skill: _Skill, goal_handle: ServerGoalHandle) -> Any:
        """Run one goal of any skill: feedback, the world call, cancel, the result."""
        result = skill.action.Result()
        status, message, progress = FAILURE, CANCELED, 0.0      # if it never starts
        if not goal_handle.is_cancel_requested and self._take_turn(goal_handle, skill):
            try:
                self._feedback(skill, goal_handle, 0.0, "start")
                status, message = self._call(skill, goal_handle.request, result)
                progress = 1.0 if status == SUCCESS else self._progress
                self.publish_scene()
                self.publish_state()
            finally:
                self._end_turn()
        with self._turn:
            cancel = self._goals.pop(bytes(goal_handle.goal_id.uuid), False)
            self._turn.notify_all()
        result.status, result.message = status, message
        self._feedback(
            skill,
            goal_handle,
            progress,
            "done" if status == SUCCESS else "canceled" if message == CANCELED else "failed",
        )
        self._finish(goal_handle, status, canceled=(cancel or goal_handle.is_cancel_requested)
                     and message == CANCELED)
        return result

    def _call(self, skill: _Skill, goal: Any, result: Any) -> tuple[str, str]:
        """The world call of a skill -> (status, message); never raises."""
        try:
            status = skill.run(goal, result)
        except GoalError as exc:
            return FAILURE, str(exc)
        except Exception as exc:  # noqa: BLE001 - a bad goal must not take the server down
            self.get_logger().error(f"{skill.name} failed with {type(exc).__name__}: {exc}")
            return FAILURE, f"{type(exc).__name__}: {exc}"
        if status == SUCCESS:
            return status, ""
        log = self.world.log
        return FAILURE, (log[-1].reason if log else "") or f"{skill.name} failed"

    def _finish(self, goal_handle: ServerGoalHandle, status: str, canceled: bool) -> None:
        """Set the goal's terminal state: CANCELED needs the CANCELING state, which rclpy sets
        only after the cancel callback has returned - wait for it briefly."""
        if canceled:
            deadline = time.monotonic() + 1.0
            while not goal_handle.is_cancel_requested and time.monotonic() < deadline:
                time.sleep(0.001)
            if goal_handle.is_cancel_requested:
                goal_handle.canceled()
                return
        if status == SUCCESS:
            goal_handle.succeed()
        else:
            goal_handle.abort()

    def _feedback(
        self, skill: _Skill, goal_handle: ServerGoalHandle, progress: float, stage: str
    ) -> None:
        feedback = skill.action.Feedback()
        feedback.progress = float(progress)
        if skill.action is MoveTo:
            pose = self.world.base_pose.copy()
            target = msg_to_base_pose(goal_handle.request.target)
            feedback.current_pose = self._pose_msg(pose)
            feedback.distance_remaining = float(np.hypot(*(target[:2] - pose[:2])))
        elif skill.action is RunSkill:
            feedback.message = stage
        else:
            feedback.stage = stage
        goal_handle.publish_feedback(feedback)

    def _on_progress(self, fraction: float) -> None:
        """The world's progress callback (moves): feedback for the running goal."""
        with self._goal_lock:
            goal_handle, skill = self._active, self._active_skill
            self._progress = fraction
        if goal_handle is not None and skill is not None:
            self._feedback(skill, goal_handle, fraction, "moving")
        self.publish_markers()

    def close(self) -> None:
        """Called by run_node while the executor still spins: end the goals, then give rclpy
        a moment to send their results."""
        if self.stop():
            time.sleep(RESULT_GRACE)

    def stop(self, timeout: float = 2.0) -> bool:
        """Before shutting down: interrupt the running skill, start no more, and wait (at most
        ``timeout`` s) until all goals have ended. Keep the executor spinning meanwhile, so that
        their results go out. True if there were goals."""
        with self._turn:
            self._stopping = True
            self.world.interrupt()
            self._turn.notify_all()
            had_goals = bool(self._goals)
            deadline = time.monotonic() + timeout
            while self._goals and deadline > time.monotonic():
                self._turn.wait(deadline - time.monotonic())
            return had_goals

    # ------------------------------------------------------------------ the skills
    def _pose_msg(self, pose3: Any):
        msg = base_pose_to_msg(pose3, self.frame_id)
        msg.header.stamp = self.get_clock().now().to_msg()
        return msg

    def _free_hand(self) -> str:
        hands = self.world.hands
        return next((h for h in ("right", "left") if hands[h] is None), "right")

    def _move_to(self, goal: MoveTo.Goal, result: MoveTo.Result) -> str:
        status = self.world.move_to(msg_to_base_pose(goal.target), goal.speed_factor)
        result.final_pose = self._pose_msg(self.world.base_pose)
        return status

    def _grasp(self, goal: Grasp.Goal, result: Grasp.Result) -> str:
        hand = goal.hand or self._free_hand()
        status = self.world.grasp(goal.object_name, hand)
        result.hand = hand if status == SUCCESS else ""
        return status

    def _place(self, goal: Place.Goal, result: Place.Result) -> str:
        return self.world.place(goal.object_name, goal.destination)

    def _handover(self, goal: Handover.Goal, result: Handover.Result) -> str:
        return self.world.handover(goal.object_name)

    def _receive(self, goal: Receive.Goal, result: Receive.Result) -> str:
        return self.world.receive(goal.object_name, goal.hand or self._free_hand())

    def _run_skill(self, goal: RunSkill.Goal, result: RunSkill.Result) -> str:
        try:
            arguments = json.loads(goal.arguments_json) if goal.arguments_json.strip() else {}
        except json.JSONDecodeError as exc:
            raise GoalError(f"arguments_json is not valid JSON: {exc}") from None
        if not isinstance(arguments, dict):
            raise GoalError("arguments_json must be a JSON object")
        return self.world.run_skill(goal.name, arguments)

    # ------------------------------------------------------------------ perception, reset
    def _periodic_scene(self) -> None:
        """The timer's scene, skipped while a skill runs: the scene published when the skill
        ends (before its result) is then the first one stamped after the goal was sent, which
        is what a client waits for to see the skill's effect (see ros/robot/humanoid.py)."""
        if not self._busy:
            self.publish_scene()

    def publish_scene(self) -> None:
        stamp = self.get_clock().now().to_msg()
        self._scene_pub.publish(
            scene_to_msg(self.world.scene(), stamp=stamp, frame_id=self.frame_id)
        )

    def publish_markers(self) -> None:
        """The world as RViz markers, if it changed since the last ones."""
        with self._markers_lock:
            scene, snapshot = self.world.scene(), self.world.snapshot()
            key = json.dumps([snapshot["base_pose"], snapshot["objects"]], default=str)
            if key == self._markers_key:
                return
            self._markers_key = key
            self._markers_pub.publish(household_markers(
                scene, self.world.named_locations(), furniture=self.world.furniture,
                robot_pose=self.world.base_pose, hands=self.world.hands,
                human_xy=self.world.human_xy, frame_id=self.frame_id,
                stamp=self.get_clock().now().to_msg()))

    def world_state(self) -> dict[str, Any]:
        """``world.snapshot()`` plus ``'last_skill'``: the last skill log entry or None."""
        log = self.world.log
        return {**self.world.snapshot(), "last_skill": log[-1].to_dict() if log else None}

    def publish_state(self) -> None:
        self._state_pub.publish(String(data=json.dumps(self.world_state(), default=str)))
        self.publish_markers()

    def _on_reset(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        if not self._take_turn():
            response.success, response.message = False, "shutting down"
            return response
        try:
            self.world.reset()
            self.publish_scene()
            self.publish_state()
        finally:
            self._end_turn()
        response.success, response.message = True, f"world {self.world.name} reset"
        return response


def main(args: list[str] | None = None) -> int:
    """Run the household simulator until Ctrl-C / SIGTERM (:func:`..node_main.run_node`: the
    running skill is interrupted and its goal ends before ROS shuts down); exit code 2 for a
    bad world or parameter."""
    return run_node(HouseholdSimNode, "household_sim", args, threads=EXECUTOR_THREADS)


if __name__ == "__main__":
    sys.exit(main())

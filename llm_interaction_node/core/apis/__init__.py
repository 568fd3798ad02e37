"""Robot APIs the LLM calls. Each talks to a small robot protocol, never to sims or ROS."""
from .humanoid import HumanoidApi, HumanoidRobot, SceneObject
from .tabletop import TabletopApi, TabletopRobot

__all__ = ["HumanoidApi", "HumanoidRobot", "SceneObject", "TabletopApi", "TabletopRobot"]

"""Robot APIs the LLM calls. Each talks to a small robot protocol, never to sims or ROS.

:mod:`.registry` is how an API is shown to the LLM and bound into the console: plain typed
functions marked with ``@comment`` (the LLM-facing comment), ``@query`` (only looks) and
``@moves`` (the function that moves an object), listed from their live signatures
(:class:`~.registry.ApiRegistry`); the console and the sandbox bind an API through it.
"""
from .humanoid import HumanoidApi, HumanoidRobot, SceneObject
from .tabletop import TabletopApi, TabletopRobot

__all__ = ["HumanoidApi", "HumanoidRobot", "SceneObject", "TabletopApi", "TabletopRobot"]

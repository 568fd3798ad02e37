"""llm_interaction_node: teach a robot by talking to it.

Layers (see docs/architecture.md): ``core`` (no ROS), ``sims`` (in-process worlds),
``ros`` (the rclpy node, later), ``bench`` (measurements).
"""
__version__ = "0.1.0"

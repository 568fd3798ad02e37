"""The ROS 2 layer: nodes, skill action clients, scene and speech topics.

Everything here imports rclpy; nothing in ``core`` or ``sims`` imports this package.
"""

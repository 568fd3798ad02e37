"""The launch files' one body: ``launch/<graph>.launch.py`` = ``generate(<graph>)``.

The nodes, their params files, the parameters the launch arguments set and the variables
they add to a node's environment all come from :func:`.graph.launch_plan`, the description
``llm-interaction run`` starts too, so the two cannot drift apart. ``launch`` and
``launch_ros`` are imported when a launch file runs (a ROS install), not with this package.
"""
from __future__ import annotations

import os

from .graph import launch_arguments, launch_plan

PACKAGE = "llm_interaction_node"


def generate(graph: str):
    """The ``LaunchDescription`` of ``graph``: every launch argument declared (default '':
    not given, the params files decide), the nodes chosen when the arguments are known."""
    from launch.actions import DeclareLaunchArgument, OpaqueFunction

    from launch import LaunchDescription

    arguments = launch_arguments(graph)
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value="", description=text)
         for name, text in arguments.items()]
        + [OpaqueFunction(function=lambda context: nodes(graph, arguments, context))])


def nodes(graph: str, arguments, context) -> list:
    """The ``launch_ros`` Nodes for the launch arguments' values in ``context``."""
    from ament_index_python.packages import get_package_share_directory
    from launch.substitutions import LaunchConfiguration
    from launch_ros.actions import Node

    config = os.path.join(get_package_share_directory(PACKAGE), "config")
    values = {name: LaunchConfiguration(name).perform(context) for name in arguments}
    return [Node(package=PACKAGE, executable=planned.spec.executable, name=planned.spec.name,
                 parameters=[os.path.join(config, f) for f in planned.spec.params_files]
                 + [planned.parameters],
                 additional_env=planned.env, output="screen")
            for planned in launch_plan(graph, values)]

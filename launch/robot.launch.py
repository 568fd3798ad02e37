"""A real robot: interaction_node only; the robot serves the skills, the scene and speech.

    ros2 launch llm_interaction_node robot.launch.py llm_base_url:=http://gpu-box:8000/v1 \
        llm_model:=qwen2.5-7b-instruct

The same graph as `llm-interaction run --graph robot` (ROBOT_GRAPH in
llm_interaction_node/ros/graph.py); record:=DIR starts the recorder first (RECORDER,
`--record DIR`); speech:=true adds the microphone and asr nodes
(SPEECH_NODES, `--speech`). Parameters come from config/interaction_node.yaml, then
config/robot.yaml (the robot's action servers and topics: edit it for your robot); a launch
argument that is not given (empty) leaves the params files' value alone.
"""
import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def config(name):
    return os.path.join(get_package_share_directory('llm_interaction_node'), 'config', name)


def given(context, arguments):
    """{parameter: value} for the launch arguments that are set.

    arguments: {parameter: launch argument}; an empty argument keeps the params file's value.
    """
    values = {param: LaunchConfiguration(arg).perform(context) for param, arg in arguments.items()}
    return {param: value for param, value in values.items() if value}


def speech_nodes(context):
    """speech:=true: a microphone and the speech recogniser (speech in)."""
    if LaunchConfiguration('speech').perform(context).strip().lower() not in ('true', '1', 'yes'):
        return []
    return [
        Node(package='llm_interaction_node', executable='microphone', name='microphone',
             parameters=[config('microphone.yaml')], output='screen'),
        Node(package='llm_interaction_node', executable='asr', name='asr',
             parameters=[config('asr.yaml')], output='screen'),
    ]


def recorder_nodes(context):
    """record:=DIR: the recorder first (config/recorder.yaml), writing a rosbag2 into DIR."""
    path = LaunchConfiguration('record').perform(context).strip()
    if not path:
        return []
    return [Node(package='llm_interaction_node', executable='recorder', name='recorder',
                 parameters=[config('recorder.yaml'), {'path': os.path.abspath(os.path.expanduser(path))}],
                 output='screen')]


def nodes(context):
    return recorder_nodes(context) + [
        Node(package='llm_interaction_node', executable='interaction_node',
             name='interaction_node',
             parameters=[config('interaction_node.yaml'), config('robot.yaml'),
                         given(context, {'llm.base_url': 'llm_base_url',
                                         'llm.model': 'llm_model'})],
             output='screen'),
    ] + speech_nodes(context)


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument('llm_base_url', default_value='',
                              description='OpenAI-compatible endpoint, e.g. '
                              'http://localhost:8000/v1 (default: interaction_node.yaml)'),
        DeclareLaunchArgument('llm_model', default_value='',
                              description='LLM model name (default: interaction_node.yaml)'),
        DeclareLaunchArgument('speech', default_value='',
                              description='true: also start the microphone and the speech '
                              'recogniser (asr) for talking by voice (default: off)'),
        DeclareLaunchArgument('record', default_value='',
                              description='a new directory: record the graph\'s topics into a '
                              'rosbag2 (MCAP) there, as `llm-interaction run --record DIR` '
                              '(default: no recording)'),
        OpaqueFunction(function=nodes),
    ])

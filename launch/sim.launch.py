"""The simulated household: household_sim + interaction_node + tts.

    ros2 launch llm_interaction_node sim.launch.py world:=ladder_and_shelf \
        llm_base_url:=http://localhost:11434/v1 llm_model:=qwen2.5:7b
    ros2 run llm_interaction_node speech_console --transcript     # in a second terminal
    ros2 launch llm_interaction_node sim.launch.py speech:=true   # talk by voice (mic + asr)

The same graph as `llm-interaction run --graph sim` (SIM_GRAPH in
llm_interaction_node/ros/graph.py); record:=DIR starts the recorder first (RECORDER,
`--record DIR`); speech:=true adds the microphone and asr nodes
(SPEECH_NODES, `--speech`). Parameters come from config/<node>.yaml; a launch
argument that is not given (empty) leaves the params file's value alone.
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
        Node(package='llm_interaction_node', executable='household_sim', name='household_sim',
             parameters=[config('household_sim.yaml'), given(context, {'world': 'world'})],
             output='screen'),
        Node(package='llm_interaction_node', executable='interaction_node',
             name='interaction_node',
             parameters=[config('interaction_node.yaml'),
                         given(context, {'knowledge': 'world',
                                         'llm.base_url': 'llm_base_url',
                                         'llm.model': 'llm_model'})],
             output='screen'),
        Node(package='llm_interaction_node', executable='tts', name='tts',
             parameters=[config('tts.yaml')], output='screen'),
    ] + speech_nodes(context)


def generate_launch_description():
    return LaunchDescription([
        DeclareLaunchArgument('world', default_value='',
                              description='household scenario: a name in config/worlds or a '
                              'YAML path; the simulated world and the interaction node\'s '
                              'static knowledge (default: the params files\')'),
        DeclareLaunchArgument('llm_base_url', default_value='',
                              description='OpenAI-compatible endpoint, e.g. '
                              'http://localhost:11434/v1 (default: interaction_node.yaml)'),
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

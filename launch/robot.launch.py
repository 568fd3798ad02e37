"""A real robot: interaction_node only; the robot serves the skills, the scene and speech.

    ros2 launch llm_interaction_node robot.launch.py llm_base_url:=http://gpu-box:8000/v1 \
        llm_model:=qwen2.5-7b-instruct

The graph `llm-interaction run --graph robot` starts, from its one description
(ROBOT_GRAPH and launch_plan in llm_interaction_node/ros/graph.py): the launch arguments are
the run options (llm_base_url, llm_model, memory_path, memory_host, memory_port, robot_id,
api_preset; speech:=true = --speech, record:=DIR = --record DIR) and, like them, beat the
params files and the LLM_INTERACTION_* environment variables. Parameters come from
config/interaction_node.yaml, then config/robot.yaml (the robot's action servers and topics:
edit it for your robot).
"""
from llm_interaction_node.ros.launch_description import generate


def generate_launch_description():
    return generate('robot')

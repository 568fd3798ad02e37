"""The simulated household: household_sim + interaction_node + tts.

    ros2 launch llm_interaction_node sim.launch.py world:=ladder_and_shelf \
        llm_base_url:=http://localhost:11434/v1 llm_model:=qwen2.5:7b
    ros2 run llm_interaction_node speech_console --transcript     # in a second terminal
    ros2 launch llm_interaction_node sim.launch.py speech:=true   # talk by voice (mic + asr)

The graph `llm-interaction run --graph sim` starts, from its one description
(SIM_GRAPH and launch_plan in llm_interaction_node/ros/graph.py): the launch arguments are
the run options (world, llm_base_url, llm_model, memory_path, memory_host, memory_port, robot_id,
api_preset; speech:=true = --speech,
record:=DIR = --record DIR) and, like them, beat the params files (config/<node>.yaml) and
the LLM_INTERACTION_* environment variables. An argument not given (empty) leaves the params
files' value alone. `ros2 launch llm_interaction_node sim.launch.py --show-args` lists them.
"""
from llm_interaction_node.ros.launch_description import generate


def generate_launch_description():
    return generate('sim')

"""The interaction node's parameters: declared up front, with defaults and descriptions.

The dotted names mirror ``config/agent.yaml`` (``llm.*``, ``agent.*``, ``memory.*``,
``learning.*``) so the same settings reach the core whether they come from the agent file
(terminal chat) or from a ROS params file (``config/interaction_node.yaml``). ROS
parameters cannot be null: an empty string means "not set".
"""
from __future__ import annotations

from typing import Any

from rcl_interfaces.msg import ParameterDescriptor

from . import names

# name -> (default, description)
PARAMETERS: dict[str, tuple[Any, str]] = {
    "api": ("humanoid", "API set the LLM sees (the ROS robot implements 'humanoid')"),
    "knowledge": ("drinks_and_cup", "static scene knowledge: a world name from config/worlds "
                  "or a YAML path (named locations, furniture, object classes)"),
    # the LLM (environment variables LLM_INTERACTION_* override these, see config/agent.yaml)
    "llm.base_url": ("", "OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 ('' = none)"),
    "llm.model": ("gpt-4o-mini", "model name at the endpoint"),
    "llm.mode": ("chat", "'chat' (chat models) or 'completion' (raw console continuation)"),
    "llm.temperature": (0.0, "sampling temperature"),
    "llm.max_tokens": (512, "completion token limit per call"),
    "llm.timeout_s": (60.0, "HTTP timeout per LLM call"),
    "llm.max_retries": (2, "retries of failed LLM calls (the openai client's)"),
    # the interaction loop
    "agent.max_statements_per_turn": (15, "statement cap per user turn"),
    "agent.loop_repeats": (3, "the same statement this often in a row is a loop"),
    "agent.statement_timeout_s": (10.0, "generated code's own time per statement (skills excluded)"),
    "agent.empty_temperature_step": (0.3, "temperature raise when the LLM returns nothing"),
    # the example memory
    "memory.enabled": (True, "false: fixed examples from config/transcripts, no learning"),
    "memory.path": ("~/.local/share/llm_interaction_node/memory", "embedded ChromaDB directory"),
    "memory.host": ("", "Chroma server host (`chroma run`) shared by robots; '' = embedded"),
    "memory.port": (8000, "Chroma server port"),
    "memory.k": (16, "examples retrieved into the prompt (most similar last)"),
    "memory.query_utterances": (3, "latest user utterances used as the retrieval query"),
    "memory.recency_decay": (0.6, "query weight of older utterances (0.6**i)"),
    "learning.mode": ("improve", "improve (L_improve) | raw (store as is) | off"),
    "learning.retrieval": (True, "false: every example in memory goes into the prompt"),
    "learning.store_episodes": (False, "store successful episodes (HELPER / Dynamic CaP)"),
    # the robot
    "robot.min_speed_factor": (0.1, "lowest speed_factor move_to accepts"),
    "robot.max_speed_factor": (2.0, "highest speed_factor move_to accepts"),
    "timeouts.server_wait_s": (5.0, "wait for a skill's action server before failing the call"),
    "timeouts.accept_s": (5.0, "wait for a goal to be accepted"),
    "timeouts.move_to_s": (120.0, "result timeout of move_to (the goal is canceled after it)"),
    "timeouts.grasp_s": (60.0, "result timeout of grasp"),
    "timeouts.place_s": (60.0, "result timeout of place"),
    "timeouts.handover_s": (60.0, "result timeout of handover"),
    "timeouts.receive_s": (60.0, "result timeout of receive"),
    "timeouts.run_skill_s": (180.0, "result timeout of generic skills (bring_ladder, ...)"),
    "timeouts.scene_refresh_s": (1.0, "after a skill, wait this long for a scene at least as new"),
    "timeouts.first_scene_s": (10.0, "at start, wait this long for perception before serving"),
    # speech input hygiene
    "asr.max_chars": (2000, "longer utterances are cut (with a note) before they reach the LLM"),
}
for _skill, _name in names.SKILL_ACTIONS.items():
    PARAMETERS[f"actions.{_skill}"] = (_name, f"action server of the {_skill} skill")
for _key, _name, _what in (
        ("topics.scene", names.SCENE, "perceived scene (Scene)"),
        ("topics.asr_text", names.ASR_TEXT, "recognised user speech (std_msgs/String)"),
        ("topics.tts_text", names.TTS_TEXT, "text for the robot to say (std_msgs/String)"),
        ("topics.transcript", names.TRANSCRIPT, "live console transcript (ConsoleEntry)"),
        ("topics.state", names.STATE, "idle | busy | learning (std_msgs/String, latched)"),
        ("topics.stop", names.STOP, "stop the running skill and generation (std_msgs/Empty)"),
        ("services.stop", names.STOP, "stop, as a std_srvs/Trigger service"),
        ("services.reset", names.RESET, "forget the current interaction (std_srvs/Trigger)"),
        ("services.learn", names.LEARN, "learn from the current interaction (Learn)"),
        ("services.memory", names.MEMORY, "inspect / edit the example memory (ManageMemory)")):
    PARAMETERS[_key] = (_name, _what)


def declare(node) -> dict[str, Any]:
    """Declare every parameter on ``node``; return name -> value."""
    for name, (default, description) in PARAMETERS.items():
        node.declare_parameter(name, default, ParameterDescriptor(description=description))
    return {name: node.get_parameter(name).value for name in PARAMETERS}


def section(values: dict[str, Any], prefix: str) -> dict[str, Any]:
    """``section(values, 'llm')`` -> {'base_url': ..., 'model': ...}; '' becomes None."""
    out = {}
    for name, value in values.items():
        if name.startswith(prefix + "."):
            out[name[len(prefix) + 1:]] = None if value == "" else value
    return out


def agent_settings_dict(values: dict[str, Any]) -> dict[str, Any]:
    """The parameters as the ``config/agent.yaml`` structure AgentSettings reads."""
    memory = section(values, "memory")
    memory.pop("enabled", None)
    return {"llm": section(values, "llm"), "agent": section(values, "agent"),
            "memory": memory, "learning": section(values, "learning")}

"""The ROS-free core: console session, sandbox, API registry, prompts, LLM clients, agent."""

"""The ROS 2 nodes: one module per process (``python -m llm_interaction_node.ros.nodes.X``,
console script ``X``), each with its ``main()``."""

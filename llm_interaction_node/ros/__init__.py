"""The ROS 2 layer: the nodes and the pieces they use.

* ``nodes/``: one module per process (as in ros2/demos), named as its executable;
* ``robot/``: the robot as the interaction node sees it (skill action clients, skill events,
  the scene memory, ``RosHumanoidRobot``);
* ``speech/``: audio messages and WAV files, the utterance segmenter, the Whisper recogniser;
* here: what every node shares: interface ``names``, message ``conversions``, RViz
  ``markers``, the rosbag2 ``bag`` writer/reader, ``node_main`` (the one start-up path),
  ``node_parameters`` (parameters from typed sections), ``interaction_parameters``, and the
  process ``graph`` that ``llm-interaction run`` and the launch files start
  (``launch_description``).

``graph`` and ``launch_description`` do not import rclpy (``run --help`` and ``ros2 launch``
stay light); nothing in ``core`` or ``sims`` imports this package.
"""

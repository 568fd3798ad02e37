"""The robot as the interaction node sees it over ROS: skill action clients, their events,
the scene memory fed by perception, and the ``HumanoidRobot`` built from them."""

"""Programs that use the robot from outside, as other ROS nodes would (issue 61): the behaviour
tree of :mod:`.instruct_tree` over the Instruct action's Python client."""

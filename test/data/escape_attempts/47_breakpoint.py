# breakpoint() would open pdb on the robot's terminal
breakpoint()
escaped = True

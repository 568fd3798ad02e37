# input() would block on the robot's stdin
escaped = input('password? ')

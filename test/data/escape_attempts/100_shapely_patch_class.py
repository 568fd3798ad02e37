# patch a shapely class (shared by every console of the process) for later tasks
Point.contains = print
escaped = Point.contains

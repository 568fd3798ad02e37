# object.__subclasses__() from the object builtin, the shortest route to every class
escaped = object.__subclasses__()

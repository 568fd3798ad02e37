# type.__subclasses__ via the type builtin
escaped = type.__subclasses__(type)

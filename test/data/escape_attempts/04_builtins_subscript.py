# read the real builtins through the __builtins__ name
escaped = __builtins__['open']

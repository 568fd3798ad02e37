# a lambda default argument captures __builtins__
f = lambda b=__builtins__: b
escaped = f()

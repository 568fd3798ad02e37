# globals() to reach the module namespace and its builtins
escaped = globals()['__builtins__']

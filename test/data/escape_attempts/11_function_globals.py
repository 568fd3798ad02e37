# a user function's __globals__ leads to the namespace and builtins
def f():
    pass
escaped = f.__globals__['__builtins__']

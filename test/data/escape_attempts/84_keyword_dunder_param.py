# a parameter named like a dunder to shadow a hidden name
def f(__builtins__=None):
    return __builtins__
escaped = f()

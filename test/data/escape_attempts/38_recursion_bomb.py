# unbounded recursion
def f():
    return f()
escaped = f()

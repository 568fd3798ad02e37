# recursion through a C builtin (map) to dig into the C stack
def f(x):
    return list(map(f, [x]))
escaped = f(1)

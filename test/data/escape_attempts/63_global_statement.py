# rebind a builtin for everyone with `global`
def f():
    global print
    print = None
f()
escaped = True

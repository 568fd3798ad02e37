# the code object of a function (co_code, func_code)
def f():
    pass
escaped = f.__code__.co_code

# a generator whose finally loops forever when it is closed later
def g():
    try:
        yield 1
    finally:
        while True:
            pass
it = g()
next(it)
escaped = True

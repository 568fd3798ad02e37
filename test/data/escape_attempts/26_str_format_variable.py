# the format string hides in a variable, so the AST cannot see it
fmt = '{0.__globals__}'
def f():
    pass
escaped = fmt.format(f)

# compile + eval to build code at run time
code = compile("__import__('os')", "<x>", "eval")
escaped = eval(code)

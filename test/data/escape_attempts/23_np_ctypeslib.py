# np.ctypeslib leads to ctypes and raw memory
escaped = np.ctypeslib.ctypes.pythonapi

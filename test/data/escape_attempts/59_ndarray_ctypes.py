# ndarray.ctypes gives raw pointers
escaped = np.zeros(1).ctypes.data

# pickle bytes through ndarray.dumps
escaped = np.zeros(1, dtype=object).dumps()

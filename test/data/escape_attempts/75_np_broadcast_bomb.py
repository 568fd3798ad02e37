# an outer product by broadcasting
a = np.arange(10**6)
escaped = a[:, None] * a

# an 8 TB numpy array
escaped = np.ones((10**6, 10**6))

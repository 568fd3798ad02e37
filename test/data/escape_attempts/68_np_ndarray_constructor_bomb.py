# allocate through the ndarray constructor instead of np.empty
escaped = np.ndarray((10**6, 10**6))

# an 8 TB array from the legacy random API
escaped = np.random.rand(10**6, 10**6)

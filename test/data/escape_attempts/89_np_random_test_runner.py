# np.random.test runs pytest, which imports and executes files
np.random.test()
escaped = True

# a tiled array far over the limit
escaped = np.tile(np.ones(10**4), 10**4)

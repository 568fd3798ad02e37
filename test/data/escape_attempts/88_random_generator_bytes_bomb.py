# 10 GB of random bytes from a Generator
escaped = np.random.default_rng(0).bytes(10**10)

# a numpy random generator exposes ctypes function pointers
escaped = np.random.default_rng().bit_generator.ctypes.state_address

# the private numpy core through the np.core alias
escaped = np.core.multiarray

# private linalg module through the public one
escaped = np.linalg.linalg.sys

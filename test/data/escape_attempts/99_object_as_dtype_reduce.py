# an object array's pickling hook (__reduce_ex__) to reach a reconstructor function
escaped = np.array([1], dtype=object).__reduce_ex__(2)

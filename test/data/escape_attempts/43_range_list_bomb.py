# materialise a trillion-element range
escaped = list(range(10**12))

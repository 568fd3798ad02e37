# an 80 GB list by repetition
escaped = [0] * 10**10

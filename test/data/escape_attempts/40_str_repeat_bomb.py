# a 10 GB string by repetition
escaped = 'x' * 10**10

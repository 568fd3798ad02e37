# a 10 GB string by padding
escaped = 'x'.ljust(10**10)

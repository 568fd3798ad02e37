# a huge integer by shifting
escaped = 1 << 10**10

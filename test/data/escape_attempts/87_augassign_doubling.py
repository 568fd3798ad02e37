# in-place doubling with +=
x = [0] * 10**6
for _ in range(40):
    x += x
escaped = len(x)

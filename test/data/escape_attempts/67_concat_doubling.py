# double a list until memory runs out
x = [0] * 10**6
for _ in range(40):
    x = x + x
escaped = len(x)

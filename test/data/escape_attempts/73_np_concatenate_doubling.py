# double a numpy array until memory runs out
x = np.ones(10**6)
for _ in range(40):
    x = np.concatenate([x, x])
escaped = x.size

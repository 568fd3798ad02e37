# print(file=...) to write through another object
print('x', file=np)
escaped = True

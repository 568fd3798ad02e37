# build a class with type(name, bases, dict) to get __del__ hooks
X = type('X', (), {'__del__': lambda self: None})
escaped = X()

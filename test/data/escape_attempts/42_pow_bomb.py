# an integer with ten billion bits
escaped = 2 ** 10 ** 10

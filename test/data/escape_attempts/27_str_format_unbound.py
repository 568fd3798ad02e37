# unbound str.format called through the str class
escaped = str.format('{0.__class__.__mro__}', 1)

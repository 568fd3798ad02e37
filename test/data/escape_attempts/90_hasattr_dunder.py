# hasattr probing with a dunder name
escaped = hasattr(print, '__globals__')

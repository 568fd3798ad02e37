# a 10 GB string from the format() builtin
escaped = format(1, '>10000000000')

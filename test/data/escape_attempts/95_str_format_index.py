# index access in a format field
escaped = '{0[0]}'.format(['a'])

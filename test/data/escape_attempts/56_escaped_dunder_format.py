# dunder spelled with a \x escape inside a format field
escaped = '{0.\x5f_class__}'.format(1)

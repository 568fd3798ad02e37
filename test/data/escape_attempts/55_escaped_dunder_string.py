# dunder spelled with a \x escape, handed to getattr
escaped = getattr(1, '\x5f_class__')

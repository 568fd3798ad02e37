# int.mro() reaches object and its subclasses
escaped = int.mro()[-1]

# replace __builtins__ to change what names resolve to
__builtins__ = {'open': 1}
escaped = True

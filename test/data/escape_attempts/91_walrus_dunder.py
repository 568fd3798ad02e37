# a walrus binding a dunder name
(__builtins__ := {})
escaped = True

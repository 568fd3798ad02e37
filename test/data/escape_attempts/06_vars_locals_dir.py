# vars(), locals() and dir() to enumerate hidden names
names = dir()
escaped = vars()['__builtins__'] or locals()

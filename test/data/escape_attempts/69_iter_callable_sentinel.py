# iter(callable, sentinel) is an endless C loop the timeout cannot stop
escaped = list(iter(int, 1))

# sys.modules through the globals of the print function
escaped = print.__globals__['sys'].modules

# reach shapely's module globals (and its imports) through a function of the namespace
escaped = rotate.__globals__['shapely']

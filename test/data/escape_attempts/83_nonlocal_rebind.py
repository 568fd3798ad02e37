# nonlocal to rebind a closure cell
def outer():
    x = 1
    def inner():
        nonlocal x
        x = 2
    inner()
    return x
escaped = outer()

# a decorator that is really eval, applied to a function
@eval
def payload():
    pass
escaped = payload

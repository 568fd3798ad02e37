# a metaclass whose __call__ would run at instance creation
class Meta(type):
    def __call__(cls):
        return 1
class X(metaclass=Meta):
    pass
escaped = X()

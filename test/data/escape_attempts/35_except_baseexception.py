# swallow the timeout with except BaseException
while True:
    try:
        while True:
            pass
    except BaseException:
        pass

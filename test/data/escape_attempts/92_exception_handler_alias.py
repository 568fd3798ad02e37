# catch the timeout through a name that hides BaseException
Base = Exception.__base__
while True:
    try:
        while True:
            pass
    except Base:
        pass

# `continue` in finally discards the timeout exception
while True:
    try:
        while True:
            pass
    finally:
        continue

# endless loop that catches Exception and keeps going
while True:
    try:
        while True:
            pass
    except Exception:
        pass

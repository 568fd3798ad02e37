# return from finally inside a function swallows the timeout
def spin():
    try:
        while True:
            pass
    finally:
        return 1
while True:
    spin()

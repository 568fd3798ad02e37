# a class with __del__ that runs later, outside the watchdog
class A:
    def __del__(self):
        while True:
            pass
a = A()
escaped = True

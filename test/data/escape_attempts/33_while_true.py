# plain endless loop
while True:
    pass

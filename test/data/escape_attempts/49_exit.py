# exit() / SystemExit to stop the whole node
exit(0)
escaped = True

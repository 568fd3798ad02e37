# read /etc/passwd with open()
escaped = open('/etc/passwd').read()

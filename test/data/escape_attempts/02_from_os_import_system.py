# `from os import system` to run a shell command that drops a file
from os import system
system('touch ' + canary_dir + '/pwned')
escaped = True

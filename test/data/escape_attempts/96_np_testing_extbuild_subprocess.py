# np.testing.extbuild imports subprocess; use it to run a command
np.testing.extbuild.subprocess.run(['touch', canary_dir + '/pwned'])
escaped = True

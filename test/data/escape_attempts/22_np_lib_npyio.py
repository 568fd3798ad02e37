# reach file I/O through the np.lib.npyio submodule
np.lib.npyio.savetxt(canary_dir + '/t.txt', np.zeros(3))
escaped = True

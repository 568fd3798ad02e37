# np.savetxt to write and np.loadtxt to read text files
np.savetxt(canary_dir + '/t.txt', np.zeros(3))
escaped = np.loadtxt(canary_dir + '/t.txt')

# numpy file output with np.save
np.save(canary_dir + '/a.npy', np.zeros(3))
escaped = True

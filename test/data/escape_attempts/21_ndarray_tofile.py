# write a file through the ndarray.tofile method
np.arange(3).tofile(canary_dir + '/t.bin')
escaped = True

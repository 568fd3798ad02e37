# read raw bytes of a file with np.fromfile
escaped = np.fromfile('/etc/passwd', dtype=np.uint8)

# np.load with allow_pickle to unpickle arbitrary objects
escaped = np.load('/etc/passwd', allow_pickle=True)

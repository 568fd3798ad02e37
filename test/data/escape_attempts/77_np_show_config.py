# numpy's config printer / info writes to the real stdout
np.show_config()
escaped = True

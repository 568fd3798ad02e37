# sys.modules reached as an attribute of the numpy module
escaped = np.sys.modules['os']

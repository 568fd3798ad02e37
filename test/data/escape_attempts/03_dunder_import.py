# call __import__ directly to get the os module
escaped = __import__('os').getcwd()

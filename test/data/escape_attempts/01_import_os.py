# plain `import os` to list the file system
import os
escaped = os.listdir('/')

# help() starts an interactive pager
help(np)
escaped = True

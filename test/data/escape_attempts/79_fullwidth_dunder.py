# a fullwidth letter in a dunder name (Python folds it to __class__)
escaped = ().__ｃlass__

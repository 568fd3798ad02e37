# str.format field with attribute access walks to __class__
escaped = '{0.__class__.__base__}'.format(1)

# str.format_map walks attributes of mapping values
escaped = '{x.__class__}'.format_map({'x': 1})

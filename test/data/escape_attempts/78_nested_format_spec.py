# attribute walking hidden in a nested format spec
escaped = '{0:{1.__class__}}'.format(1, 2)

# segmentize() with a tiny segment length: a huge line from a short one
escaped = LineString([(0, 0), (1, 0)]).segmentize(1e-12)

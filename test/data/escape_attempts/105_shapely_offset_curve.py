# offset_curve() with a huge quad_segs, through a positional argument
escaped = LineString([(0, 0), (1, 0)]).offset_curve(0.1, 10**9)

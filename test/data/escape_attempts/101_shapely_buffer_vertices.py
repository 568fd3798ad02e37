# a tiny buffer() call that asks GEOS for billions of vertices (C code, no timeout)
escaped = Point(0, 0).buffer(1, quad_segs=10**9)

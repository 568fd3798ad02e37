# reach the real class behind the read-only stand-in, to patch it
escaped = Point._real

# a generator's gi_frame.f_globals / f_back to climb into the console's frames
g = (x for x in [1])
escaped = g.gi_frame.f_back.f_globals

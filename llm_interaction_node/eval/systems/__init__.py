"""The systems the benchmark compares: ours (+ ablations), CaP, Dynamic CaP, HELPER."""

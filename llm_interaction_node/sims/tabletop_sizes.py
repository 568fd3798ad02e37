"""The tabletop's block and bowl sizes, below the 2-D world and its end (world_end.py)."""

BLOCK_SIZE = 0.04          # m, cube edge
BOWL_RADIUS = 0.06         # m, "in the bowl" means horizontally closer than this

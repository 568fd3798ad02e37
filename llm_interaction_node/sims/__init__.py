"""In-process worlds the robot APIs run against (no ROS, no LLM).

* :class:`HouseholdWorld` - kinematic household for the humanoid API (world files in
  ``config/worlds/``, loaded with :func:`load_household_world`);
* :class:`TabletopWorld2D` - CaP-style tabletop with blocks and bowls, no physics.
"""
from .household import HouseholdWorld, SkillCall
from .tabletop2d import TabletopWorld2D
from .worlds import list_worlds, load_household_world, world_path

__all__ = ["HouseholdWorld", "SkillCall", "TabletopWorld2D", "list_worlds",
           "load_household_world", "world_path"]

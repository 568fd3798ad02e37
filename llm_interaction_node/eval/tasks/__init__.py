"""The CaP tabletop evaluation tasks: 14 instruction templates, one class each.

Protocol (``notes/protocol.md``, sections "CaP tabletop world" and "Evaluation protocol"):

* 8 *seen* templates (splits ``sa_si`` and ``ua_si``) and 6 *unseen* ones (split ``ua_ui``).
  ``sa_si`` samples the seen attributes, ``ua_si`` / ``ua_ui`` the unseen ones
  (:data:`SEEN_ATTRIBUTES`, :data:`UNSEEN_ATTRIBUTES`).
* A :class:`Task` is one filled instruction plus the object names of its scene: the named
  objects and random others, 1-4 blocks and 1-4 bowls as in the reference
  (``cap_simulation/setup.py``), at most :data:`MAX_OBJECTS` in all, and at least what the
  template needs to be solvable (:attr:`Template.min_blocks`); colours from the split's colour
  set. :func:`make_task` is deterministic in ``(template_id, split, seed)``.
* :func:`feasible_world` builds the world with ``factory(names, seed)`` (any
  :class:`~llm_interaction_node.core.apis.tabletop.TabletopRobot`; default the 2-D world).
  Where feasibility depends on the spawned positions (which block lies to the top of the bowl,
  which is the third from the left, room for "a lot to the right", a clear named place, ...)
  it tries world seeds ``task.seed * 1000 + k`` for ``k = 0, 1, ...`` (at most
  ``max_attempts``) until :func:`feasible` holds for the initial positions, and records the
  seed used in ``task.world_seed``.

Each template (a :class:`Template` subclass) holds everything about one instruction:
``sample`` (attributes), ``scene`` (object names), ``feasible``, ``check`` (success from object
positions, name -> xyz; blocks' centres, bowls' bases; CaP criteria; which block an nth /
direction / closest / farthest instruction meant is decided on the *initial* positions),
``program`` (a correct scripted program: only the tabletop API functions, plain Python and
``np``), ``text`` (the explicit solution in plain words, for the simulated user), ``meaning``
(what the instruction refers to in a scene, for "initial condition destroyed"), ``needed``
(the blocks it cannot be solved without) and ``mismatch`` (what a person sees is wrong, as
:class:`~.observe.Fact` records).

The modules: ``relations`` (spatial relations and margins), ``scenes`` (attribute sets, object
names), ``programs`` (program text pieces), ``mistakes`` (the default wrong program),
``mismatch`` (shared diagnosis), ``base`` (:class:`Template`, :class:`Task`, :data:`TEMPLATES`),
``seen`` / ``unseen`` / ``line`` (the templates), ``registry`` (fills :data:`TEMPLATES`; the
functions on a task, feasible worlds).
This module only re-exports what the harness, the benchmarks and the tests use.
"""
from ..observe import CORNERS, DIRECTIONS, PLACES, RANGE_XY, Positions, place_phrase
from .base import TEMPLATES, Task, Template
from .registry import (
                       TEMPLATE_IDS,
                       check,
                       feasible,
                       feasible_world,
                       initial_destroyed,
                       interpretation,
                       make_task,
                       mistaken_program,
                       needed_blocks,
                       solution_program,
                       solution_text,
                       tasks_for_split,
)
from .relations import (
                       MAGNITUDE_SPLIT,
                       block_by_distance,
                       block_in_direction,
                       corner_by_distance,
                       fit_line,
                       line_class,
                       nth_block_from,
)
from .scenes import (
                       MAX_OBJECTS,
                       SEEN_ATTRIBUTES,
                       SPLITS,
                       UNSEEN_ATTRIBUTES,
                       attributes_for,
                       world_positions,
)

__all__ = [
    "SPLITS",
    "SEEN_ATTRIBUTES",
    "UNSEEN_ATTRIBUTES",
    "PLACES",
    "CORNERS",
    "DIRECTIONS",
    "Task",
    "Template",
    "TEMPLATES",
    "TEMPLATE_IDS",
    "tasks_for_split",
    "make_task",
    "feasible_world",
    "feasible",
    "check",
    "world_positions",
    "solution_program",
    "mistaken_program",
    "solution_text",
    "needed_blocks",
    "attributes_for",
    "block_in_direction",
    "nth_block_from",
    "block_by_distance",
    "corner_by_distance",
    "fit_line",
    "line_class",
    "interpretation",
    "initial_destroyed",
    "MAX_OBJECTS",
    "MAGNITUDE_SPLIT",
    "RANGE_XY",
    "Positions",
    "place_phrase",
]

"""The systems the benchmark compares: ours (+ ablations), CaP, Dynamic CaP, HELPER.

The registry (:data:`SYSTEMS`, :func:`make_system`) is what ``llm-interaction eval`` and the
benchmarks use; the systems' modules are imported only when one is made.
"""
from __future__ import annotations

from pathlib import Path

from .variants import VARIANTS

OURS = tuple(VARIANTS)                 # ours and its ablations, then the baselines
SYSTEMS = OURS + ("cap", "dynamic_cap", "helper")


def make_system(name: str, llm, memory_dir: str | Path, settings=None):
    """A system under test by name, its memory in ``memory_dir``; ``settings`` (a
    :class:`~...settings.Settings`, default: the defaults) give k, the agent's settings and
    the robot API every system gets (``robot_api.preset``); the LLM's temperature and token
    limit are ``llm.config``'s (the client's own)."""
    from ...settings import Settings
    settings = settings or Settings()
    if name in OURS:
        from .ours import OursSystem
        return OursSystem(llm, memory_dir, name, settings=settings)
    # the baselines' prompt examples: memory.k; temperature and max_tokens are the llm's own
    if name in ("cap", "dynamic_cap"):
        from . import cap
        return cap.make(name, llm, memory_dir, settings.memory.k,
                        api_preset=settings.robot_api.preset)
    if name == "helper":
        from . import helper
        return helper.make(llm, memory_dir, settings.memory.k,
                           api_preset=settings.robot_api.preset)
    raise ValueError(f"unknown system {name!r}; use one of {', '.join(SYSTEMS)}")

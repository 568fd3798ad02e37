"""Ours and its ablations: one :class:`Variant` per row of the paper's ablation table.

Kept apart from :mod:`.ours` (which builds sessions) so that the systems registry can name
the variants without importing the agent.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...settings import Settings


@dataclass(frozen=True)
class Variant:
    """One row of the paper's ablation table: settings it changes (None: the settings')."""

    name: str
    k: int | None = None
    mode: str | None = None          # improve | raw (w/o improve) | off (w/o learning)
    retrieval: bool | None = None

    def settings(self, base: "Settings", memory_dir: str | Path) -> "Settings":
        """``base`` with this variant's changes; the memory is the one in ``memory_dir``."""
        settings = base.with_overrides({"memory.k": self.k, "learning.mode": self.mode,
                                        "learning.retrieval": self.retrieval,
                                        "memory.enabled": True, "memory.path": str(memory_dir)})
        settings.memory.host = None          # never a shared server: runs must not mix
        return settings


VARIANTS = {v.name: v for v in (
    Variant("ours"),
    Variant("ours_k4", k=4),
    Variant("ours_no_retrieval", retrieval=False),
    Variant("ours_no_improve", mode="raw"),
    Variant("ours_corrected", mode="corrected"),    # no L_improve: what worked + corrections
    Variant("ours_final", mode="final"),     # no L_improve: the accepted attempt, replayed
    Variant("ours_no_learning", k=64, mode="off"),
    # Table III: what was learned before (--memory-from), used without learning more
    Variant("ours_frozen", mode="off"),
)}

"""Ours and its ablations: one :class:`Variant` per row of the paper's ablation table.

``ours`` and its ablations use the default prompt layout (``memory.order`` ``seed_block``:
every seed, then the top-k lessons), so ``ours`` before any lesson and ``ours_no_learning``
hold the same prompt and differ only in learning. The ``paper`` preset is the paper's layout
(the top k over seeds and lessons together, most similar last), and ``paper_no_learning`` its
w/o-learning ablation as the paper configures it (k = 64). The paper's robot API is another
setting, ``robot_api.preset`` (``--api-preset paper``), the same for every system.

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
    mode: str | None = None          # learning.mode (None: the default, auto)
    retrieval: bool | None = None
    order: str | None = None         # memory.order: the prompt layout
    reuse: str | None = None         # memory.reuse: a lesson matched by meaning or by words
    follow: bool | None = None       # agent.follow_lessons
    scenes_check: bool | None = None     # learning.scenes_check

    def settings(self, base: Settings, memory_dir: str | Path) -> Settings:
        """``base`` with this variant's changes; the memory is the one in ``memory_dir``."""
        settings = base.with_overrides({"memory.k": self.k, "memory.order": self.order,
                                        "learning.mode": self.mode,
                                        "learning.retrieval": self.retrieval,
                                        "memory.reuse": self.reuse,
                                        "agent.follow_lessons": self.follow,
                                        "learning.scenes_check": self.scenes_check,
                                        "memory.enabled": True, "memory.path": str(memory_dir)})
        settings.memory.host = None          # never a shared server: runs must not mix
        return settings


VARIANTS = {v.name: v for v in (
    Variant("ours"),                         # the default settings: learning.mode auto
    Variant("ours_improve", mode="improve"),    # L_improve's rewrite only, no fallback
    Variant("ours_k4", k=4),
    Variant("ours_no_retrieval", retrieval=False),
    Variant("ours_no_improve", mode="raw"),
    Variant("ours_corrected", mode="corrected"),    # no L_improve: what worked + corrections
    Variant("ours_final", mode="final"),     # no L_improve: the accepted attempt, replayed
    Variant("ours_no_learning", mode="off"),      # the same prompt as ours, never a lesson
    # issue 43's ablations of lessons by meaning
    Variant("ours_reuse_words", reuse="words"),     # a lesson reused where only names differ
    Variant("ours_no_follow", follow=False),        # a lesson shown, never followed by decoding
    Variant("ours_no_scenes_check", scenes_check=False),   # every lesson a rule, unjudged
    # Table III: what was learned before (--memory-from), used without learning more
    Variant("ours_frozen", mode="off"),
    # the paper's layout: top k over seeds and lessons together, most similar last
    Variant("paper", order="similarity"),
    Variant("paper_no_learning", k=64, mode="off", order="similarity"),
)}

"""Where built files are kept: the embedded models, their saved states, Whisper, the ONNX export.

One directory for all of them, one environment variable (``LLM_INTERACTION_CACHE``, read by
the settings mechanism of :mod:`.config` like every other variable)."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .config import load_section, setting


@dataclass
class CacheSettings:
    """The machine's cache (``LLM_INTERACTION_CACHE``); not part of an agent's settings."""

    path: str = setting("", "where built models and states are kept ('' = "
                        "$XDG_CACHE_HOME/llm_interaction_node, by default "
                        "~/.cache/llm_interaction_node)", env="LLM_INTERACTION_CACHE")


def cache_dir(env: Mapping[str, str] = os.environ) -> Path:
    """The cache directory (not created here)."""
    path = load_section(CacheSettings, None, "cache", env).path
    if path:
        return Path(path).expanduser()
    base = env.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base).expanduser() / "llm_interaction_node"

